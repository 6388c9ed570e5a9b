"""Each worker of a several-worker server keeps to a CPU of its own (Linux).

A worker's event loop thread and its route threads hand requests and the
interpreter to each other thousands of times a second, and every route waits on
the database a few times. Left to the kernel, those threads wander between the
CPUs, so each hand-off wakes a thread on another CPU (on a virtual machine an
interrupt through the hypervisor) and finds its caches cold there. Kept to one
CPU, the hand-offs stay on it: in 60 s runs of ``bench/web_load.py`` taken in
turn, two workers kept to a CPU each took 530-565 reviews a second where the same
server left to the kernel took 307-384 (docs/benchmarks.md). PostgreSQL and
everything else still run on any CPU.

No state is shared between the workers: a starting worker reads which CPUs its
siblings (the other children of its parent, uvicorn's supervisor) keep to, and
takes the CPU fewest of them use. Two workers starting together, neither yet
kept to a CPU, take CPUs by the order they started in. A worker restarted after
a crash takes the CPU its predecessor left. Choosing is best effort: where the
kernel refuses (no ``sched_setaffinity``, a container's rules), the worker runs
on any CPU, as it would without this.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

__all__ = ["Sibling", "choose_cpu", "cpus_to_keep_to", "keep_to_a_cpu"]


@dataclass(frozen=True, slots=True)
class Sibling:
    """A worker process as the choice sees it."""

    started: int
    """When it started (clock ticks since boot; a later worker has a larger number)."""
    cpus: frozenset[int]
    """The CPUs it may run on: one when it already keeps to a CPU."""


def choose_cpu(me: int, siblings: Mapping[int, Sibling], cpus: Sequence[int]) -> int:
    """The CPU worker ``me`` should keep to (a pure function of what it sees).

    Args:
        me: The choosing worker's process id; ``siblings`` holds it too.
        siblings: Every worker of the server by process id, ``me`` included.
        cpus: The CPUs this worker may use, in order.
    """
    used = dict.fromkeys(cpus, 0)
    for pid, sibling in siblings.items():
        if pid != me and len(sibling.cpus) == 1:
            (cpu,) = sibling.cpus
            if cpu in used:
                used[cpu] += 1
    # Workers that have not chosen yet take the least used CPUs in the order they started.
    waiting = sorted(
        (sibling.started, pid)
        for pid, sibling in siblings.items()
        if pid == me or len(sibling.cpus) != 1
    )
    rank = [pid for _, pid in waiting].index(me)
    by_use = sorted(cpus, key=used.__getitem__)  # stable: ties keep the CPUs' order
    return by_use[rank % len(by_use)]


def cpus_to_keep_to() -> list[int]:
    """The CPUs this process may use, when it may keep workers to them (Linux, two or more)."""
    if not hasattr(os, "sched_setaffinity"):
        return []
    cpus = sorted(os.sched_getaffinity(0))
    return cpus if len(cpus) > 1 else []


def _started(pid: int) -> int:
    # The command may hold spaces and parentheses: the fields follow its last ")".
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return int(fields[19])


def _siblings(me: int) -> dict[int, Sibling]:
    """This server's workers: the parent's children, multiprocessing's helper left out."""
    parent = os.getppid()
    found = {}
    for text in Path(f"/proc/{parent}/task/{parent}/children").read_text().split():
        pid = int(text)
        if pid == me:
            continue
        try:
            if b"resource_tracker" in Path(f"/proc/{pid}/cmdline").read_bytes():
                continue
            found[pid] = Sibling(_started(pid), frozenset(os.sched_getaffinity(pid)))
        except (OSError, ValueError, IndexError):
            continue  # it ended meanwhile
    found[me] = Sibling(_started(me), frozenset(os.sched_getaffinity(me)))
    return found


def keep_to_a_cpu() -> int | None:
    """Keep this worker process (the threads it starts from now on) to a CPU of its own.

    Call it in each worker before it starts threads. Returns the CPU, or None where
    the kernel has no say (not Linux), the process may use one CPU only, or the
    kernel refused.
    """
    try:
        cpus = cpus_to_keep_to()
        if not cpus:
            return None
        me = os.getpid()
        cpu = choose_cpu(me, _siblings(me), cpus)
        # Every thread running now (threads started later inherit it from theirs).
        for thread in os.listdir("/proc/self/task"):
            os.sched_setaffinity(int(thread), {cpu})
    except (OSError, ValueError):
        return None
    return cpu
