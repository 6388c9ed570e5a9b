"""The side-by-side comparison reads web_load.py's report right (bench/side_by_side.py)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench"

REPORT = """\
50 learners for 25 s each run; vault /tmp/v
PostgreSQL, 1 workers (postgresql+psycopg://postgres@127.0.0.1:55460/sysdrill_load)
  requests 5000 in 25.0 s; reviews acknowledged 2600
  throughput  104.0 reviews/s (misses >= 300)
  latency of every request p50   20.0 ms  p99   41.5 ms (meets p99 <= 100 ms)
  errors 0
  reviews stored 2600; acknowledged 2600; acknowledged but not stored (lost) 0
  CPU during the run (2 cores x 25 s): server 12.5 s, load generator 2.0 s, postgresql 4.0 s
"""


def _load(name: str) -> ModuleType:
    sys.path.insert(0, str(BENCH))
    try:
        spec = importlib.util.spec_from_file_location(name, BENCH / f"{name}.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
        return module
    finally:
        sys.path.remove(str(BENCH))


@pytest.fixture(scope="module")
def side_by_side() -> ModuleType:
    return _load("side_by_side")


def test_figures_are_read_from_a_report_per_request(side_by_side):
    figures = side_by_side.figures_of(REPORT)
    assert figures.reviews_per_s == 104.0
    assert figures.p99_ms == 41.5
    assert (figures.errors, figures.lost) == (0, 0)
    assert figures.server_ms == pytest.approx(2.5)
    assert figures.postgres_ms == pytest.approx(0.8)


def test_a_report_without_its_figures_stops_the_comparison(side_by_side):
    with pytest.raises(SystemExit, match="printed no figure"):
        side_by_side.figures_of("Traceback (most recent call last): ...")


def test_latencies_are_grouped_by_second_without_thin_seconds():
    by_second = _load("load_by_second").by_second
    finished = [(100.0 + n / 50, "answer", 0.010 + n / 100_000) for n in range(50)]
    finished += [(101.5, "rate", 0.5), (101.6, "login", 9.0)]
    lines = by_second(finished)
    assert len(lines) == 1  # the second with two moves is left out; logins are not moves
    assert lines[0].startswith("second   0:   50 moves  p50   10.2 ms")
