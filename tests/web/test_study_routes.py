"""Study pages and their JSON twins, driven with the TestClient like a learner would."""

from __future__ import annotations

import re

from fastapi.testclient import TestClient


def _start(client: TestClient, **form: str) -> int:
    response = client.post("/sessions", data=form, follow_redirects=False)
    assert response.status_code == 303, response.text
    match = re.fullmatch(r"/sessions/(\d+)", response.headers["location"])
    assert match is not None
    return int(match.group(1))


def test_practice_page_offers_every_session_kind_with_labelled_controls(client):
    page = client.get("/practice")
    assert page.status_code == 200
    for button in ("Start practice", "Start quiz", "Start gauntlet", "Walk the chain"):
        assert button in page.text
    assert '<label for="quiz-deck">Deck</label>' in page.text
    assert '<option value="sample-napkin-drills">' in page.text
    assert "scaling-out-training" in page.text


def test_each_kind_has_its_own_start_page(client):
    assert "Start quiz" in client.get("/quiz").text
    assert "Start practice" not in client.get("/quiz").text
    assert "10 min" in client.get("/gauntlet").text
    assert "Walk the chain" in client.get("/chains").text
    assert "Start today" in client.get("/daily").text


def test_a_flashcard_shows_its_back_first_then_rates_with_keys_1_to_4(fresh_client):
    session_id = _start(fresh_client, kind="practice", deck="sample-fundamentals")
    page = fresh_client.get(f"/sessions/{session_id}").text
    assert 'data-key=" " autofocus>Show the answer (space)</button>' in page
    assert f'action="/sessions/{session_id}/rate"' not in page
    assert '<script src="/static/study.js" defer></script>' in page
    early = fresh_client.post(f"/sessions/{session_id}/rate", data={"rating": "3"})
    assert early.status_code == 422
    assert "Show the answer first, then rate your recall." in early.text
    shown = fresh_client.post(f"/sessions/{session_id}/reveal", follow_redirects=False)
    assert shown.status_code == 303
    back = fresh_client.get(f"/sessions/{session_id}").text
    assert "Rate your recall (keys 1-4)" in back
    # Each button says when the item would come back (a new card: its learning steps).
    assert 'data-key="1" title="Next review in 1m">1 · Again · 1m</button>' in back
    assert 'data-key="3" title="Next review in 10m">3 · Good · 10m</button>' in back
    assert 'data-key="5"' not in back
    rated = fresh_client.post(
        f"/sessions/{session_id}/rate", data={"rating": "3"}, follow_redirects=False
    )
    assert rated.status_code == 303
    offered = fresh_client.get(f"/sessions/{session_id}").text
    assert "Recorded: Good; next review in 10 min." in offered
    assert 'name="accept" value="no" data-key="n">Go on (n)</button>' in offered
    fresh_client.post(f"/sessions/{session_id}/chain", data={"accept": "no"})
    assert "See the results" in fresh_client.get(f"/sessions/{session_id}").text


def test_the_confidence_setting_puts_every_rating_on_1_to_5(fresh_client):
    saved = fresh_client.post("/settings", data={"rating_scale": "confidence"})
    assert saved.status_code == 200
    session_id = _start(fresh_client, kind="quiz", deck="sample-napkin-drills")
    base = f"/sessions/{session_id}"
    shown = fresh_client.post(f"{base}/answer", data={"text": "about 2x"}).text
    assert "How well did you recall it? (keys 1-5)" in shown
    assert ">5 · Perfect · " in shown and ">1 · No idea · " in shown
    fresh_client.post(f"{base}/rate", data={"rating": "3"})
    api = fresh_client.get(f"/api/study/sessions/{session_id}").json()
    assert api["recorded"].startswith("Recorded: Hard")
    assert api["rating_scale"] == "confidence"


