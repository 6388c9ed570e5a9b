"""Edit an item's text from its page: saved when check is clean, refused with why when not."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from sysdrill.app.accounts import Role, open_accounts
from sysdrill.content.sample import sample_vault_path

from .conftest import NOW, make_app, with_csrf

PASSWORD = "correct horse battery"
ITEM = "cloud-0103"
WRONG_LINE = ("= 38.5 GB.", "= 50 GB.")
"""A napkin line's result, and a wrong one check refuses."""
MISTAKE = (
    "**The Pitfall:** Picking stage 3.\n"
    "**The Rationale:** It saves the most memory.\n"
    "**The Consequence:** Slower steps for memory never used."
)


@pytest.fixture
def own_vault(tmp_path: Path) -> Path:
    copy = tmp_path / "my-vault"
    shutil.copytree(sample_vault_path(), copy)
    return copy


def _item_file(vault: Path) -> Path:
    return vault / "questions" / "cloud" / f"{ITEM}.yaml"


@pytest.fixture
def owner(tmp_path: Path, own_vault: Path) -> Iterator[TestClient]:
    app = make_app(tmp_path / "web", vault=own_vault)
    with with_csrf(TestClient(app, raise_server_exceptions=False)) as client:
        yield client


def test_an_edit_saved_from_the_form_shows_on_the_item_page(
    owner: TestClient, own_vault: Path
) -> None:
    page = owner.get(f"/items/{ITEM}").text
    assert f'href="/items/{ITEM}/edit"' in page
    form = owner.get(f"/items/{ITEM}/edit")
    assert form.status_code == 200
    assert 'name="question"' in form.text and 'name="realistic_solution"' in form.text
    assert "Which is the lowest ZeRO stage" in form.text

    saved = owner.post(
        f"/items/{ITEM}/edit",
        data={"title": "Lowest ZeRO stage for a 7B model", "question": "Which ZeRO stage fits?"},
        follow_redirects=False,
    )
    assert saved.status_code == 303, saved.text
    shown = owner.get(saved.headers["location"]).text
    assert "Lowest ZeRO stage for a 7B model" in shown and "Which ZeRO stage fits?" in shown
    text = _item_file(own_vault).read_text(encoding="utf-8")
    assert "title: Lowest ZeRO stage for a 7B model\n" in text
    assert text.index("title:") < text.index("scenario:") < text.index("question:")
    assert "correct_index: 1" in text  # the fields not edited stay as they were


def test_an_edit_with_wrong_napkin_math_is_refused_and_the_file_kept(
    owner: TestClient, own_vault: Path
) -> None:
    before = _item_file(own_vault).read_bytes()
    fields = owner.get(f"/api/items/{ITEM}/text").json()["fields"]
    wrong = fields["napkin_math"].replace(*WRONG_LINE)
    refused = owner.post(f"/items/{ITEM}/edit", data={"napkin_math": wrong})
    assert refused.status_code == 422
    assert "napkin-arithmetic" in refused.text and "Not saved" in refused.text
    assert "50 GB" in refused.text  # the form keeps what was typed
    api = owner.put(f"/api/items/{ITEM}/text", json={"napkin_math": wrong})
    assert api.status_code == 422
    assert api.json()["error"]["message"].startswith("Not saved: the edit brings in 1 error")
    assert _item_file(own_vault).read_bytes() == before


def test_the_api_saves_and_reports_no_change_the_second_time(
    owner: TestClient, own_vault: Path
) -> None:
    edit = {"common_mistake": MISTAKE}
    first = owner.put(f"/api/items/{ITEM}/text", json=edit)
    assert first.status_code == 200, first.text
    assert first.json()["changed"] is True
    again = owner.put(f"/api/items/{ITEM}/text", json=edit)
    assert again.json()["changed"] is False
    unknown = owner.put(f"/api/items/{ITEM}/text", json={"id": "other"})
    assert unknown.status_code == 422
    assert owner.get(f"/api/items/{ITEM}/text").json()["fields"]["common_mistake"] == MISTAKE
    assert "Slower steps for memory never used." in owner.get(f"/items/{ITEM}").text


def test_the_bundled_vault_offers_no_edit_and_refuses_one(fresh_client: TestClient) -> None:
    assert f"/items/{ITEM}/edit" not in fresh_client.get(f"/items/{ITEM}").text
    assert fresh_client.get(f"/items/{ITEM}/edit").status_code == 403
    refused = fresh_client.put(f"/api/items/{ITEM}/text", json={"title": "x"})
    assert refused.status_code == 403
    assert "never edited" in refused.json()["error"]["message"]


@pytest.fixture
def multi_app(tmp_path: Path, own_vault: Path) -> FastAPI:
    app = make_app(tmp_path / "web", vault=own_vault, multi_user=True)
    with open_accounts(app.state.sysdrill.db_url) as accounts:
        accounts.add("root-admin", PASSWORD, role=Role.ADMIN, now=NOW)
    return app


def _logged_in(app: FastAPI, name: str, *, sign_up: bool) -> Iterator[TestClient]:
    with with_csrf(TestClient(app, raise_server_exceptions=False)) as client:
        path = "/api/signup" if sign_up else "/api/login"
        response = client.post(path, json={"name": name, "password": PASSWORD})
        assert response.status_code in (200, 201), response.text
        yield client


def test_a_learner_on_a_shared_server_cannot_edit_but_the_admin_can(
    multi_app: FastAPI, own_vault: Path
) -> None:
    before = _item_file(own_vault).read_bytes()
    for learner in _logged_in(multi_app, "lena", sign_up=True):
        assert f"/items/{ITEM}/edit" not in learner.get(f"/items/{ITEM}").text
        assert learner.get(f"/items/{ITEM}/edit").status_code == 403
        assert learner.post(f"/items/{ITEM}/edit", data={"title": "Mine"}).status_code == 403
        assert learner.put(f"/api/items/{ITEM}/text", json={"title": "x"}).status_code == 403
    assert _item_file(own_vault).read_bytes() == before
    for admin in _logged_in(multi_app, "root-admin", sign_up=False):
        assert f"/items/{ITEM}/edit" in admin.get(f"/items/{ITEM}").text
        assert admin.put(f"/api/items/{ITEM}/text", json={"title": "Shared"}).status_code == 200


def test_an_edit_without_a_csrf_token_is_refused(owner: TestClient, own_vault: Path) -> None:
    before = _item_file(own_vault).read_bytes()
    bare = TestClient(owner.app, raise_server_exceptions=False)
    assert bare.post(f"/items/{ITEM}/edit", data={"title": "Forged"}).status_code == 403
    assert bare.put(f"/api/items/{ITEM}/text", json={"title": "Forged"}).status_code == 403
    assert _item_file(own_vault).read_bytes() == before
