"""Workers of a several-worker server keep to a CPU each (sysdrill.web.worker_cpus)."""

from __future__ import annotations

import multiprocessing
import os
from typing import Any

import pytest

from sysdrill.web.worker_cpus import Sibling, choose_cpu, cpus_to_keep_to, keep_to_a_cpu

ANY = frozenset({0, 1})


def test_two_workers_starting_together_take_different_cpus() -> None:
    # Neither has chosen yet: each sees both waiting and goes by the order they started in.
    siblings = {10: Sibling(5, ANY), 11: Sibling(6, ANY)}
    assert choose_cpu(10, siblings, [0, 1]) == 0
    assert choose_cpu(11, siblings, [0, 1]) == 1


def test_a_worker_that_sees_its_sibling_chose_takes_the_other_cpu() -> None:
    # The earlier worker already keeps to CPU 0 when the later one looks.
    siblings = {10: Sibling(5, frozenset({0})), 11: Sibling(6, ANY)}
    assert choose_cpu(11, siblings, [0, 1]) == 1
    # Whichever CPU the first took.
    siblings = {10: Sibling(5, frozenset({1})), 11: Sibling(6, ANY)}
    assert choose_cpu(11, siblings, [0, 1]) == 0


def test_a_restarted_worker_takes_the_cpu_its_predecessor_left() -> None:
    # Worker 10 (CPU 0) was killed; 11 keeps CPU 1; 12 replaces 10 and started last.
    siblings = {11: Sibling(6, frozenset({1})), 12: Sibling(90, ANY)}
    assert choose_cpu(12, siblings, [0, 1]) == 0


def test_more_workers_than_cpus_spread_evenly() -> None:
    cpus = [0, 1]
    siblings = {pid: Sibling(pid, ANY) for pid in (1, 2, 3, 4)}
    chosen = [choose_cpu(pid, siblings, cpus) for pid in (1, 2, 3, 4)]
    assert sorted(chosen) == [0, 0, 1, 1]


def test_only_the_cpus_this_worker_may_use_are_chosen() -> None:
    # The server was started on CPUs 2 and 3 (taskset): a sibling's CPU 0 counts for nothing.
    siblings = {1: Sibling(1, frozenset({0})), 2: Sibling(2, frozenset({2, 3}))}
    assert choose_cpu(2, siblings, [2, 3]) == 2


def _pin_and_report(barrier: Any, found: Any) -> None:
    cpu = keep_to_a_cpu()
    found.put((cpu, sorted(os.sched_getaffinity(0))))
    barrier.wait(timeout=60)  # stay alive until the sibling has looked


@pytest.mark.skipif(len(cpus_to_keep_to()) < 2, reason="needs Linux and two CPUs")
def test_worker_processes_of_one_parent_keep_to_different_cpus() -> None:
    context = multiprocessing.get_context("spawn")
    barrier = context.Barrier(2)
    found = context.Queue()
    workers = [context.Process(target=_pin_and_report, args=(barrier, found)) for _ in range(2)]
    for worker in workers:
        worker.start()
    reports = [found.get(timeout=60) for _ in workers]
    for worker in workers:
        worker.join(timeout=60)
    chosen = {cpu for cpu, _ in reports}
    assert len(chosen) == 2
    assert chosen <= set(cpus_to_keep_to())
    assert all(affinity == [cpu] for cpu, affinity in reports)


def test_keeping_to_a_cpu_is_left_out_where_the_kernel_has_no_say(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delattr(os, "sched_setaffinity", raising=False)
    assert cpus_to_keep_to() == []
    assert keep_to_a_cpu() is None


def test_a_refusing_kernel_leaves_the_worker_on_any_cpu(monkeypatch: pytest.MonkeyPatch) -> None:
    if not cpus_to_keep_to():
        pytest.skip("needs Linux and two CPUs")

    def refuse(pid: int, cpus: Any) -> None:
        raise PermissionError("not allowed here")

    monkeypatch.setattr(os, "sched_setaffinity", refuse)
    assert keep_to_a_cpu() is None