def test_quiz_grades_choice_and_number_on_submit(fresh_client):
    session_id = _start(fresh_client, kind="quiz", deck="sample-napkin-drills")
    base = f"/sessions/{session_id}"
    first = fresh_client.get(base).text
    assert "Show the model answer" in first
    shown = fresh_client.post(f"{base}/answer", data={"text": "about 2x"}).text
    assert "Rate your recall (keys 1-4)" in shown
    assert '">1 · Again · 1m</button>' in shown
    fresh_client.post(f"{base}/rate", data={"rating": "good"})
    choice = fresh_client.get(base).text
    # The whole option row is the button: its letter and its words.
    assert (
        'value="b" data-key="b"><span class="option-letter">b)</span> <span class="option-text">'
        in choice
    )
    graded = fresh_client.post(f"{base}/answer", data={"text": "b"}).text
    assert "<strong>Correct.</strong>" in graded
    assert "Why</h2>" in graded
    wrong = fresh_client.post(f"{base}/answer", data={"text": "3 MiB"}).text
    assert 'class="bad"' in wrong
    assert "Not quite" in wrong


def test_exercise_parts_are_shown_and_answered_one_by_one(fresh_client):
    session_id = _start(fresh_client, kind="quiz", deck="sample-exercises")
    base = f"/sessions/{session_id}"
    page = fresh_client.get(base).text
    assert "Your answer to (a)" in page
    assert "Your answer to (b)" not in page
    page = fresh_client.post(f"{base}/part", data={"text": "48.8 hours"}).text
    assert "Your answer: 48.8 hours" in page
    assert "Your answer to (b)" in page
    fresh_client.post(f"{base}/part", data={"text": "4600 s"})
    last = fresh_client.post(f"{base}/part", data={"text": "half"}).text
    assert "(a) 48.8 hours<br>(b) 4600 s<br>(c) half</p>" in last
    assert "Rate your recall" in last


def test_undo_takes_back_the_last_rating(fresh_client):
    session_id = _start(fresh_client, kind="practice", deck="sample-napkin-drills", limit="3")
    base = f"/sessions/{session_id}"
    fresh_client.post(f"{base}/answer", data={"text": "-"})
    fresh_client.post(f"{base}/rate", data={"rating": "again"})
    assert "Item 2 of" in fresh_client.get(base).text
    undone = fresh_client.post(f"{base}/undo", follow_redirects=True).text
    assert "Item 1 of" in undone
    assert "Undo last rating" not in undone
    api = fresh_client.get(f"/api/study/sessions/{session_id}").json()
    assert (api["position"], api["can_undo"]) == (1, False)


def test_gauntlet_shows_the_countdown_then_a_results_page(fresh_client):
    session_id = _start(fresh_client, kind="gauntlet", format="quick", seed="7")
    page = fresh_client.get(f"/sessions/{session_id}").text
    assert 'data-remaining="600">10:00</span>' in page
    finished = fresh_client.post(f"/sessions/{session_id}/finish", follow_redirects=False)
    assert finished.headers["location"] == f"/sessions/{session_id}/results"
    results = fresh_client.get(f"/sessions/{session_id}/results").text
    assert 'Score: <span class="stat">0%</span>' in results
    assert "not reached" in results
    report = fresh_client.get(f"/api/study/sessions/{session_id}/results").json()
    assert report["kind"] == "gauntlet" and report["answered"] == 0
    assert fresh_client.get(f"/sessions/{session_id}").status_code == 404


def test_chain_and_daily_start_from_their_pages(fresh_client):
    chain = _start(fresh_client, kind="chain", chain="scaling-out-training")
    assert "Item 1 of" in fresh_client.get(f"/sessions/{chain}").text
    daily = _start(fresh_client, kind="daily")
    assert "Daily" in fresh_client.get(f"/sessions/{daily}").text
    listed = fresh_client.get("/practice").text
    assert "Continue where you stopped" in listed
    assert f'href="/sessions/{daily}"' in listed


