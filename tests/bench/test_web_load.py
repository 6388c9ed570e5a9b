"""The load bench's verdict on lost reviews (bench/web_load.py): its matching must be exact."""

from __future__ import annotations

import importlib.util
import sys
from datetime import UTC, datetime
from pathlib import Path
from types import ModuleType

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench"


@pytest.fixture(scope="module")
def web_load() -> ModuleType:
    sys.path.insert(0, str(BENCH))  # the bench scripts import each other by name
    try:
        spec = importlib.util.spec_from_file_location("web_load", BENCH / "web_load.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules["web_load"] = module  # its dataclasses look their module up by name
        spec.loader.exec_module(module)
        return module
    finally:
        sys.path.remove(str(BENCH))


def _at(seconds: float) -> datetime:
    return datetime.fromtimestamp(seconds, UTC)


def test_every_acknowledged_review_matched_to_its_own_stored_review(web_load: ModuleType) -> None:
    acknowledged = [("q1", 100.0, 100.2), ("q1", 101.0, 101.1), ("q2", 100.0, 100.5)]
    stored = [("q1", _at(100.1)), ("q1", _at(101.05)), ("q2", _at(100.3)), ("q3", _at(99.0))]
    assert web_load.unmatched(acknowledged, stored) == []


def test_a_stored_review_answers_for_one_acknowledgement_only(web_load: ModuleType) -> None:
    acknowledged = [("q1", 100.0, 100.2), ("q1", 100.1, 100.3)]
    stored = [("q1", _at(100.15))]
    assert web_load.unmatched(acknowledged, stored) == [("q1", 100.1, 100.3)]


def test_a_review_of_another_item_or_far_from_the_request_is_no_match(
    web_load: ModuleType,
) -> None:
    acknowledged = [("q1", 100.0, 100.2)]
    assert web_load.unmatched(acknowledged, [("q2", _at(100.1))]) == acknowledged
    assert web_load.unmatched(acknowledged, [("q1", _at(130.0))]) == acknowledged


def test_the_spread_across_learners_counts_only_moves_after_everyone_arrived(
    web_load: ModuleType, capsys: pytest.CaptureFixture[str]
) -> None:
    tally = web_load.Tally(steady_from=10.0)
    # One learner waits 80 ms a move in the first half second after everyone arrived,
    # another 60 ms a second later; before the others arrived both were quicker.
    tally.moves_by_learner = {
        1: [(5.0, 0.010)] * 30 + [(10.0 + i * 0.01, 0.080) for i in range(30)],
        2: [(5.0, 0.010)] * 30 + [(11.0 + i * 0.01, 0.060) for i in range(30)],
    }
    web_load._report_spread(tally)
    out = capsys.readouterr().out
    assert "mean 60-80 ms across 2 learners" in out
    assert "p99/p50 within a learner 1.00" in out
    assert "p10 60 ms, p90 80 ms" in out


def test_session_table_churn_is_reported_on_postgresql_only(
    web_load: ModuleType, migrated_db_url: str
) -> None:
    line = web_load.session_table_churn(migrated_db_url)
    if migrated_db_url.startswith("sqlite"):
        assert line is None
    else:
        assert line.startswith("  active_sessions: 0 updates, 0 heap-only (HOT), 0 dead rows")


def test_sessions_left_are_checked_to_read_back_whole(
    web_load: ModuleType, migrated_db_url: str
) -> None:
    from datetime import UTC, datetime

    import sqlalchemy as sa

    from sysdrill.storage import schema

    at = datetime(2026, 12, 2, tzinfo=UTC)
    engine = sa.create_engine(migrated_db_url)
    with engine.begin() as conn:
        user = conn.execute(
            schema.users.insert().values(name="lee", created_at=at).returning(schema.users.c.id)
        ).scalar_one()
        for session_id, moves in (
            (1, ['{"move":"skip"}', '{"move":"rate"}']),
            (2, ['{"move":"sk']),
        ):
            conn.execute(
                schema.sessions.insert().values(
                    id=session_id, user_id=user, vault_id="v", kind="practice", started_at=at
                )
            )
            conn.execute(
                schema.active_sessions.insert().values(
                    session_id=session_id,
                    user_id=user,
                    vault_id="v",
                    kind="practice",
                    options_json="{}",
                    item_ids_json="[]",
                    started_at=at,
                    updated_at=at,
                    position=0,
                    revision=1,
                )
            )
            for seq, move in enumerate(moves):
                conn.execute(
                    schema.session_moves.insert().values(
                        session_id=session_id, seq=seq, move_json=move
                    )
                )
    engine.dispose()
    line = web_load.sessions_readable(migrated_db_url)
    assert line == "  sessions in progress 2 (2 moves); moves unreadable in 1"


def test_a_paced_learner_on_schedule_waits_for_each_review_to_fall_due(
    web_load: ModuleType,
) -> None:
    pace = web_load.Pace(interval_s=0.2, due=10.0)
    assert pace.take(9.95) == (10.0, pytest.approx(0.05))
    assert pace.take(10.05) == (10.2, pytest.approx(0.15))
    assert pace.due == pytest.approx(10.4)


def test_a_paced_learner_behind_schedule_answers_at_once_and_is_charged_the_wait(
    web_load: ModuleType,
) -> None:
    import asyncio

    pace = web_load.Pace(interval_s=0.2, due=10.0)
    # Held up by slow answers: the review due at 10.0 is only sent at 10.5.
    due, wait_s = pace.take(10.5)
    assert (due, wait_s) == (10.0, 0.0)

    class Answered:
        status = 200
        text = "{}"

        def json(self) -> dict[str, str]:
            return {}

    class Client:
        async def request(self, method: str, url: str, body: object) -> Answered:
            return Answered()

    tally = web_load.Tally()
    started = web_load.time.perf_counter()
    asyncio.run(web_load._call(Client(), tally, "answer", "POST", "/x", due=started - 0.5))
    (took_s,) = tally.latencies_s["answer"]
    # Its latency counts from when it fell due, half a second before it was sent.
    assert 0.5 <= took_s < 1.5
    asyncio.run(web_load._call(Client(), tally, "rate", "POST", "/x"))
    assert tally.latencies_s["rate"][0] < 0.5


def test_the_kept_pace_counts_reviews_from_when_every_learner_had_arrived(
    web_load: ModuleType,
) -> None:
    tally = web_load.Tally(steady_wall=100.0, ended_wall=110.0)
    # 5 reviews during the ramp, then 3,000 over the 10 steady seconds.
    tally.acknowledged = [("q", 95.0, 95.1)] * 5 + [("q", 101.0, 101.1)] * 3000
    assert web_load.steady_rate(tally) == pytest.approx(300.0)


def test_the_runs_asked_for_come_saturated_first(web_load: ModuleType) -> None:
    assert web_load.paces("both", 300.0) == [None, 300.0]
    assert web_load.paces("saturated", 300.0) == [None]
    assert web_load.paces("paced", 250.0) == [250.0]


def _report_of(web_load: ModuleType, tally: object, capsys: pytest.CaptureFixture[str]) -> str:
    web_load.report("PostgreSQL", tally, 20.0, [], {"server": 1.0})
    return capsys.readouterr().out


def test_a_paced_run_judges_p99_at_its_pace_and_a_saturated_run_judges_throughput(
    web_load: ModuleType, capsys: pytest.CaptureFixture[str]
) -> None:
    paced = web_load.Tally(pace_reviews_per_s=300.0, learners=50, steady_wall=0.0)
    paced.ended_wall = 20.0
    paced.acknowledged = [("q", 1.0, 1.0 + i / 300) for i in range(6000)]
    paced.latencies_s = {"answer": [0.010] * 99 + [0.090], "rate": [0.012] * 100}
    out = _report_of(web_load, paced, capsys)
    assert "paced at 300 reviews/s (each learner's reviews due every 167 ms" in out
    assert "300.0 once every learner had arrived (kept pace)" in out
    assert "(meets p99 <= 100 ms at 300 reviews/s)" in out

    # The same latencies from a run that fell behind its pace miss the target.
    paced.acknowledged = paced.acknowledged[:4000]
    out = _report_of(web_load, paced, capsys)
    assert "(fell behind pace)" in out
    assert "(misses p99 <= 100 ms at 300 reviews/s)" in out

    saturated = web_load.Tally()
    saturated.acknowledged = [("q", 1.0, 1.1)] * 6200
    saturated.latencies_s = {"answer": [0.080] * 100}
    out = _report_of(web_load, saturated, capsys)
    assert "saturated (capacity" in out
    assert "throughput  310.0 reviews/s (meets >= 300)" in out
    assert "p99 <= 100" not in out


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["--pace", "0"], "--pace 0: give the reviews a second to owe, above 0"),
        (
            ["--postgres-url", "postgresql+psycopg://u@127.0.0.1:1/db"],
            "--postgres-url holds one run's data: add --runs saturated or --runs paced",
        ),
    ],
)
def test_the_script_refuses_runs_it_cannot_make(arguments: list[str], message: str) -> None:
    import subprocess

    done = subprocess.run(
        [sys.executable, str(BENCH / "web_load.py"), *arguments],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2
    assert message in done.stderr
