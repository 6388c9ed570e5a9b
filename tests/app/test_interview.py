"""Mock interviews through the use cases: records, FSRS reviews, and a model over HTTP.

The model is a fake OpenAI-compatible server on loopback (``tests/fake_llm_server.py``):
the client streams from it over a real socket. What is asserted is the protocol
(pieces arrive as they stream, the prompt holds the napkin verdicts, the JSON
block is used or falls back, a dead endpoint leaves the interview usable),
never a model's wording.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from tests.fake_llm_server import Answer, FakeEndpoint, closed_port_url, fake_endpoint, streamed

from sysdrill.app import interview as app
from sysdrill.app.interview_ladder import InterviewPick, PickKind
from sysdrill.app.interview_records import export_interviews, interview_results
from sysdrill.app.llm_client import ChatClient, EndpointConfig
from sysdrill.app.study import open_study, upgrade_study_database
from sysdrill.app.study_vault import StudyVault, open_study_vault
from sysdrill.errors import ChainNotFound, SessionNotFound, StorageConflict, UsageError
from sysdrill.storage.interview_store import InterviewStore
from sysdrill.study.service import StudyService

T0 = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)
CHAIN = InterviewPick(PickKind.CHAIN, "ring-all-reduce-cost", items=2)
FIRST_ANSWER = (
    "Reduce-scatter leaves each rank one distinct slice of the summed result; all-gather "
    "concatenates the slices so every rank has the full sum: together an all-reduce."
)
WRONG_MATH = "Gradients: 1e9 * 4 B = 4 GB; ring factor 2 * (8 - 1) / 8 = 1.5, so 6 GB per GPU."


@pytest.fixture(scope="module")
def vault() -> StudyVault:
    return open_study_vault()


@pytest.fixture
def db_url(tmp_path: Path) -> str:
    url = f"sqlite:///{tmp_path / 'study.sqlite3'}"
    upgrade_study_database(url)
    return url


@pytest.fixture
def opened(db_url: str, vault: StudyVault) -> Iterator[tuple[StudyService, InterviewStore]]:
    with open_study(db_url, vault=vault) as study, app.open_interviews(db_url) as store:
        yield study, store


@pytest.fixture
def endpoint() -> Iterator[FakeEndpoint]:
    with fake_endpoint() as found:
        yield found


def _turn(
    study: StudyService,
    vault: StudyVault,
    store: InterviewStore,
    interview_id: int,
    text: str,
    *,
    minutes: int,
    chat: ChatClient | None = None,
) -> tuple[list[app.TurnEvent], app.TurnOutcome]:
    events = list(
        app.interview_turn(
            study, vault, store, interview_id, text, now=T0 + timedelta(minutes=minutes), chat=chat
        )
    )
    done = events[-1]
    assert isinstance(done, app.TurnDone)
    return events, done.outcome


def test_a_built_in_interview_is_stored_turn_by_turn_and_reviews_each_item(
    opened: tuple[StudyService, InterviewStore], vault: StudyVault
) -> None:
    study, store = opened
    view = app.start_interview(study, vault, store, CHAIN, now=T0, endpoint=None)
    assert (view.conductor, view.endpoint, view.total) == ("rubric", "", 2)
    assert view.turns[0].intent == "ask" and view.turns[0].item_id == "cloud-2000"
    _, first = _turn(study, vault, store, view.id, FIRST_ANSWER, minutes=2)
    assert (first.intent.value, first.item_id, first.source) == ("advance", "cloud-2005", "rubric")
    _, second = _turn(study, vault, store, view.id, WRONG_MATH, minutes=4)
    assert second.intent.value == "correct"
    assert second.assessment is not None
    assert [m.verdict.value for m in second.assessment.math] == ["right", "wrong"]
    _, last = _turn(study, vault, store, view.id, "/end", minutes=5)
    assert last.closed and last.ratings == (("cloud-2005", "hard"),)
    stored = app.interview_view(study, store, view.id)
    assert [t.role for t in stored.turns] == ["interviewer"] + ["learner", "interviewer"] * 3
    assert stored.turns[4].assessment is not None and stored.closed
    reviews = list(study.store.iter_reviews(study.scope))
    assert [(r.item_id, r.graded_by, r.rating) for r in reviews] == [
        ("cloud-2000", "interview", 3),
        ("cloud-2005", "interview", 2),
    ]
    assert reviews[0].duration_ms == 2 * 60 * 1000 and reviews[0].answer == FIRST_ANSWER
    sessions = study.sessions(kind="interview")
    assert sessions[0].ended_at == T0 + timedelta(minutes=5)
    results = interview_results(study, vault, store, view.id)
    assert [x["rating"] for x in results.items] == ["good", "hard"]
    assert results.items[1]["math"][1]["computed"] == "1.75"
    with pytest.raises(UsageError, match="This interview is over"):
        _turn(study, vault, store, view.id, "more", minutes=6)


def test_the_export_holds_every_interview_with_its_turns_and_no_api_key(
    opened: tuple[StudyService, InterviewStore], vault: StudyVault, endpoint: FakeEndpoint
) -> None:
    study, store = opened
    config = EndpointConfig(endpoint.base_url, "tiny", "sk-SECRET")
    view = app.start_interview(study, vault, store, CHAIN, now=T0, endpoint=config)
    exported = export_interviews(study, store)
    assert [e["model"] for e in exported] == ["tiny"]
    assert exported[0]["turns"][0]["text"].startswith("What do reduce-scatter")
    assert exported[0]["pick"] == {"kind": "chain", "name": "ring-all-reduce-cost"}
    assert "sk-SECRET" not in json.dumps(exported) and view.endpoint == endpoint.base_url


def test_a_model_streams_its_reply_is_told_the_verdicts_and_its_block_decides(
    opened: tuple[StudyService, InterviewStore], vault: StudyVault, endpoint: FakeEndpoint
) -> None:
    study, store = opened
    config = EndpointConfig(endpoint.base_url, "tiny", "sk-test")
    view = app.start_interview(study, vault, store, CHAIN, now=T0, endpoint=config)
    prose = "Good. Now the bytes on the wire."
    block = '{"intent": "advance", "scores": [3, 3, 3], "concept": "collectives", "advance": true}'
    endpoint.answers.append(streamed(prose + "\n" + block, size=5))
    with ChatClient(config) as chat:
        events, outcome = _turn(study, vault, store, view.id, "rs then ag", minutes=1, chat=chat)
    pieces = [e.text for e in events if isinstance(e, app.ReplyText)]
    assert len(pieces) > 3
    assert "".join(pieces).startswith(prose)
    assert "intent" not in "".join(pieces)
    # The rubric would have hinted at so thin an answer: the model's block chose.
    assert (outcome.source, outcome.intent.value, outcome.item_id) == (
        "model",
        "advance",
        "cloud-2005",
    )
    assert outcome.assessment is not None and outcome.assessment.scores == (3, 3, 3)
    assert "Next question (L2):" in outcome.text
    assert endpoint.headers[0]["Authorization"] == "Bearer sk-test"
    assert endpoint.requests[0]["stream"] is True and endpoint.requests[0]["model"] == "tiny"
    endpoint.answers.append(streamed("Check the factor.\n{not json"))
    with ChatClient(config) as chat:
        _, second = _turn(study, vault, store, view.id, WRONG_MATH, minutes=3, chat=chat)
    assert "- line 1: 2 * (8 - 1) / 8 = 1.5: wrong (the napkin engine computes 1.75)" in (
        endpoint.prompt()
    )
    assert "- line 1: 1e9 * 4 B = 4 GB: right" in endpoint.prompt()
    # A malformed block: the turn is kept with the model's words, the rubric decides.
    assert (second.source, second.intent.value) == ("rubric-fallback", "correct")
    assert second.text == "Check the factor."
    turns = app.interview_view(study, store, view.id).turns
    assert [t.source for t in turns[-2:]] == ["learner", "rubric-fallback"]


def test_a_dead_endpoint_gives_one_notice_and_the_built_in_interviewer_answers(
    opened: tuple[StudyService, InterviewStore], vault: StudyVault
) -> None:
    study, store = opened
    config = EndpointConfig(closed_port_url(), "tiny")
    view = app.start_interview(study, vault, store, CHAIN, now=T0, endpoint=config)
    with ChatClient(config, connect_timeout_s=2) as chat:
        events, outcome = _turn(study, vault, store, view.id, FIRST_ANSWER, minutes=1, chat=chat)
    notices = [e.message for e in events if isinstance(e, app.EndpointNotice)]
    assert notices == [
        f"The model endpoint {config.base_url} is unavailable: nothing accepts connections "
        "there. The built-in interviewer goes on."
    ]
    assert (outcome.source, outcome.intent.value) == ("rubric", "advance")
    assert len(app.interview_view(study, store, view.id).turns) == 3


def test_an_overloaded_endpoint_is_tried_once_more(
    opened: tuple[StudyService, InterviewStore], vault: StudyVault, endpoint: FakeEndpoint
) -> None:
    study, store = opened
    config = EndpointConfig(endpoint.base_url, "tiny")
    view = app.start_interview(study, vault, store, CHAIN, now=T0, endpoint=config)
    endpoint.answers += [Answer(status=503), streamed('Fine.\n{"intent": "probe"}')]
    with ChatClient(config) as chat:
        _, outcome = _turn(study, vault, store, view.id, FIRST_ANSWER, minutes=1, chat=chat)
    assert len(endpoint.requests) == 2
    assert outcome.text == "Fine." and outcome.intent.value == "probe"


def test_a_refusal_is_not_retried_and_names_the_status(endpoint: FakeEndpoint) -> None:
    from sysdrill.errors import ModelUnavailable
    from sysdrill.study.interview_prompt import ChatMessage

    endpoint.answers.append(Answer(status=401))
    with ChatClient(EndpointConfig(endpoint.base_url, "tiny")) as chat:
        with pytest.raises(ModelUnavailable, match=r"refused the request \(HTTP 401"):
            list(chat.stream_reply([ChatMessage("user", "hi")]))
    assert len(endpoint.requests) == 1


def test_a_server_that_does_not_stream_is_read_whole(endpoint: FakeEndpoint) -> None:
    from sysdrill.study.interview_prompt import ChatMessage

    whole = {"choices": [{"message": {"role": "assistant", "content": "All at once."}}]}
    endpoint.answers.append(Answer(raw=json.dumps(whole).encode(), content_type="application/json"))
    with ChatClient(EndpointConfig(endpoint.base_url, "tiny")) as chat:
        assert list(chat.stream_reply([ChatMessage("user", "hi")])) == ["All at once."]


def test_another_learner_cannot_reach_an_interview(
    db_url: str, vault: StudyVault, opened: tuple[StudyService, InterviewStore]
) -> None:
    study, store = opened
    view = app.start_interview(study, vault, store, CHAIN, now=T0, endpoint=None)
    with open_study(db_url, vault=vault, user="other") as theirs:
        with pytest.raises(SessionNotFound):
            app.interview_view(theirs, store, view.id)
        with pytest.raises(SessionNotFound):
            list(app.interview_turn(theirs, vault, store, view.id, "hi", now=T0))
        assert app.list_interviews(theirs, store) == []
        assert store.turns_of(theirs.scope, view.id) == []


def test_a_turn_made_twice_on_one_revision_is_refused(
    opened: tuple[StudyService, InterviewStore], vault: StudyVault
) -> None:
    study, store = opened
    view = app.start_interview(study, vault, store, CHAIN, now=T0, endpoint=None)
    store.save_turns(
        study.scope, view.id, revision=0, state={"x": 1}, turns=[], now=T0, ended=False
    )
    with pytest.raises(StorageConflict, match="reload it"):
        store.save_turns(
            study.scope, view.id, revision=0, state={"x": 2}, turns=[], now=T0, ended=False
        )


def test_an_unknown_chain_or_an_empty_answer_is_refused(
    opened: tuple[StudyService, InterviewStore], vault: StudyVault
) -> None:
    study, store = opened
    with pytest.raises(ChainNotFound, match="No chain 'nope'"):
        app.start_interview(
            study, vault, store, InterviewPick(PickKind.CHAIN, "nope"), now=T0, endpoint=None
        )
    view = app.start_interview(study, vault, store, CHAIN, now=T0, endpoint=None)
    with pytest.raises(UsageError, match="Type an answer"):
        list(app.interview_turn(study, vault, store, view.id, "   ", now=T0))


def test_a_topic_or_a_plan_picks_one_of_its_chains_by_seed(vault: StudyVault) -> None:
    from sysdrill.app.interview_ladder import pick_ladder

    topic = pick_ladder(vault, InterviewPick(PickKind.TOPIC, "collectives", items=3), seed=1)
    assert topic.title.startswith("Topic collectives: ") and len(topic.items) == 3
    levels = [item.level for item in topic.items]
    assert levels == sorted(levels, key=lambda level: str(level))
    plan = pick_ladder(vault, InterviewPick(PickKind.PLAN, "refresher-1w", items=2), seed=0)
    assert plan.title.startswith("Plan One-week refresher") and len(plan.items) == 2