def test_json_api_runs_a_session_end_to_end(fresh_client):
    started = fresh_client.post(
        "/api/study/sessions", json={"kind": "quiz", "deck": "sample-fundamentals"}
    )
    assert started.status_code == 200
    body = started.json()
    assert (body["phase"], body["item"]["mode"]) == ("rate", "flashcard")
    assert (body["revealed"], body["rating_choices"], body["item"]["reveal"]) == (False, [], [])
    early = fresh_client.post(
        f"/api/study/sessions/{body['session_id']}/rate", json={"rating": "easy"}
    )
    assert early.status_code == 422
    assert early.json()["error"]["message"] == "Show the answer first, then rate your recall."
    shown = fresh_client.post(f"/api/study/sessions/{body['session_id']}/reveal").json()
    assert shown["revealed"] and shown["item"]["reveal"]
    assert [c["key"] for c in shown["rating_choices"]] == ["1", "2", "3", "4"]
    assert all(c["interval"] for c in shown["rating_choices"])
    rated = fresh_client.post(
        f"/api/study/sessions/{body['session_id']}/rate", json={"rating": "easy"}
    ).json()
    assert rated["phase"] == "done"
    assert rated["recorded"].startswith("Recorded: Easy; next review in ")
    # Every item answered: nothing is left to continue, though the results wait.
    assert fresh_client.get("/api/study/sessions").json()["sessions"] == []
    report = fresh_client.post(f"/api/study/sessions/{body['session_id']}/finish").json()
    assert (report["answered"], report["score_percent"]) == (1, 100)


def test_unknown_session_is_a_404_with_the_error_shape(client):
    response = client.get("/api/study/sessions/9999")
    assert response.status_code == 404
    assert response.json()["error"]["type"] == "SessionNotFound"
    assert client.get("/sessions/9999").status_code == 404


def test_bad_start_options_and_moves_are_422(fresh_client):
    bad_kind = fresh_client.post("/api/study/sessions", json={"kind": "marathon"})
    assert bad_kind.status_code == 422
    assert "Unknown session kind 'marathon'" in bad_kind.json()["error"]["message"]
    session_id = _start(fresh_client, kind="quiz", deck="sample-fundamentals")
    wrong_move = fresh_client.post(f"/api/study/sessions/{session_id}/answer", json={"text": "b"})
    assert wrong_move.status_code == 422
    assert fresh_client.post("/sessions", data={"kind": "quiz", "deck": "nope"}).status_code == 404


def test_nothing_to_practise_says_why(fresh_client):
    body = fresh_client.post(
        "/api/study/sessions", json={"kind": "practice", "deck": "sample-fundamentals"}
    ).json()
    fresh_client.post(f"/api/study/sessions/{body['session_id']}/reveal")
    fresh_client.post(f"/api/study/sessions/{body['session_id']}/rate", json={"rating": "easy"})
    page = fresh_client.post("/sessions", data={"kind": "practice", "deck": "sample-fundamentals"})
    assert page.status_code == 200
    assert "Nothing to practise now" in page.text


def test_a_restarted_server_resumes_the_session_in_progress(tmp_path):
    from tests.web.conftest import make_app, with_csrf

    first = with_csrf(TestClient(make_app(tmp_path / "web"), raise_server_exceptions=False))
    with first:
        session_id = _start(first, kind="quiz", deck="sample-napkin-drills")
        first.post(f"/sessions/{session_id}/answer", data={"text": "about 2x"})
        first.post(f"/sessions/{session_id}/rate", data={"rating": "hard"})
    second_client = TestClient(make_app(tmp_path / "web"), raise_server_exceptions=False)
    with with_csrf(second_client) as second:
        page = second.get(f"/sessions/{session_id}").text
        assert "Item 2 of 6" in page
        assert "Recorded: Hard" in page
        graded = second.post(f"/sessions/{session_id}/answer", data={"text": "b"}).text
        assert "<strong>Correct.</strong>" in graded


def test_gauntlet_rubric_form_scores_the_answer(fresh_client):
    session_id = _start(fresh_client, kind="gauntlet", format="design", seed="1")
    base = f"/sessions/{session_id}"
    page = fresh_client.post(f"{base}/answer", data={"text": "shard the model"}).text
    assert "Which key points did your answer cover?" in page
    assert '<input type="checkbox" id="point-0" name="covered" value="0">' in page
    fresh_client.post(f"{base}/rubric", data={"covered": ["0", "1"]})
    api = fresh_client.get(f"/api/study/sessions/{session_id}").json()
    assert api["phase"] == "done"
    assert api["report"]["results"][0]["outcome"] == "answered"
    assert api["report"]["score_percent"] > 0


