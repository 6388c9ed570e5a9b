"""Load benchmark: many learners studying at once against `sysdrill serve` with several workers.

Starts the real server (``python -m sysdrill serve --workers N``) on 127.0.0.1 and a
free port, first on PostgreSQL with 2 workers (a throwaway cluster started here, as
``scripts/start-test-postgres`` does, on its own port; or ``--postgres-url``), then,
for comparison, on a SQLite file with 1 worker. For each it drives ``--users``
simulated learners for ``--seconds`` (asyncio, one kept-alive connection each,
``bench/lean_http.py``): each starts a practice session of 20 items, then
answers and rates in a loop through the JSON API, and starts another session
when one ends. It prints throughput (reviews acknowledged
per second), p50/p99 latency of every request, errors, and how answers and rates
spread across learners (even means: the workers share them evenly) and over time;
then reads the reviews
stored in the database and matches every acknowledged review to a stored one
(same item, written between the request and its answer): none may be missing.

Each database gets two runs, each on a fresh database (``--runs`` picks one):

- **saturated**: every learner sends its next request the moment the last one is
  answered. This measures capacity, the reviews a second the server can take
  (the throughput target). Its latency says little of the server: with no pause,
  50 requests are always waiting, so the median is 50 over the requests a
  second (Little's law) whatever the server does.
- **paced**: the learners together owe ``--pace`` reviews a second (the target,
  300, by default): each learner's reviews fall due one every ``users / pace``
  seconds, and a learner waits for the next one's time before answering. The
  latency of an answer counts from when it fell due, not from when it was sent,
  so a learner held up by slow answers is charged the wait (no "coordinated
  omission": a server that falls behind shows it in p99). This is the latency
  target: p99 of every request at the target rate.

The server's environment is this script's: ``SYSDRILL_PIN_CPUS=1 python
bench/web_load.py ...`` keeps each worker to a CPU of its own (``serve --pin-cpus``,
off by default), to compare.

``--kill-worker`` kills one worker process (SIGKILL) half-way through the run;
requests cut by the kill are counted apart (they were never acknowledged), and
the match shows that no acknowledged review was lost.

The server runs in multi-user mode: the simulated learners' accounts are
created before the clock starts (sign-up is not what is measured), and each
learner logs in when it arrives; they arrive one by one over the first
``--ramp`` seconds. ``--single-user`` serves without accounts instead: the
simulated users then share the one local learner, so the run gives each its
own track and topic (:func:`vault_shares`) and raises that learner's daily
limits. The vault is big enough that practice never runs dry (``--items``, a
synthetic vault from ``bench/synthetic_vault.py``). The report gives latency
per kind of request and the CPU time the server, PostgreSQL and the load
generator used, since all three share the machine's cores. Targets on a
2-core machine: >= 300 reviews/s, p99 <= 100 ms, zero errors, zero lost.

Run: .venv/bin/python bench/web_load.py [--seconds 60] [--users 50] [--kill-worker]
     [--only postgresql|sqlite] [--postgres-url URL] [--items N] [--vault DIR]
     [--single-user] [--ramp SECONDS] [--threads N] [--runs both|saturated|paced]
     [--pace REVIEWS_PER_S]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Coroutine, Iterator
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))

from lean_http import Broken, LeanClient  # noqa: E402
from synthetic_vault import generate_vault  # noqa: E402

T = TypeVar("T")

TARGET_REVIEWS_PER_S = 300.0
TARGET_P99_MS = 100.0
KEPT_PACE = 0.97
"""A paced run kept its pace when, once every learner had arrived, it acknowledged
at least this share of the reviews that fell due."""
SESSION_ITEMS = 20
"""Items per practice session (a learner's usual sitting)."""
STARTUP_LIMIT_S = 180.0
ANSWERS = {"multiple-choice": "a", "numeric": "1 s"}
"""What a simulated learner types per answer mode (free text otherwise)."""


def run_loop(main: Coroutine[Any, Any, T]) -> T:
    """Run ``main`` on uvloop where installed (as the server does): the load generator
    shares the cores with the server it measures, so its own CPU per request counts."""
    try:
        import uvloop
    except ImportError:  # pragma: no cover - uvloop is a dependency off Windows
        return asyncio.run(main)
    with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
        return runner.run(main)


# -- the database ---------------------------------------------------------------------------


@contextmanager
def throwaway_postgres(port: int) -> Iterator[str]:
    """A PostgreSQL cluster in a temporary folder on 127.0.0.1:``port``; yields its URL."""
    bins = sorted(Path("/usr/lib/postgresql").glob("*/bin"))
    if not bins:
        raise SystemExit("Error: no PostgreSQL server found; apt-get install postgresql")
    bindir = bins[-1]
    while _port_taken(port):
        port += 1
    data = Path(tempfile.mkdtemp(prefix="sysdrill-load-pg."))
    as_pg: list[str] = []
    if os.getuid() == 0:
        shutil.chown(data, "postgres")
        as_pg = ["runuser", "-u", "postgres", "--"]
    run = subprocess.run
    run([*as_pg, str(bindir / "initdb"), "-D", str(data), "-A", "trust", "-U", "postgres"]
        + ["-E", "UTF8"], check=True, stdout=subprocess.DEVNULL)  # fmt: skip
    options = f"-p {port} -k /tmp -c listen_addresses=127.0.0.1 -c max_connections=200"
    pg_ctl = [*as_pg, str(bindir / "pg_ctl"), "-D", str(data)]
    run([*pg_ctl, "-l", str(data / "server.log"), "-w", "-o", options, "start"], check=True,
        stdout=subprocess.DEVNULL)  # fmt: skip
    try:
        createdb = [str(bindir / "createdb"), "-h", "127.0.0.1", "-p", str(port), "-U", "postgres"]
        run([*createdb, "sysdrill_load"], check=True)
        yield f"postgresql+psycopg://postgres@127.0.0.1:{port}/sysdrill_load"
    finally:
        run([*pg_ctl, "-m", "fast", "-w", "stop"], check=False, stdout=subprocess.DEVNULL)
        shutil.rmtree(data, ignore_errors=True)


def _port_taken(port: int) -> bool:
    with socket.socket() as probe:
        return probe.connect_ex(("127.0.0.1", port)) == 0


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def sa_port(db_url: str) -> int | None:
    """The port of a PostgreSQL URL (5432 when it names none); None for SQLite."""
    import sqlalchemy as sa

    url = sa.make_url(db_url)
    if url.get_backend_name() != "postgresql":
        return None
    return url.port or 5432


def stored_reviews(db_url: str) -> list[tuple[str, datetime]]:
    """Every review in the study database: (item id, reviewed at, UTC)."""
    import sqlalchemy as sa

    from sysdrill.storage import schema

    engine = sa.create_engine(db_url)
    try:
        with engine.connect() as conn:
            rows = conn.execute(sa.select(schema.reviews.c.item_id, schema.reviews.c.reviewed_at))
            return [(item, at if at.tzinfo else at.replace(tzinfo=UTC)) for item, at in rows.all()]
    finally:
        engine.dispose()


def session_table_churn(db_url: str) -> str | None:
    """PostgreSQL: how the sessions-in-progress table took the run's moves (one line)."""
    import sqlalchemy as sa

    if not db_url.startswith("postgresql"):
        return None
    engine = sa.create_engine(db_url)
    try:
        with engine.connect() as conn:
            # Statistics reach the view when a backend flushes them; make this one's current.
            conn.execute(sa.text("SELECT pg_stat_force_next_flush()"))
            row = conn.execute(
                sa.text(
                    "SELECT n_tup_upd, n_tup_hot_upd, n_dead_tup, pg_table_size(relid) "
                    "FROM pg_stat_user_tables WHERE relid = 'active_sessions'::regclass"
                )
            ).one()
            # Each move a row of session_moves since migration 0013 (a JSON array before).
            rows = sa.inspect(conn).has_table("session_moves")
            moves = conn.execute(
                sa.text(
                    "SELECT avg(n), max(n) FROM (SELECT sum(length(move_json)) AS n"
                    " FROM session_moves GROUP BY session_id) AS per_session"
                    if rows
                    else "SELECT avg(length(moves_json)), max(length(moves_json))"
                    " FROM active_sessions"
                )
            ).one()
    finally:
        engine.dispose()
    updates, hot, dead, size = row
    mean_chars, most_chars = (0, 0) if moves[1] is None else moves
    return (
        f"  active_sessions: {updates} updates, {hot} heap-only (HOT), {dead} dead rows, "
        f"{size / 1e6:.1f} MB with its TOAST; moves per row {float(mean_chars) / 1e3:.1f} KB "
        f"mean, {int(most_chars) / 1e3:.1f} KB at most"
    )


def sessions_readable(db_url: str) -> str:
    """How many sessions in progress the run left, and how many read back whole (one line).

    Every stored session's moves must parse as a list of moves: each a row of
    ``session_moves`` since migration 0013 (the code compared may be older: then one
    JSON array per session, which a save appended to).
    """
    import orjson
    import sqlalchemy as sa

    engine = sa.create_engine(db_url)
    try:
        with engine.connect() as conn:
            if sa.inspect(conn).has_table("session_moves"):
                found = conn.execute(
                    sa.text(
                        "SELECT a.session_id, m.move_json FROM active_sessions a LEFT JOIN"
                        " session_moves m ON m.session_id = a.session_id"
                        " ORDER BY a.session_id, m.seq"
                    )
                ).all()
                by_session: dict[int, list[str]] = {}
                for session_id, text in found:
                    by_session.setdefault(session_id, [])
                    if text is not None:
                        by_session[session_id].append(text)
                texts = ["[" + ",".join(listed) + "]" for listed in by_session.values()]
            else:
                texts = list(
                    conn.execute(sa.text("SELECT moves_json FROM active_sessions")).scalars()
                )
    finally:
        engine.dispose()
    moves = broken = 0
    for text in texts:
        try:
            parsed = orjson.loads(text)
        except orjson.JSONDecodeError:
            parsed = None
        if isinstance(parsed, list) and all(isinstance(move, dict) for move in parsed):
            moves += len(parsed)
        else:
            broken += 1
    return f"  sessions in progress {len(texts)} ({moves} moves); moves unreadable in {broken}"


# -- the server -----------------------------------------------------------------------------


@contextmanager
def running_server(
    db_url: str, *, workers: int, threads: int, vault: Path, scratch: Path, multi_user: bool
) -> Iterator[tuple[str, subprocess.Popen[str]]]:
    """``sysdrill serve`` on a free port until the block ends; yields its URL and process."""
    scratch.mkdir(parents=True, exist_ok=True)
    port = _free_port()
    command = [sys.executable, "-m", "sysdrill", "serve", "--port", str(port), "--db", db_url]
    command += ["--workers", str(workers), "--vault", str(vault), "--threads", str(threads)]
    if multi_user:
        command.append("--multi-user")
    environ = {
        **os.environ,
        "SYSDRILL_DATA_DIR": str(scratch / "data"),
        "SYSDRILL_CACHE_DIR": str(scratch / "cache"),
    }
    log = (scratch / f"server-{port}.log").open("w")
    server = subprocess.Popen(command, env=environ, stdout=log, stderr=subprocess.STDOUT, text=True)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + STARTUP_LIMIT_S
        while True:
            if server.poll() is not None:
                raise SystemExit(f"the server stopped: see {log.name}")
            try:
                # A public route: multi-user servers answer 401 elsewhere until login.
                if httpx.get(f"{url}/api/csrf", timeout=60).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if time.monotonic() > deadline:
                raise SystemExit("the server did not answer in time")
            time.sleep(0.2)
        yield url, server
    finally:
        server.send_signal(signal.SIGINT)
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
        log.close()


def worker_pids(server: subprocess.Popen[str]) -> list[int]:
    """The server's worker processes (Linux; multiprocessing's resource tracker excluded)."""
    children = Path(f"/proc/{server.pid}/task/{server.pid}/children")
    found = []
    for pid in children.read_text().split():
        if b"resource_tracker" not in Path(f"/proc/{pid}/cmdline").read_bytes():
            found.append(int(pid))
    return found


# -- the simulated learners -------------------------------------------------------------------


def _password(n: int) -> str:
    return f"load-test-password-{n}"


async def sign_up(client: LeanClient, n: int) -> None:
    """Create the account of simulated learner ``n`` (``learner-n``) and lift its limits."""
    answer = await client.request(
        "POST", "/api/signup", {"name": f"learner-{n}", "password": _password(n)}
    )
    if answer.status >= 400:
        raise SystemExit(f"signing up learner-{n} failed: {answer.status} {answer.text}")
    await lift_daily_limits(client)


async def log_in(client: LeanClient, n: int) -> None:
    """Log simulated learner ``n`` in (its session cookie stays in ``client``)."""
    answer = await client.request(
        "POST", "/api/login", {"name": f"learner-{n}", "password": _password(n)}
    )
    if answer.status >= 400:
        raise Cut(f"login {answer.status}: {answer.text[:200]}", refused=True)


def vault_shares(base_url: str, count: int) -> list[dict[str, str]]:
    """Practice filters for ``count`` simulated learners sharing the one local learner.

    Two sessions of one learner reviewing the same card at once is a race that
    a real learner, with one session at a time, never runs. So each simulated
    learner practises its own track and topic, or its own track, topic and
    level when the vault has fewer pairs than learners (the largest groups of
    the served vault, from ``/api/explore``).
    """
    tracks = httpx.get(f"{base_url}/api/explore", timeout=120).json()["tracks"]
    pairs: dict[tuple[str, ...], int] = {}
    triples: dict[tuple[str, ...], int] = {}
    for track in tracks:
        for area in track["children"]:
            for topic in area["children"]:
                pair = (track["name"], topic["name"])
                pairs[pair] = pairs.get(pair, 0) + int(topic["items"])
                for level in topic["children"]:
                    triple = (*pair, level["name"])
                    triples[triple] = triples.get(triple, 0) + int(level["items"])
    groups = pairs if len(pairs) >= count else triples
    largest = sorted(groups, key=lambda group: (-groups[group], group))
    names = ("track", "topic", "level")
    return [dict(zip(names, largest[n % len(largest)], strict=False)) for n in range(count)]


async def lift_daily_limits(client: LeanClient) -> None:
    """Let practice introduce new items all run long (the defaults stop at 20 a day)."""
    answer = await client.request(
        "PUT", "/api/settings", {"new_per_day": "100000", "reviews_per_day": "100000"}
    )
    if answer.status != 200:
        raise SystemExit(f"lifting the daily limits failed: {answer.status} {answer.text}")


@dataclass
class Tally:
    """What the simulated learners saw."""

    latencies_s: dict[str, list[float]] = field(default_factory=dict)
    """Per kind of request (``login``, ``start``, ``answer``, ``rate``...)."""
    acknowledged: list[tuple[str, float, float]] = field(default_factory=list)
    """(item id, sent at, answered at) of every move the server said it recorded."""
    errors: dict[str, int] = field(default_factory=dict)
    samples: dict[str, str] = field(default_factory=dict)
    """The first answer of each kind of error, to show."""
    cut_by_kill: int = 0
    empty_sessions: int = 0
    moves_by_learner: dict[int, list[tuple[float, float]]] = field(default_factory=dict)
    """(sent at, latency) of each learner's answers and rates (by client): an even
    spread across learners means the workers share them evenly."""
    steady_from: float = 0.0
    """When every learner has arrived (``time.perf_counter``): the spread is told after it."""
    steady_wall: float = 0.0
    """The same moment as ``steady_from``, on ``time.time`` (as the acknowledgements are)."""
    ended_wall: float = 0.0
    """When the last learner stopped (``time.time``)."""
    pace_reviews_per_s: float | None = None
    """The reviews a second the learners owed together (a paced run), or None (saturated)."""
    learners: int = 0

    def error(self, what: str) -> None:
        self.errors[what] = self.errors.get(what, 0) + 1

    def latency(self, kind: str, seconds: float) -> None:
        self.latencies_s.setdefault(kind, []).append(seconds)


@dataclass
class Pace:
    """One learner's schedule in a paced run: a review due every ``interval_s`` seconds."""

    interval_s: float
    due: float
    """When the next review falls due (``time.perf_counter``)."""

    def take(self, now: float) -> tuple[float, float]:
        """(when this review fell due, seconds to wait before answering it); moves on one.

        A learner behind its schedule answers at once, and its answer's latency is
        counted from when the review fell due (the caller's part).
        """
        due = self.due
        self.due += self.interval_s
        return due, max(0.0, due - now)


class Cut(Exception):
    """A request that failed: its connection broke, or the server refused it."""

    def __init__(self, message: str, *, refused: bool) -> None:
        super().__init__(message)
        self.refused = refused


async def _call(
    client: LeanClient,
    tally: Tally,
    kind: str,
    method: str,
    url: str,
    body: Any = None,
    *,
    due: float | None = None,
) -> tuple[dict[str, Any], float, float]:
    """Send one request; its latency counts from ``due`` (perf_counter) when given and earlier."""
    sent = time.time()
    start = time.perf_counter()
    try:
        answer = await client.request(method, url, body)
    except Broken as exc:
        raise Cut(str(exc), refused=False) from exc
    took_s = time.perf_counter() - (start if due is None else min(start, due))
    tally.latency(kind, took_s)
    if kind in ("answer", "rate"):
        tally.moves_by_learner.setdefault(id(client), []).append((start, took_s))
    if answer.status != 200:
        what = f"{method} {kind}: {answer.status}"
        tally.error(what)
        tally.samples.setdefault(what, answer.text[:300])
        raise Cut(answer.text[:200], refused=True)
    found: dict[str, Any] = answer.json()
    return found, sent, time.time()


async def learner(
    address: tuple[str, int],
    n: int,
    tally: Tally,
    stop_at: float,
    *,
    share: dict[str, str],
    multi_user: bool,
    kill: asyncio.Event,
    pace_interval_s: float | None = None,
) -> None:
    """One simulated learner: log in, then answer and rate practice sessions until ``stop_at``.

    With ``pace_interval_s`` its reviews fall due one every that many seconds (:class:`Pace`).
    """
    rng = random.Random(n)
    client = LeanClient(*address)
    try:
        if multi_user:
            start = time.perf_counter()
            try:
                await log_in(client, n)
            except Broken as exc:
                raise SystemExit(f"learner-{n} could not log in: {exc}") from exc
            tally.latency("login", time.perf_counter() - start)
        pace = None
        if pace_interval_s is not None:
            # Learners arrive in step; their reviews fall due out of step.
            first = time.perf_counter() + rng.uniform(0.0, pace_interval_s)
            pace = Pace(pace_interval_s, first)
        state: dict[str, Any] | None = None
        while time.monotonic() < stop_at:
            try:
                if state is None or state["phase"] == "done":
                    body = {"kind": "practice", "limit": SESSION_ITEMS, **share}
                    state, _, _ = await _call(
                        client, tally, "start", "POST", "/api/study/sessions", body
                    )
                    if state["session_id"] is None:
                        tally.empty_sessions += 1
                        tally.samples.setdefault(f"empty {share}", state["empty_message"])
                        state = None
                        await asyncio.sleep(0.1)
                    continue
                state = await _move(client, tally, state, rng, pace)
            except Cut as cut:
                if cut.refused:
                    pass
                elif kill.is_set():
                    tally.cut_by_kill += 1
                else:
                    tally.error("connection")
                    tally.samples.setdefault("connection", str(cut))
                # Where the session stands after a cut request is unknown: ask again.
                state = await _reread(client, tally, state)
    finally:
        await client.close()


async def _reread(
    client: LeanClient, tally: Tally, state: dict[str, Any] | None
) -> dict[str, Any] | None:
    if state is None or state.get("session_id") is None:
        return None
    for _ in range(50):
        try:
            found, _, _ = await _call(client, tally, "reread", "GET", _api(state))
            return found
        except Cut:
            await asyncio.sleep(0.1)
    return None


def _api(state: dict[str, Any]) -> str:
    return f"/api/study/sessions/{state['session_id']}"


async def _move(
    client: LeanClient,
    tally: Tally,
    state: dict[str, Any],
    rng: random.Random,
    pace: Pace | None = None,
) -> dict[str, Any]:
    """Make the move the session waits for; note the review when the server recorded one.

    A paced learner answers when its next review falls due; it rates at once.
    """
    phase = state["phase"]
    item = state["item"] or {}
    due = None
    if phase == "answer" and pace is not None:
        due, wait_s = pace.take(time.perf_counter())
        await asyncio.sleep(wait_s)
    if phase == "answer":
        text = ANSWERS.get(item.get("mode") or "", f"an answer of learner {rng.random():.6f}")
        body: dict[str, Any] = {"text": text}
    elif phase == "rate":
        body = {"rating": rng.choice(("again", "hard", "good", "good", "easy"))}
    elif phase == "rubric":
        body = {"covered": [0]}
    elif phase == "chain":
        after, _, _ = await _call(
            client, tally, "chain", "POST", f"{_api(state)}/chain", {"accept": False}
        )
        return after
    else:
        tally.error(f"unexpected phase {phase}")
        return {**state, "phase": "done"}
    after, sent, answered = await _call(
        client, tally, phase, "POST", f"{_api(state)}/{phase}", body, due=due
    )
    # An item is behind the learner once its review is written (never skipped here).
    if after["done"] > state["done"]:
        tally.acknowledged.append((item["item_id"], sent, answered))
    return after


async def prepare(address: tuple[str, int], *, users: int, multi_user: bool) -> None:
    """Before the clock: create the learners' accounts (or lift the one learner's limits)."""
    if not multi_user:
        client = LeanClient(*address)
        await lift_daily_limits(client)
        await client.close()
        return
    gate = asyncio.Semaphore(4)

    async def one(n: int) -> None:
        async with gate:
            client = LeanClient(*address, timeout_s=120)
            await sign_up(client, n)
            await client.close()

    await asyncio.gather(*(one(n) for n in range(users)))


async def drive(
    base_url: str,
    *,
    users: int,
    seconds: float,
    ramp_s: float,
    multi_user: bool,
    kill_after_s: float | None,
    server: subprocess.Popen[str],
    pace_reviews_per_s: float | None = None,
) -> tuple[Tally, float]:
    """Run ``users`` learners for ``seconds``; returns the tally and the time taken.

    The learners arrive one by one over the first ``ramp_s`` seconds, as a
    class does, rather than all logging in within the same millisecond. With
    ``pace_reviews_per_s`` they owe that many reviews a second together (a paced
    run); without, each sends its next request as soon as the last is answered.
    """
    tally = Tally(pace_reviews_per_s=pace_reviews_per_s, learners=users)
    interval_s = None if pace_reviews_per_s is None else users / pace_reviews_per_s
    kill = asyncio.Event()
    host, port = base_url.removeprefix("http://").rsplit(":", 1)
    address = (host, int(port))
    await prepare(address, users=users, multi_user=multi_user)
    start = time.monotonic()
    stop_at = start + seconds
    # A second after the last learner arrived, its login done.
    tally.steady_from = time.perf_counter() + ramp_s + 1.0
    tally.steady_wall = time.time() + ramp_s + 1.0

    async def killer() -> None:
        assert kill_after_s is not None
        await asyncio.sleep(kill_after_s)
        victim = worker_pids(server)[0]
        kill.set()
        os.kill(victim, signal.SIGKILL)
        print(f"  killed worker {victim} after {kill_after_s:.0f} s")

    async def arrive(n: int, share: dict[str, str]) -> None:
        await asyncio.sleep(ramp_s * n / max(users, 1))
        await learner(
            address,
            n,
            tally,
            stop_at,
            share=share,
            multi_user=multi_user,
            kill=kill,
            pace_interval_s=interval_s,
        )

    shares = [{} for _ in range(users)] if multi_user else vault_shares(base_url, users)
    tasks = [arrive(n, shares[n]) for n in range(users)]
    if kill_after_s is not None:
        tasks.append(killer())
    await asyncio.gather(*tasks)
    tally.ended_wall = time.time()
    return tally, time.monotonic() - start


# -- where the CPU went ---------------------------------------------------------------------


def cpu_by_role(server: subprocess.Popen[str], pg_port: int | None) -> dict[str, float]:
    """CPU seconds used so far by the server's processes, its PostgreSQL's and this load generator.

    Read from /proc (Linux): the three share the machine's cores, so the split
    shows how much of it the load generator takes from the server. PostgreSQL's
    share is its postmaster on ``pg_port`` and every backend of it, those that
    ended included (counted in the postmaster's children's time).
    """
    tick = os.sysconf("SC_CLK_TCK")
    server_pids = {server.pid, *worker_pids(server)}
    found = {"server": 0.0, "load generator": 0.0}
    stats: dict[int, tuple[int, list[str]]] = {}
    postmaster = None
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            command = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        pid = int(entry.name)
        stats[pid] = (int(fields[1]), fields)
        used = (int(fields[11]) + int(fields[12])) / tick
        if pid in server_pids:
            found["server"] += used
        elif pid == os.getpid():
            found["load generator"] += used
        elif (
            pg_port is not None
            and command[0].endswith(b"/postgres")
            and str(pg_port).encode() in command
        ):
            postmaster = pid
    if postmaster is not None:
        own = stats[postmaster][1]
        total = sum(int(own[i]) for i in (11, 12, 13, 14))
        total += sum(
            int(fields[11]) + int(fields[12])
            for parent, fields in stats.values()
            if parent == postmaster
        )
        found["postgresql"] = total / tick
    return found


# -- the report -----------------------------------------------------------------------------


def unmatched(
    acknowledged: list[tuple[str, float, float]], stored: list[tuple[str, datetime]]
) -> list[tuple[str, float, float]]:
    """Acknowledged reviews with no stored review of the same item written in their window."""
    slack_s = 1.0  # the server's clock and ours are one clock; the slack covers rounding
    pool: dict[str, list[float]] = {}
    for item, at in stored:
        pool.setdefault(item, []).append(at.timestamp())
    for times in pool.values():
        times.sort()
    missing: list[tuple[str, float, float]] = []
    for item, sent, answered in sorted(acknowledged, key=lambda a: a[2]):
        times = pool.get(item, [])
        match = next((t for t in times if sent - slack_s <= t <= answered + slack_s), None)
        if match is None:
            missing.append((item, sent, answered))
        else:
            times.remove(match)
    return missing


def _percentile(ordered: list[float], fraction: float) -> float:
    """The ``fraction`` percentile of sorted seconds, in milliseconds (nearest rank)."""
    if not ordered:
        return float("nan")
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))] * 1000


