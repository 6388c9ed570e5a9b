"""Pages a person reads show no Python (issue 29, item 5, first part).

Every page of the web app is rendered, in single-user and multi-user mode, for a
learner who has studied (reviews, a finished session, sessions left half way, so
that the "Continue where you stopped" cards show), and each page's text and
attribute values are searched for what a template leaks when it reads the wrong
thing: ``<built-in method ...>``, ``<... object at 0x...>``, a bare ``None``, and
template syntax left unrendered (``{{``, ``{%``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from html.parser import HTMLParser

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from sysdrill.app.accounts import Role, open_accounts

from .conftest import NOW, make_app, with_csrf

PASSWORD = "correct horse battery"

_LEAKS = (
    ("a Python builtin", re.compile(r"<built-in|built-in method|bound method")),
    ("a Python object", re.compile(r"object at 0x[0-9a-f]+")),
    # "None of these" is English; "Deadline: None", a lone "None" or value="None" is Python.
    ("a bare None", re.compile(r"(?<![\w'\"-])None(?!\s+[a-z])(?![\w'\"-])")),
    ("template syntax", re.compile(r"\{\{|\}\}|\{%|%\}")),
)


class _Shown(HTMLParser):
    """What a reader sees of a page: its text and attribute values, without scripts."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self._skip = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("script", "style"):
            self._skip += 1
        for name, value in attrs:
            # An image's data: URI is a chart, not text.
            if value and not value.startswith("data:") and name not in ("d", "points"):
                self.parts.append(value)

    def handle_endtag(self, tag: str) -> None:
        if tag in ("script", "style") and self._skip:
            self._skip -= 1

    def handle_data(self, data: str) -> None:
        if not self._skip and data.strip():
            self.parts.append(data.strip())


def leaks(html: str) -> list[str]:
    """Each Python leak of ``html``, named, with the text around it."""
    parser = _Shown()
    parser.feed(html)
    found = []
    for part in parser.parts:
        for name, pattern in _LEAKS:
            match = pattern.search(part)
            if match is not None:
                start = max(0, match.start() - 40)
                found.append(f"{name}: ...{part[start : match.end() + 40]}...")
    return found


def test_the_leak_finder_finds_what_issue_29_saw() -> None:
    page = (
        '<p>0/&lt;built-in method items of dict object at 0x7f3a&gt; seen</p><p title="None">x</p>'
        "<p>{{ item.title }}</p><script>if (x === None) {}</script><p>None of these</p>"
    )
    assert [leak.split(":")[0] for leak in leaks(page)] == [
        "a Python builtin",
        "a Python object",
        "a bare None",
        "template syntax",
    ]


# -- a learner who has studied --------------------------------------------------------


@dataclass
class Learner:
    """A client of one app mode, after studying, and the ids its pages need."""

    client: TestClient
    mode: str
    finished: int
    in_progress: list[int]


def _answer_until_rated(client: TestClient, session_id: int, *, moves: int) -> None:
    """Answer and rate ``moves`` items of a session (its JSON API, as a script would)."""
    for _ in range(moves):
        view = client.get(f"/api/study/sessions/{session_id}").json()
        phase = view["phase"]
        if phase == "answer":
            item = view.get("item") or {}
            if item.get("parts"):
                response = client.post(f"/api/study/sessions/{session_id}/part", json={"text": "-"})
            else:
                text = "a" if item.get("options") else "-"
                response = client.post(
                    f"/api/study/sessions/{session_id}/answer", json={"text": text}
                )
        elif phase == "rate" and not view["revealed"]:
            response = client.post(f"/api/study/sessions/{session_id}/reveal")
        elif phase == "rate":
            response = client.post(
                f"/api/study/sessions/{session_id}/rate", json={"rating": "good"}
            )
        elif phase == "chain":
            response = client.post(
                f"/api/study/sessions/{session_id}/chain", json={"accept": False}
            )
        elif phase == "rubric":
            response = client.post(
                f"/api/study/sessions/{session_id}/rubric", json={"covered": [0]}
            )
        else:
            return
        assert response.status_code == 200, response.text


def _start(client: TestClient, **body: object) -> int:
    response = client.post("/api/study/sessions", json=body)
    assert response.status_code in (200, 201), response.text
    return int(response.json()["session_id"])


def _study(client: TestClient, mode: str) -> Learner:
    finished = _start(client, kind="practice", limit=3)
    _answer_until_rated(client, finished, moves=12)
    client.post(f"/api/study/sessions/{finished}/finish")
    in_progress = []
    for body in (
        {"kind": "practice", "limit": 5},
        {"kind": "quiz", "deck": "sample-fundamentals"},
        {"kind": "gauntlet", "format": "quick"},
        {"kind": "daily"},
    ):
        session_id = _start(client, **body)
        _answer_until_rated(client, session_id, moves=1)
        in_progress.append(session_id)
    report = client.post(
        "/api/items/cloud-0101/reports", json={"kind": "typo", "message": "A typo in the title."}
    )
    assert report.status_code in (200, 201), report.text
    return Learner(client, mode, finished, in_progress)


