"""Pages a person reads (issue 29 items 5 and 6): navigation, settings in words, sessions
that end, a reload after an answer, napkin headings, a past interview date."""

from __future__ import annotations

import re
from datetime import timedelta
from pathlib import Path

from fastapi.testclient import TestClient

from .conftest import NOW, with_csrf


def _start(client: TestClient, **form: str) -> int:
    response = client.post("/sessions", data=form, follow_redirects=False)
    assert response.status_code == 303, response.text
    match = re.fullmatch(r"/sessions/(\d+)", response.headers["location"])
    assert match is not None
    return int(match.group(1))


def test_every_session_kind_is_in_the_navigation(client: TestClient) -> None:
    for page in ("/", "/settings", "/vault"):
        nav = client.get(page).text.split('<nav aria-label="Main">', 1)[1].split("</nav>", 1)[0]
        links = re.findall(r'<a href="([^"]+)"[^>]*>([^<]+)</a>', nav)
        assert [label for _, label in links][:7] == [
            "Dashboard",
            "Practice",
            "Quiz",
            "Gauntlet",
            "Chains",
            "Daily",
            "Interview",
        ]
    quiz = client.get("/quiz").text
    assert '<a href="/quiz" aria-current="page">Quiz</a>' in quiz


def test_settings_are_shown_in_words_with_controls_that_fit(client: TestClient) -> None:
    page = client.get("/settings").text
    assert '<label for="set-new_per_day">New items per day</label>' in page
    assert re.search(
        r'<input type="number" id="set-new_per_day" name="new_per_day" value="20" '
        r'min="0" max="100000" step="1"',
        page,
    )
    assert re.search(
        r'<input type="number" id="set-desired_retention" name="desired_retention" '
        r'value="0.9" min="0.7" max="0.97" step="0.01"',
        page,
    )
    assert '<input type="checkbox" id="set-fuzz" name="fuzz" value="true" checked' in page
    assert '<select id="set-rating_scale" name="rating_scale"' in page
    assert f'type="date" id="set-deadline" name="deadline" value="" min="{NOW.date()}"' in page
    # No setting is labelled by its key, and no help line names a command.
    assert ">new_per_day<" not in page and ">desired retention<" not in page
    form = page.split('<form method="post" action="/settings"', 1)[1].split("</form>", 1)[0]
    assert "sysdrill " not in form and "--new" not in form and "`" not in form


def test_an_unticked_box_turns_its_setting_off(fresh_client: TestClient) -> None:
    # A browser sends the hidden "false" and, only when ticked, the box's "true".
    saved = fresh_client.post("/settings", data={"fuzz": "false"})
    assert saved.status_code == 200
    assert 'name="fuzz" value="true" aria-describedby' in saved.text  # no longer checked
    again = fresh_client.post("/settings", data={"fuzz": ["false", "true"]})
    assert 'name="fuzz" value="true" checked' in again.text


def test_a_past_interview_date_is_refused_and_nothing_is_stored(fresh_client: TestClient) -> None:
    past = (NOW.date() - timedelta(days=1)).isoformat()
    refused = fresh_client.post("/settings", data={"deadline": past})
    assert refused.status_code == 422
    assert f"The interview date {past} has passed; give one from {NOW.date()} on" in refused.text
    api = fresh_client.put("/api/settings", json={"deadline": past})
    assert api.status_code == 422
    stored = {s["key"]: s["value"] for s in fresh_client.get("/api/settings").json()["settings"]}
    assert stored["deadline"] is None
    later = (NOW.date() + timedelta(days=30)).isoformat()
    assert fresh_client.put("/api/settings", json={"deadline": later}).status_code == 200


def test_a_reload_after_an_answer_shows_the_same_page(fresh_client: TestClient) -> None:
    session_id = _start(fresh_client, kind="quiz", deck="sample-napkin-drills")
    base = f"/sessions/{session_id}"
    fresh_client.post(f"{base}/answer", data={"text": "about 2x"})
    fresh_client.post(f"{base}/rate", data={"rating": "good"})
    posted = fresh_client.post(f"{base}/answer", data={"text": "b"}, follow_redirects=False)
    assert posted.status_code == 303 and posted.headers["location"] == base
    shown = fresh_client.get(base)
    reloaded = fresh_client.get(base)
    assert shown.status_code == reloaded.status_code == 200
    assert "<strong>Correct.</strong>" in shown.text
    assert shown.text == reloaded.text


def test_a_finished_session_is_no_longer_offered_to_continue(fresh_client: TestClient) -> None:
    session_id = _start(fresh_client, kind="practice", deck="sample-fundamentals", limit="1")
    base = f"/sessions/{session_id}"
    assert f'href="/sessions/{session_id}"' in fresh_client.get("/").text
    fresh_client.post(f"{base}/reveal")
    fresh_client.post(f"{base}/rate", data={"rating": "3"})
    view = fresh_client.get(f"/api/study/sessions/{session_id}").json()
    while view["phase"] == "chain":
        view = fresh_client.post(
            f"/api/study/sessions/{session_id}/chain", json={"accept": False}
        ).json()
    assert view["phase"] == "done"
    # Its results are still there to see, but nothing is left to continue.
    assert "See the results" in fresh_client.get(base).text
    assert f'href="/sessions/{session_id}"' not in fresh_client.get("/").text
    assert f'href="/sessions/{session_id}"' not in fresh_client.get("/practice").text
    assert fresh_client.get("/api/study/sessions").json()["sessions"] == []


def test_a_timed_out_gauntlet_is_no_longer_offered_to_continue(tmp_path: Path) -> None:
    from sysdrill.content.sample import sample_vault_path
    from sysdrill.storage.engine import upgrade_database
    from sysdrill.web.app import create_app

    db_url = f"sqlite:///{tmp_path / 'study.sqlite3'}"
    upgrade_database(db_url)
    clock = [NOW]
    app = create_app(
        vault=sample_vault_path(),
        db_url=db_url,
        cache_dir=tmp_path / "cache",
        data_dir=tmp_path / "data",
        clock=lambda: clock[0],
        allowed_hosts=("testserver",),
    )
    with with_csrf(TestClient(app, raise_server_exceptions=False)) as client:
        session_id = _start(client, kind="gauntlet", format="quick", seed="7")
        assert f'href="/sessions/{session_id}"' in client.get("/").text
        clock[0] = NOW + timedelta(minutes=11)  # the ten minutes ran out while away
        assert f'href="/sessions/{session_id}"' not in client.get("/").text
        assert client.get("/api/study/sessions").json()["sessions"] == []


def test_napkin_sections_keep_their_headings_on_lines_of_their_own() -> None:
    from sysdrill.web.render import render_markdown

    napkin = (
        "**Assumptions & Constraints:**\n- 1024 GPUs.\n- 60 s per checkpoint.\n"
        "**Calculations:**\n- MTBF: 50000 h / 1024 = 48.83 h.\n"
        "```\n**not a heading**\n```"
    )
    html = str(render_markdown(napkin))
    assert "<li>60 s per checkpoint.</li>" in html
    assert "<p><strong>Calculations:</strong></p>" in html
    assert "<pre><code>**not a heading**\n</code></pre>" in html  # code is left as written


def test_a_missing_session_is_told_in_words(client: TestClient) -> None:
    page = client.get("/sessions/987654")
    assert page.status_code == 404
    assert "list_sessions" not in page.text
    assert "Continue where you stopped" in page.text
