"""Compare napkin verdicts on LaTeX-bearing lines between two source trees.

``dump`` writes, for every line holding a backslash or a brace, what
``normalize`` makes of it and the verdicts ``check_claims`` gives: lines from
the napkin corpora and the tests of this checkout, the seed documents when
``../shared/seeds`` is beside it, and FUZZ random strings of napkin and LaTeX
notation (seeded). ``compare`` prints how many lines differ, in their
normalised text, in any verdict, and in judged verdicts (every verdict but
``skipped``), then the first lines whose judged verdicts differ.

Usage, the old tree first::

    PYTHONPATH=OLD/src python bench/latex_verdict_diff.py dump old.json [--fuzz N] [--seed S]
    python bench/latex_verdict_diff.py dump new.json [--fuzz N] [--seed S]
    python bench/latex_verdict_diff.py compare old.json new.json
"""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
NOTATION = (
    list("0123456789.,+-*/^()=~≈×÷−·%$ eExKMBT⁻¹²³√π{}_")
    + ["GB", "GiB", "ms", "µs", "us", "TFLOP/s", "\\times", "\\frac{", "}{", "}", "$", "**"]
    + ["\\cdot", "\\approx", "\\text{", "\\mathrm{", "\\sqrt{", "^{", "_{", "\\,", "\\;"]
    + ["\\%", "\\$", "\\left(", "\\right)", "\\mu", "\\sim", "\\lt", "\\leq", "\\pi"]
    + ["min(", "max(", "sqrt(", "log2(", "N", "H100", " = ", " ≈ ", "10^", "2¹⁶"]
)


def gather_lines(fuzz: int, seed: int) -> list[str]:
    """The lines to judge: corpora, tests and seeds of this checkout, then fuzz strings."""
    lines: list[str] = []
    seeds = ROOT.parent / "shared" / "seeds"
    for path in sorted(seeds.glob("*.txt")) + sorted((ROOT / "tests/napkin/corpus").glob("*")):
        lines += path.read_text("utf-8").splitlines()
    for path in sorted((ROOT / "tests").rglob("*.py")):
        for raw in path.read_text("utf-8").splitlines():
            if "\\\\" in raw or "\\frac" in raw:
                lines.append(raw.strip().strip("(),\"'").replace("\\\\", "\\"))
    rng = random.Random(seed)
    for _ in range(fuzz):
        lines.append("".join(rng.choice(NOTATION) for _ in range(rng.randint(1, 30))))
    return [line for line in lines if "\\" in line or "{" in line]


def dump(out: Path, fuzz: int, seed: int) -> None:
    """Write normalised text and verdicts of every gathered line to ``out``."""
    from sysdrill.napkin import check_claims
    from sysdrill.napkin.lexer import normalize

    rows = []
    for line in gather_lines(fuzz, seed):
        verdicts: list[Any] | str
        try:
            verdicts = [[v.line, v.verdict.value, v.claim] for v in check_claims(line)]
        except Exception as exc:  # noqa: BLE001 - a crash is a result to compare, too
            verdicts = f"raised {type(exc).__name__}"
        rows.append({"line": line, "normalized": normalize(line), "verdicts": verdicts})
    out.write_text(json.dumps(rows, ensure_ascii=False), "utf-8")
    print(f"{len(rows)} lines written to {out}")


def _judged(verdicts: list[Any] | str) -> list[Any] | str:
    if isinstance(verdicts, str):
        return verdicts
    return [verdict for verdict in verdicts if verdict[1] != "skipped"]


def compare(old: Path, new: Path) -> None:
    """Print how the verdicts of two dumps differ."""
    before = json.loads(old.read_text("utf-8"))
    after = json.loads(new.read_text("utf-8"))
    assert [row["line"] for row in before] == [row["line"] for row in after], "different lines"
    pairs = list(zip(before, after, strict=True))
    text = sum(a["normalized"] != b["normalized"] for a, b in pairs)
    any_verdict = sum(a["verdicts"] != b["verdicts"] for a, b in pairs)
    judged = [(a, b) for a, b in pairs if _judged(a["verdicts"]) != _judged(b["verdicts"])]
    print(f"lines: {len(pairs)}")
    print(f"normalised text differs: {text}")
    print(f"any verdict differs (skipped claims included): {any_verdict}")
    print(f"judged verdicts differ: {len(judged)}")
    crashes = [a["line"] for a in before if isinstance(a["verdicts"], str)]
    print(f"lines on which the old tree raises: {len(crashes)} {crashes[:3]}")
    for a, b in judged[:10]:
        print(f"  {a['line']!r}")
        print(f"    old {_judged(a['verdicts'])}\n    new {_judged(b['verdicts'])}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    dumping = commands.add_parser("dump")
    dumping.add_argument("out", type=Path)
    dumping.add_argument("--fuzz", type=int, default=5000)
    dumping.add_argument("--seed", type=int, default=0)
    comparing = commands.add_parser("compare")
    comparing.add_argument("old", type=Path)
    comparing.add_argument("new", type=Path)
    args = parser.parse_args()
    if args.command == "dump":
        dump(args.out, args.fuzz, args.seed)
    else:
        compare(args.old, args.new)


if __name__ == "__main__":
    main()