def report(
    name: str,
    tally: Tally,
    elapsed_s: float,
    stored: list[tuple[str, datetime]],
    cpu_s: dict[str, float],
) -> None:
    """Print one run's figures and verdicts."""
    ordered = sorted(s for kind in tally.latencies_s.values() for s in kind)
    p50, p99 = _percentile(ordered, 0.5), _percentile(ordered, 0.99)
    reviews = len(tally.acknowledged)
    rate = reviews / elapsed_s
    missing = unmatched(tally.acknowledged, stored)
    errors = sum(tally.errors.values())
    pace = tally.pace_reviews_per_s
    if pace is None:
        print(f"{name}, saturated (capacity: each learner asks again once answered)")
    else:
        every_ms = tally.learners / pace * 1000
        print(
            f"{name}, paced at {pace:.0f} reviews/s (each learner's reviews due every "
            f"{every_ms:.0f} ms; an answer's latency counts from when it fell due)"
        )
    print(f"  requests {len(ordered)} in {elapsed_s:.1f} s; reviews acknowledged {reviews}")
    if pace is None:
        verdict = "meets" if rate >= TARGET_REVIEWS_PER_S else "misses"
        print(f"  throughput {rate:6.1f} reviews/s ({verdict} >= {TARGET_REVIEWS_PER_S:.0f})")
        print(
            f"  latency of every request p50 {p50:6.1f} ms  p99 {p99:6.1f} ms "
            f"(at saturation the median is learners over requests a second)"
        )
    else:
        steady = steady_rate(tally)
        kept = steady >= KEPT_PACE * pace
        print(
            f"  throughput {rate:6.1f} reviews/s; {steady:.1f} once every learner had arrived "
            f"({'kept' if kept else 'fell behind'} pace)"
        )
        verdict = "meets" if kept and p99 <= TARGET_P99_MS else "misses"
        print(
            f"  latency of every request p50 {p50:6.1f} ms  p99 {p99:6.1f} ms "
            f"({verdict} p99 <= {TARGET_P99_MS:.0f} ms at {pace:.0f} reviews/s)"
        )
    for kind, seconds in sorted(tally.latencies_s.items()):
        each = sorted(seconds)
        print(
            f"    {kind:<7} {len(each):6d} requests  p50 {_percentile(each, 0.5):6.1f} ms  "
            f"p99 {_percentile(each, 0.99):6.1f} ms  max {each[-1] * 1000:6.1f} ms"
        )
    _report_spread(tally)
    print(f"  errors {errors} {dict(sorted(tally.errors.items())) if errors else ''}".rstrip())
    for what, sample in sorted(tally.samples.items()):
        print(f"    {what}: {sample}")
    if tally.cut_by_kill:
        print(f"  requests cut by the killed worker {tally.cut_by_kill} (never acknowledged)")
    if tally.empty_sessions:
        print(f"  practice found nothing to ask {tally.empty_sessions} times")
    print(
        f"  reviews stored {len(stored)}; acknowledged {reviews}; "
        f"acknowledged but not stored (lost) {len(missing)}"
    )
    spent = ", ".join(f"{role} {used:.1f} s" for role, used in cpu_s.items())
    print(f"  CPU during the run ({os.cpu_count()} cores x {elapsed_s:.0f} s): {spent}")
    if ordered:
        per_request = sum(cpu_s.values()) / len(ordered) * 1000
        print(f"  CPU per request, all processes: {per_request:.2f} ms")