def test_a_typed_answer_is_shown_escaped(fresh_client):
    session_id = _start(fresh_client, kind="quiz", deck="sample-napkin-drills")
    page = fresh_client.post(
        f"/sessions/{session_id}/answer", data={"text": '<script>alert("x")</script>'}
    ).text
    assert "<script>alert" not in page
    assert "&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;" in page


def test_a_session_whose_item_left_the_vault_offers_to_end_it(tmp_path):
    import os
    import shutil

    from tests.web.conftest import make_app, with_csrf

    from sysdrill.content.sample import sample_vault_path

    vault = tmp_path / "vault"
    shutil.copytree(sample_vault_path(), vault)
    with with_csrf(TestClient(make_app(tmp_path / "web", vault=vault))) as client:
        session_id = _start(client, kind="quiz", deck="sample-napkin-drills")
        item = vault / "questions" / "tinyml" / "tinyml-0101.yaml"
        item.unlink()
        stat = item.parent.stat()
        os.utime(item.parent, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))
        page = client.get(f"/sessions/{session_id}")
        assert page.status_code == 409
        assert "asks tinyml-0101, which the vault no longer holds" in page.text
        ended = client.post(f"/sessions/{session_id}/finish", follow_redirects=True)
        assert ended.status_code == 200
        assert "0 answered" in ended.text


def test_a_quiz_asks_the_whole_deck_past_the_days_new_items_unless_capped(fresh_client):
    saved = fresh_client.post("/settings", data={"new_per_day": "1"})
    assert saved.status_code == 200
    session_id = _start(fresh_client, kind="quiz", deck="sample-napkin-drills")
    page = fresh_client.get(f"/sessions/{session_id}").text
    assert "<h1>Quiz: Napkin-math drills (6 items)</h1>" in page and 'role="note"' not in page
    fresh_client.post(f"/sessions/{session_id}/finish")
    capped = _start(fresh_client, kind="quiz", deck="sample-napkin-drills", new="1")
    page = fresh_client.get(f"/sessions/{capped}").text
    assert (
        "Note: This quiz asks 1 of the deck&#39;s 6 items: 5 new item(s) left out: "
        "this session takes 1 new." in page
    )


def test_the_daily_page_names_todays_items(fresh_client):
    session_id = _start(fresh_client, kind="daily")
    page = fresh_client.get(f"/sessions/{session_id}").text
    assert "Note: Today&#39;s items: " in page


def test_an_unreadable_number_asks_again_on_the_session_page_without_the_answer(fresh_client):
    session_id = _start(fresh_client, kind="quiz", deck="sample-napkin-drills")
    base = f"/sessions/{session_id}"
    fresh_client.post(f"{base}/answer", data={"text": "about 2x"})
    fresh_client.post(f"{base}/rate", data={"rating": "good"})
    fresh_client.post(f"{base}/answer", data={"text": "b"})
    asked = fresh_client.get(base).text
    assert 'name="text" required' in asked  # the numeric item waits for its answer
    before = fresh_client.get(f"/api/study/sessions/{session_id}").json()
    typo = fresh_client.post(f"{base}/answer", data={"text": "3 MiBx"})
    assert typo.status_code == 200
    assert 'role="alert"' in typo.text and "a number with a unit" in typo.text
    assert 'name="text" required' in typo.text  # asked again, nothing recorded
    after = fresh_client.get(f"/api/study/sessions/{session_id}").json()
    assert (after["phase"], after["position"]) == ("answer", before["position"])
    assert after["item"]["item_id"] == before["item"]["item_id"]
    again = fresh_client.post(f"{base}/answer", data={"text": "3 MiB"}).text
    assert "Not quite" in again
