"""Claims checked from several threads at once get exactly the verdicts of a serial run.

A web server checks claims from many threads, and the checker shares its claim
plans (by shape) between them; these tests interleave threads as often as the
interpreter allows, on thousands of claims of a few hundred shapes.
"""

from __future__ import annotations

import random
import re
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from sysdrill.napkin import claims
from sysdrill.napkin.claims import check_claims

THREADS = 8


def _same_shapes_other_digits(texts: list[str], copies: int) -> list[str]:
    """Each text, then ``copies`` texts of its shapes with random digits in place."""
    rng = random.Random(0)
    out = list(texts)
    for _ in range(copies):
        out.extend(re.sub(r"\d", lambda _: rng.choice("0123456789"), text) for text in texts)
    return out


def _verdicts(text: str) -> list[str]:
    # Compared as text, every field included, so that a NaN equals itself.
    return [repr(verdict) for verdict in check_claims(text)]


@contextmanager
def _switching_often() -> Iterator[None]:
    # The interpreter hands the GIL to another thread every few microseconds
    # instead of every 5 ms, so that threads interleave inside a claim's checking.
    before = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        yield
    finally:
        sys.setswitchinterval(before)


def _check_in_threads(texts: list[str]) -> list[list[list[str]]]:
    """Every text's verdicts as each thread saw them (each thread in its own order)."""
    seen: list[list[list[str]]] = [[[] for _ in texts] for _ in range(THREADS)]
    errors: list[BaseException] = []
    start = threading.Barrier(THREADS)

    def work(number: int) -> None:
        order = list(range(len(texts)))
        random.Random(number).shuffle(order)
        try:
            start.wait()
            for index in order:
                seen[number][index] = _verdicts(texts[index])
        except BaseException as exc:  # noqa: BLE001 - reported by the test below
            errors.append(exc)

    workers = [threading.Thread(target=work, args=(number,)) for number in range(THREADS)]
    with _switching_often():
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join()
    assert errors == []
    return seen


def _differences(serial: list[list[str]], seen: list[list[list[str]]]) -> int:
    return sum(
        verdicts != expected
        for by_text in seen
        for verdicts, expected in zip(by_text, serial, strict=True)
    )


def test_threads_checking_same_shape_claims_agree_with_a_serial_run(
    corpus_lines: list[str],
) -> None:
    texts = _same_shapes_other_digits(corpus_lines, copies=6)
    claims._PLANS.clear()
    serial = [_verdicts(text) for text in texts]
    assert sum(len(verdicts) for verdicts in serial) > 2000
    # Threads start from no stored plans, so they also race to store and reuse them.
    claims._PLANS.clear()
    seen = _check_in_threads(texts)
    differing = _differences(serial, seen)
    assert differing == 0


def test_threads_checking_vault_items_agree_with_a_serial_run(
    vault_texts: Callable[[int, int], list[str]],
) -> None:
    texts = _same_shapes_other_digits(vault_texts(100, 1), copies=3)
    claims._PLANS.clear()
    serial = [_verdicts(text) for text in texts]
    assert sum(len(verdicts) for verdicts in serial) > 1000
    seen = _check_in_threads(texts)
    differing = _differences(serial, seen)
    assert differing == 0