def steady_rate(tally: Tally) -> float:
    """Reviews acknowledged a second from when every learner had arrived to the end."""
    span_s = tally.ended_wall - tally.steady_wall
    if span_s <= 0:
        return float("nan")
    late = sum(1 for _, _, answered in tally.acknowledged if answered >= tally.steady_wall)
    return late / span_s


PACE_WINDOW_S = 0.2
"""The windows the pace of a run is told in (s)."""


def _report_spread(tally: Tally) -> None:
    """How answers and rates spread across learners, over time and within a learner.

    Told from when every learner has arrived: before, fewer learners wait less.
    """
    steady = [
        [(at, took_s) for at, took_s in each if at >= tally.steady_from]
        for each in tally.moves_by_learner.values()
    ]
    learners = [sorted(took_s for _, took_s in each) for each in steady if len(each) >= 20]
    if not learners:
        return
    means = sorted(sum(each) / len(each) * 1000 for each in learners)
    spreads = sorted(_percentile(each, 0.99) / _percentile(each, 0.5) for each in learners)
    print(
        f"  per learner (answers and rates): mean {means[0]:.0f}-{means[-1]:.0f} ms across "
        f"{len(means)} learners; p99/p50 within a learner {_median(spreads):.2f} (median)"
    )
    windows: dict[int, list[float]] = {}
    for each in steady:
        for at, took_s in each:
            slot = int((at - tally.steady_from) / PACE_WINDOW_S)
            windows.setdefault(slot, []).append(took_s * 1000)
    medians = sorted(_median(sorted(each)) for each in windows.values() if len(each) >= 10)
    if medians:
        print(
            f"  pace: median latency of {PACE_WINDOW_S * 1000:.0f} ms windows "
            f"p10 {_pick(medians, 0.1):.0f} ms, p90 {_pick(medians, 0.9):.0f} ms"
        )


