"""What a learner sees of napkin findings on the web: errors only, and no author's markers.

The item page marks a claim wrong only when ``check`` reports it as an error and
no ``# sysdrill: ignore[CODE]`` comment of the author silences it; doubts
(prefixes, units, unsure readings) and claims the engine skips are left
unmarked. The marker itself never reaches a page, the JSON twin or practice.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from sysdrill.app.learner_napkin import verdict_code
from sysdrill.check import run_check
from sysdrill.content.diagnostics import Severity
from sysdrill.napkin import Verdict, check_claims

from .conftest import make_app, with_csrf

FIXTURE = Path(__file__).resolve().parents[1] / "check" / "fixtures" / "valid"
ITEM = "questions/cloud/cloud-0001.yaml"

CALCULATIONS = """\
    **Calculations:**
    - Traffic per GPU = 2 * 2 GB = 4 GB.
"""
MARKED = """\
    # sysdrill: ignore[napkin-units]
    **Calculations:**
    - Traffic per GPU = 2 * 2 GB = 4 GB.
    - Silenced = 8 * 80 GB = 600 GB  # sysdrill: ignore[napkin-arithmetic]
    - Wrong = 9 * 80 GB = 900 GB
    - Memory = 16 GB = 16 GiB
"""


def _vault(root: Path, *, napkin: str = MARKED, key_line: str = "  napkin_math: |") -> Path:
    shutil.copytree(FIXTURE, root)
    path = root / ITEM
    text = path.read_text("utf-8").replace(CALCULATIONS, napkin)
    text = text.replace("  napkin_math: |", key_line)
    text = text.replace(
        "    In a ring all-reduce each GPU",
        "    In a ring all-reduce  # sysdrill: ignore[title]\n    each GPU",
    )
    path.write_text(text, "utf-8")
    return root


@pytest.fixture(scope="module")
def marked_vault(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _vault(tmp_path_factory.mktemp("marked") / "vault")


@pytest.fixture(scope="module")
def marked_client(
    tmp_path_factory: pytest.TempPathFactory, marked_vault: Path
) -> Iterator[TestClient]:
    app = make_app(tmp_path_factory.mktemp("marked-web"), vault=marked_vault)
    with with_csrf(TestClient(app, raise_server_exceptions=False)) as found:
        yield found


def _marks(client: TestClient) -> list[tuple[str, str]]:
    claims = client.get("/api/items/cloud-0001").json()["claims"]
    return [(c["mark"], c["claim"]) for c in claims]


def test_item_page_marks_errors_and_what_holds_and_nothing_else(marked_client) -> None:
    marks = _marks(marked_client)
    assert ("wrong", "9 * 80 GB = 900 GB") in marks
    assert ("right", "2 * 2 GB = 4 GB") in marks
    # A prefix doubt is info or a warning for the author, never a mark for a learner.
    assert not any("16 GiB" in claim for _, claim in marks)
    assert {mark for mark, _ in marks} == {"right", "wrong"}
    page = marked_client.get("/items/cloud-0001").text
    assert '<li data-verdict="wrong"><span class="mark bad">wrong</span> <code>9 * 80 GB' in page
    assert "prefix?" not in page and "not checked" not in page and "units differ" not in page


def test_item_page_marks_wrong_exactly_what_check_reports_as_an_error(
    marked_client, marked_vault
) -> None:
    napkin = marked_client.get("/api/items/cloud-0001").json()["item"]["details"]["napkin_math"]
    wrong_on_page = {claim for mark, claim in _marks(marked_client) if mark == "wrong"}
    graded = {v.claim: verdict_code(v.verdict)[1] for v in check_claims(napkin)}
    errors = {claim for claim, severity in graded.items() if severity is Severity.ERROR}
    # The author silenced one of the errors; check agrees and counts it.
    assert errors - wrong_on_page == {"8 * 80 GB = 600 GB"}
    report = run_check(marked_vault, workers=1)
    assert [f.code for f in report.suppressed] == ["napkin-arithmetic"]
    assert [f.code for f in report.findings if f.severity is Severity.ERROR] == [
        "napkin-arithmetic"
    ]


def test_no_marker_reaches_the_item_page_or_its_json(marked_client) -> None:
    page = marked_client.get("/items/cloud-0001").text
    assert "sysdrill:" not in page
    details = marked_client.get("/api/items/cloud-0001").json()["item"]["details"]
    assert details["napkin_math"].splitlines()[2:5] == [
        "**Calculations:**",
        "- Traffic per GPU = 2 * 2 GB = 4 GB.",
        "- Silenced = 8 * 80 GB = 600 GB",
    ]
    assert details["realistic_solution"].startswith("In a ring all-reduce\neach GPU")


def test_a_comment_on_the_key_line_silences_the_claims_under_it(tmp_path: Path) -> None:
    vault = _vault(
        tmp_path / "vault", key_line="  napkin_math: |  # sysdrill: ignore[napkin-arithmetic]"
    )
    app = make_app(tmp_path / "web", vault=vault)
    with TestClient(app, raise_server_exceptions=False) as client:
        marks = _marks(client)
    assert "wrong" not in {mark for mark, _ in marks}
    assert ("right", "2 * 2 GB = 4 GB") in marks


def test_a_comment_naming_another_code_silences_no_wrong_claim(tmp_path: Path) -> None:
    vault = _vault(tmp_path / "vault", key_line="  napkin_math: |  # sysdrill: ignore[title]")
    app = make_app(tmp_path / "web", vault=vault)
    with TestClient(app, raise_server_exceptions=False) as client:
        wrong = {claim for mark, claim in _marks(client) if mark == "wrong"}
    assert {"9 * 80 GB = 900 GB"} <= wrong


def test_a_file_changed_since_loading_keeps_its_errors_marked(tmp_path: Path) -> None:
    vault = _vault(
        tmp_path / "vault", key_line="  napkin_math: |  # sysdrill: ignore[napkin-arithmetic]"
    )
    app = make_app(tmp_path / "web", vault=vault)
    with TestClient(app, raise_server_exceptions=False) as client:
        assert "wrong" not in {mark for mark, _ in _marks(client)}
        path = vault / ITEM
        # Edited in place (the folder's listing unchanged): the page's text is now stale,
        # so the file's comments cannot be matched to it and nothing is silenced.
        path.write_text(path.read_text("utf-8").replace("Traffic per GPU", "Traffic"), "utf-8")
        assert "wrong" in {mark for mark, _ in _marks(client)}


def test_practice_reveals_the_napkin_math_without_markers_and_marks_only_errors(
    tmp_path: Path,
) -> None:
    app = make_app(tmp_path / "web", vault=_vault(tmp_path / "vault"))
    with with_csrf(TestClient(app, raise_server_exceptions=False)) as client:
        started = client.post("/api/study/sessions", json={"kind": "practice"}).json()
        answered = client.post(
            f"/api/study/sessions/{started['session_id']}/answer",
            json={"text": "8 * 80 GB = 600 GB, 16 GB = 16 GiB, 2 * 2 GB = 4 GB"},
        ).json()
        page = client.get(f"/sessions/{started['session_id']}").text
    reveal = {part["heading"]: part["text"] for part in answered["item"]["reveal"]}
    assert "sysdrill:" not in "".join(reveal.values())
    assert "- Silenced = 8 * 80 GB = 600 GB\n" in reveal["Napkin math"]
    assert answered["feedback"]["message"].splitlines()[:2] == [
        "Your math: 8 * 80 GB = 600 GB: wrong "
        "(expected 640 GB from 8 * 80 GB; the line says 600 GB).",
        "Your math: 2 * 2 GB = 4 GB: right.",
    ]
    assert "16 GiB" not in answered["feedback"]["message"]
    assert "sysdrill:" not in page


def test_every_verdict_a_learner_is_shown_is_ok_or_an_error_of_check() -> None:
    for verdict in Verdict:
        code, severity = verdict_code(verdict)
        if verdict is Verdict.OK:
            assert code is None
        elif verdict is Verdict.WRONG:
            assert severity is Severity.ERROR
        else:
            # Doubts and skips: what the item page and practice leave unmarked.
            assert severity is not Severity.ERROR, verdict
