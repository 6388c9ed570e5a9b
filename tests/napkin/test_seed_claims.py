"""No ``wrong`` verdict on the correct claims of the seed documents (read at test time)."""

from __future__ import annotations

from pathlib import Path

from sysdrill.napkin import Verdict, check_claims

SEEDS = ("000", "001", "002", "003", "004")


def seed_verdicts(seeds_dir: Path) -> list[tuple[str, int, str, str, str]]:
    found = []
    for prefix in SEEDS:
        (path,) = sorted(seeds_dir.glob(f"{prefix}_*.txt"))
        for verdict in check_claims(path.read_text("utf-8")):
            found.append(
                (path.name, verdict.line, verdict.verdict.value, verdict.claim, verdict.message)
            )
    return found


def test_seed_claims_have_no_wrong_or_unit_mismatch_verdict(seeds_dir: Path) -> None:
    found = seed_verdicts(seeds_dir)
    for name, line, kind, claim, message in found:
        print(f"{name}:{line}: {kind:<16} {claim}  ({message})")
    # Every arithmetic claim in the seeds is correct (checked by hand), so any
    # wrong or unit-mismatch verdict is a false alarm.
    errors = [row for row in found if row[2] in ("wrong", "unit-mismatch")]
    assert errors == []


def test_seed_arithmetic_is_found_and_confirmed(seeds_dir: Path) -> None:
    found = seed_verdicts(seeds_dir)
    ok = {(name[:3], claim) for name, _, kind, claim, _ in found if kind == Verdict.OK.value}
    # The question seeds' batch arithmetic, the loss-scaling product, and the
    # quiz's FLOPs-to-time chain (the README names these as checkable claims).
    assert ("000", "2048 / 128 = 16") in ok
    assert ("000", "2048 / 512 = 4") in ok
    assert ("001", "1e-7 * 65,536 = 0.0065536") in ok
    assert ("002", "5.88e22 / 1.404e14 = 4.19e8 seconds") in ok
    assert ("002", "4.19e8 seconds = 116,300 GPU-hours") in ok
    assert sum(1 for row in found if row[2] == "ok") >= 20