@pytest.fixture(scope="module", params=["single-user", "multi-user"])
def learner(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Learner]:
    multi = request.param == "multi-user"
    app: FastAPI = make_app(tmp_path_factory.mktemp(request.param), multi_user=multi)
    if multi:
        with open_accounts(app.state.sysdrill.db_url) as accounts:
            accounts.add("root-admin", PASSWORD, role=Role.ADMIN, now=NOW)
    with with_csrf(TestClient(app, raise_server_exceptions=False)) as client:
        if multi:
            logged_in = client.post("/api/login", json={"name": "root-admin", "password": PASSWORD})
            assert logged_in.status_code == 200, logged_in.text
        yield _study(client, request.param)


def _pages(learner: Learner) -> list[str]:
    """Every page a browser shows, with the ids and queries that fill each one."""
    from sysdrill.content.loader import load_vault
    from sysdrill.content.sample import sample_vault_path
    from sysdrill.napkin.calculators.registry import calculator_names

    app = learner.client.app
    pages: list[str] = []
    for router in app.state.routers:  # type: ignore[union-attr]
        for route in router.routes:
            path = getattr(route, "path", "")
            if "GET" in getattr(route, "methods", ()) and not path.startswith("/api"):
                if "{" not in path and not path.startswith("/export/download"):
                    pages.append(path)
    items = [item.id for item in load_vault(sample_vault_path()).items]
    pages += [f"/items/{item_id}" for item_id in items]
    pages += [f"/calculators/{name}" for name in calculator_names()]
    pages += [f"/calculators/{name}?run=1" for name in calculator_names()]
    pages += [
        "/planner?run=1",
        "/vault?q=gpu",
        "/vault?track=cloud&level=L3",
        "/settings?saved=true",
    ]
    pages += [f"/sessions/{learner.finished}", f"/sessions/{learner.finished}/results"]
    pages += [f"/sessions/{session_id}" for session_id in learner.in_progress]
    pages += ["/items/cloud-0101?reported=true", "/no-such-page", "/items/no-such-item"]
    if learner.mode == "multi-user":
        pages += ["/account?changed=true", "/admin/users?saved=true"]
    return sorted(set(pages))


def test_no_page_shows_python_objects_none_or_template_syntax(learner: Learner) -> None:
    found: dict[str, list[str]] = {}
    for page in _pages(learner):
        response = learner.client.get(page)
        assert response.status_code < 500, f"{page}: {response.status_code}"
        if "text/html" not in response.headers.get("content-type", ""):
            continue
        page_leaks = leaks(response.text)
        if page_leaks:
            found[page] = page_leaks
    assert not found, "\n".join(f"{page}: {leak}" for page, ls in found.items() for leak in ls[:3])


def test_explore_and_continue_cards_count_items_not_a_dict_method(learner: Learner) -> None:
    explore = learner.client.get("/explore").text
    assert "built-in method" not in explore
    assert re.search(r"\d+/\d+ seen", explore), "explore shows no 'seen/items' counts"
    for page in ("/practice", "/"):
        text = learner.client.get(page).text
        assert "Continue where you stopped" in text or "in_progress" not in text
        assert "built-in method" not in text
    practice = learner.client.get("/practice").text
    assert "Continue where you stopped" in practice
    assert re.search(r"\(\d+ of \d+ done\)", practice), "continue cards show no item counts"


def test_the_posted_pages_show_no_python(learner: Learner) -> None:
    """Pages that answer a form: the napkin box, an import preview, a session's feedback."""
    client = learner.client
    pages = {
        "napkin": client.post(
            "/calculators/napkin", data={"text": "8 * 80 GB = 640 GB\n100 MB / (50 GB/s) = 3 ms"}
        ),
        "import preview": client.post(
            "/import/preview",
            files={"source": ("cards.csv", b"Front,Back\nWhat is HBM?,Stacked DRAM\n", "text/csv")},
            data={"format": "auto", "deck": ""},
        ),
    }
    session_id = _start(client, kind="practice", limit=2)
    for _ in range(3):
        view = client.get(f"/api/study/sessions/{session_id}").json()
        if view["phase"] == "answer":
            pages[f"session {view['phase']}"] = client.get(f"/sessions/{session_id}")
            client.post(f"/sessions/{session_id}/answer", data={"text": "-"})
        pages[f"session after {view['phase']}"] = client.get(f"/sessions/{session_id}")
        _answer_until_rated(client, session_id, moves=1)
    found = {
        name: leaks(response.text)
        for name, response in pages.items()
        if "text/html" in response.headers.get("content-type", "")
    }
    assert not any(found.values()), found
    for name, response in pages.items():
        assert response.status_code < 500, f"{name}: {response.status_code}"