def _median(ordered: list[float]) -> float:
    return ordered[len(ordered) // 2]


def _pick(ordered: list[float], fraction: float) -> float:
    return ordered[min(len(ordered) - 1, int(len(ordered) * fraction))]


def warm_up(address: tuple[str, int], *, workers: int, multi_user: bool) -> None:
    """Have every worker load the vault (its first request does): not what is measured."""

    async def visit() -> None:
        client = LeanClient(*address, timeout_s=120)
        if multi_user:
            answer = await client.request(
                "POST", "/api/signup", {"name": "warm-up", "password": _password(-1)}
            )
            if answer.status >= 400:
                raise SystemExit(f"signing up warm-up failed: {answer.status} {answer.text}")
        for _ in range(8 * workers):
            answer = await client.request("GET", "/api/dashboard")
            if answer.status != 200:
                raise SystemExit(f"warming up failed: {answer.status} {answer.text[:200]}")
        await client.close()

    run_loop(visit())


def run_one(
    name: str,
    db_url: str,
    *,
    workers: int,
    vault: Path,
    scratch: Path,
    args: argparse.Namespace,
    pace: float | None,
) -> None:
    """Serve, load, report: one database, worker count and pace (None: saturated)."""
    multi_user = not args.single_user
    with running_server(
        db_url,
        workers=workers,
        threads=args.threads,
        vault=vault,
        scratch=scratch,
        multi_user=multi_user,
    ) as (url, server):
        host, port = url.removeprefix("http://").rsplit(":", 1)
        warm_up((host, int(port)), workers=workers, multi_user=multi_user)
        kill_after = args.seconds / 2 if args.kill_worker and workers > 1 else None
        pg_port = sa_port(db_url)
        before = cpu_by_role(server, pg_port)
        tally, elapsed = run_loop(
            drive(
                url,
                users=args.users,
                seconds=args.seconds,
                ramp_s=args.ramp,
                multi_user=multi_user,
                kill_after_s=kill_after,
                server=server,
                pace_reviews_per_s=pace,
            )
        )
        after = cpu_by_role(server, pg_port)
        churn = session_table_churn(db_url)
    cpu_s = {role: max(0.0, after[role] - before.get(role, 0.0)) for role in after}
    report(name, tally, elapsed, stored_reviews(db_url), cpu_s)
    print(sessions_readable(db_url))
    if churn is not None:
        print(churn)


def new_database(db_url: str, name: str) -> str:
    """Create database ``name`` in the cluster of ``db_url``; its URL."""
    import sqlalchemy as sa

    url = sa.make_url(db_url)
    engine = sa.create_engine(url.set(database="postgres"), isolation_level="AUTOCOMMIT")
    try:
        with engine.connect() as conn:
            conn.exec_driver_sql(f'CREATE DATABASE "{name}"')
    finally:
        engine.dispose()
    return url.set(database=name).render_as_string(hide_password=False)


def paces(runs: str, pace: float) -> list[float | None]:
    """The runs ``--runs`` asks for, in order: None for saturated, else the pace."""
    return {"both": [None, pace], "saturated": [None], "paced": [pace]}[runs]


def main() -> None:
    """Parse the options, prepare the vault, run PostgreSQL then SQLite."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=60.0, help="length of each run")
    parser.add_argument("--users", type=int, default=50, help="simulated learners at once")
    parser.add_argument("--workers", type=int, default=2, help="workers on PostgreSQL")
    parser.add_argument(
        "--threads", type=int, default=2, help="threads per worker (--threads; the default)"
    )
    parser.add_argument("--kill-worker", action="store_true", help="kill a worker half-way")
    parser.add_argument(
        "--single-user",
        action="store_true",
        help="serve without accounts: every simulated learner studies as the one local learner",
    )
    parser.add_argument("--ramp", type=float, default=5.0, help="seconds over which users arrive")
    parser.add_argument("--only", choices=("postgresql", "sqlite"), help="run one database")
    parser.add_argument("--postgres-url", help="use this (empty) database instead of a new one")
    parser.add_argument(
        "--postgres-port",
        type=int,
        default=25460,
        help="port of the new one (below Linux's ephemeral ports, which clients take)",
    )
    parser.add_argument("--items", type=int, default=10_000, help="synthetic vault size")
    parser.add_argument("--vault", type=Path, help="use (or create) this synthetic vault")
    parser.add_argument(
        "--runs",
        choices=("both", "saturated", "paced"),
        default="both",
        help="saturated (capacity), paced (latency at --pace), or both, each on a fresh database",
    )
    parser.add_argument(
        "--pace",
        type=float,
        default=TARGET_REVIEWS_PER_S,
        help="reviews a second the learners owe together in the paced run",
    )
    args = parser.parse_args()
    if args.pace <= 0:
        parser.error(f"--pace {args.pace:g}: give the reviews a second to owe, above 0")
    runs = paces(args.runs, args.pace)
    if args.postgres_url and len(runs) > 1:
        parser.error("--postgres-url holds one run's data: add --runs saturated or --runs paced")
    from sysdrill.storage.engine import safe_url, upgrade_database

    with tempfile.TemporaryDirectory(prefix="sysdrill-load.") as temporary:
        scratch = Path(temporary)
        vault = args.vault or scratch / "vault"
        if not (vault / "questions").is_dir():
            generate_vault(vault, args.items)
        print(f"{args.users} learners for {args.seconds:.0f} s each run; vault {vault}")
        if args.only in (None, "postgresql"):
            with (
                nullcontext(args.postgres_url)
                if args.postgres_url
                else throwaway_postgres(args.postgres_port)
            ) as first_url:
                for number, pace in enumerate(runs):
                    pg_url = first_url if number == 0 else new_database(first_url, "sysdrill_paced")
                    upgrade_database(pg_url)
                    run_one(
                        f"PostgreSQL, {args.workers} workers ({safe_url(pg_url)})",
                        pg_url,
                        workers=args.workers,
                        vault=vault,
                        scratch=scratch / f"pg-{number}",
                        args=args,
                        pace=pace,
                    )
        if args.only in (None, "sqlite"):
            for number, pace in enumerate(runs):
                sqlite_url = f"sqlite:///{scratch / f'study-{number}.sqlite3'}"
                upgrade_database(sqlite_url)
                run_one(
                    "SQLite, 1 worker",
                    sqlite_url,
                    workers=1,
                    vault=vault,
                    scratch=scratch / f"sqlite-{number}",
                    args=args,
                    pace=pace,
                )


if __name__ == "__main__":
    main()
