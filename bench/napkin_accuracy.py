"""Line-level accuracy of the napkin claim checker on the labelled authoring-style corpus.

The corpus (tests/data/napkin/corpus.tsv and the held-out heldout.tsv, format in
tests/data/napkin/README.md) labels each line ``right``, ``wrong`` or
``not-a-claim``. Each line (or each block of lines that share a ``block`` name, so
that ``Let B = 32`` reaches the next line) goes through
``sysdrill.napkin.claims.check_claims``, and the line is scored on all the
verdicts that fall on it:

- *flagged*: some verdict is ``wrong``, ``unit-mismatch`` or ``prefix-ambiguous``
  (every finding an author sees; a prefix note is how a GB-for-GiB slip is caught);
- *checked*: flagged, or some verdict is ``ok``;
- *skipped*: a ``right`` or ``wrong`` line that is not checked.

Precision = flagged wrong lines / all flagged lines (flags on ``right`` and
``not-a-claim`` lines are false alarms); recall = flagged wrong lines / wrong lines
(a skipped wrong line is a miss); skip share = skipped claim lines / (right + wrong
lines).

Usage: ``python bench/napkin_accuracy.py [--verbose] [--json] [--split main|heldout]``.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
CORPUS_DIR = ROOT / "tests" / "data" / "napkin"
SPLITS = {"main": CORPUS_DIR / "corpus.tsv", "heldout": CORPUS_DIR / "heldout.tsv"}
"""The two splits; nobody tunes the engine on ``heldout``."""

FIELDS = ("id", "category", "label", "true_value", "block", "line", "note")
LABELS = ("right", "wrong", "not-a-claim")
CATEGORIES = (
    "labels",
    "bytes-billions",
    "rates",
    "number-words",
    "counting-nouns",
    "rounding",
    "prefixes",
    "definitions",
    "conventions",
    "chains",
    "arrows",
    "multipliers",
    "percentages",
    "ranges",
    "inequalities",
    "scientific",
    "currency",
    "time",
    "formatting",
    "magnitude-slips",
    "ascii-style",
    "paragraphs",
    "prose",
)
FLAGGING = frozenset({"wrong", "unit-mismatch", "prefix-ambiguous"})
"""Verdicts that put a finding in front of the author."""
CHECKED = FLAGGING | {"ok"}
"""Verdicts that mean the checker judged a claim (anything else is a skip)."""

OUTCOMES = ("caught", "missed", "missed-skipped", "false-alarm", "skipped", "clean")
"""What one line came to: wrong lines are caught, missed (judged ok) or
missed-skipped; right and not-a-claim lines are clean or a false-alarm; right lines
can also be skipped."""


class CorpusError(ValueError):
    """The corpus file is malformed (bad header, field count, label, category...)."""


@dataclass(frozen=True)
class Row:
    """One labelled line of the corpus."""

    id: str
    category: str
    label: str
    true_value: str
    block: str
    line: str
    note: str


def read_tsv(
    path: Path, fields: tuple[str, ...], error: type[ValueError]
) -> list[tuple[int, list[str]]]:
    """The data rows of a TSV file, each with its 1-based line number.

    ``#`` lines and blank lines are comments; the first other line is the header and
    must be ``fields``; every data row must have ``len(fields)`` fields. A problem
    raises ``error``.
    """
    rows: list[tuple[int, list[str]]] = []
    header_seen = False
    for number, raw in enumerate(path.read_text("utf-8").splitlines(), 1):
        if not raw.strip() or raw.startswith("#"):
            continue
        cells = raw.split("\t")
        if not header_seen:
            if tuple(cells) != fields:
                raise error(f"{path.name}:{number}: header must be {fields}")
            header_seen = True
            continue
        if len(cells) != len(fields):
            raise error(f"{path.name}:{number}: {len(cells)} fields, want {len(fields)}")
        rows.append((number, cells))
    if not header_seen:
        raise error(f"{path.name}: no header line")
    return rows


def load_corpus(path: Path) -> list[Row]:
    """Read one split; comment lines start with ``#``, the first other line is the header."""
    return [Row(*cells) for _, cells in read_tsv(path, FIELDS, CorpusError)]


def corpus_problems(rows: Sequence[Row]) -> list[str]:
    """Every labelling problem in ``rows`` (empty when the corpus is well formed)."""
    problems: list[str] = []
    seen: set[str] = set()
    closed_blocks: set[str] = set()
    previous_block = ""
    for row in rows:
        where = row.id or repr(row.line)
        if not row.id or row.id in seen:
            problems.append(f"{where}: id missing or used twice")
        seen.add(row.id)
        if row.category not in CATEGORIES:
            problems.append(f"{where}: unknown category {row.category!r}")
        if row.label not in LABELS:
            problems.append(f"{where}: unknown label {row.label!r}")
        if row.label == "wrong" and not row.true_value.strip():
            problems.append(f"{where}: a wrong line needs its true value")
        if row.label != "wrong" and row.true_value:
            problems.append(f"{where}: only wrong lines carry a true value")
        if not row.line.strip():
            problems.append(f"{where}: empty line")
        if row.block != previous_block:
            if previous_block:
                closed_blocks.add(previous_block)
            if row.block in closed_blocks:
                problems.append(f"{where}: block {row.block!r} is not contiguous")
        previous_block = row.block
    return problems


Checker = Callable[[str], Iterable[Any]]
"""``check_claims``-like: text in, verdicts with ``.line`` and ``.verdict`` out."""


def verdicts_by_row(rows: Sequence[Row], check: Checker) -> dict[str, list[Any]]:
    """Run ``check`` once per block (or lone line) and give each row its verdicts."""
    groups: list[list[Row]] = []
    for row in rows:
        if row.block and groups and groups[-1][0].block == row.block:
            groups[-1].append(row)
        else:
            groups.append([row])
    result: dict[str, list[Any]] = {}
    for group in groups:
        verdicts = list(check("\n".join(row.line for row in group)))
        for number, row in enumerate(group, 1):
            result[row.id] = [v for v in verdicts if v.line == number]
    return result


def _verdict_name(verdict: Any) -> str:
    value = verdict.verdict
    return str(getattr(value, "value", value))


def line_outcome(label: str, verdicts: Iterable[str]) -> str:
    """The outcome of one line with this label and these verdict names."""
    names = set(verdicts)
    flagged = bool(names & FLAGGING)
    checked = bool(names & CHECKED)
    if label == "wrong":
        if flagged:
            return "caught"
        return "missed" if checked else "missed-skipped"
    if flagged:
        return "false-alarm"
    if label == "right" and not checked:
        return "skipped"
    return "clean"


@dataclass
class Tally:
    """Outcome counts of a set of lines, and the figures made from them."""

    counts: dict[str, dict[str, int]] = field(default_factory=dict)
    """label -> outcome -> lines."""
    prefix_only: int = 0
    """Wrong lines caught only by a ``prefix-ambiguous`` note."""

    def add(self, label: str, outcome: str) -> None:
        by_outcome = self.counts.setdefault(label, {})
        by_outcome[outcome] = by_outcome.get(outcome, 0) + 1

    def count(self, label: str, *outcomes: str) -> int:
        by_outcome = self.counts.get(label, {})
        return sum(by_outcome.get(outcome, 0) for outcome in outcomes)

    @property
    def lines(self) -> int:
        return sum(sum(by_outcome.values()) for by_outcome in self.counts.values())

    @property
    def wrong_lines(self) -> int:
        return self.count("wrong", "caught", "missed", "missed-skipped")

    @property
    def caught(self) -> int:
        return self.count("wrong", "caught")

    @property
    def false_alarms(self) -> int:
        return self.count("right", "false-alarm") + self.count("not-a-claim", "false-alarm")

    @property
    def claim_lines(self) -> int:
        return self.wrong_lines + self.count("right", "clean", "false-alarm", "skipped")

    @property
    def skipped(self) -> int:
        return self.count("right", "skipped") + self.count("wrong", "missed-skipped")

    @property
    def precision(self) -> float | None:
        flagged = self.caught + self.false_alarms
        return self.caught / flagged if flagged else None

    @property
    def false_alarm_rate(self) -> float | None:
        """False alarms per right or not-a-claim line: unlike precision, this does not
        depend on how many wrong lines the corpus holds (a real vault has few)."""
        clean_lines = self.lines - self.wrong_lines
        return self.false_alarms / clean_lines if clean_lines else None

    @property
    def recall(self) -> float | None:
        return self.caught / self.wrong_lines if self.wrong_lines else None

    @property
    def skip_share(self) -> float | None:
        return self.skipped / self.claim_lines if self.claim_lines else None

    def figures(self) -> dict[str, Any]:
        return {
            "lines": self.lines,
            "claim_lines": self.claim_lines,
            "wrong_lines": self.wrong_lines,
            "caught": self.caught,
            "caught_by_prefix_note_only": self.prefix_only,
            "false_alarms_on_right": self.count("right", "false-alarm"),
            "false_alarms_on_not_a_claim": self.count("not-a-claim", "false-alarm"),
            "missed_judged_ok": self.count("wrong", "missed"),
            "missed_skipped": self.count("wrong", "missed-skipped"),
            "right_skipped": self.count("right", "skipped"),
            "precision": self.precision,
            "recall": self.recall,
            "skip_share": self.skip_share,
            "false_alarm_rate": self.false_alarm_rate,
        }


@dataclass
class SplitScore:
    """The score of one split: overall, per category, and every line that went wrong."""

    overall: Tally
    categories: dict[str, Tally]
    misclassified: list[dict[str, Any]]

    def to_dict(self) -> dict[str, Any]:
        return {
            "overall": self.overall.figures(),
            "categories": {name: t.figures() for name, t in sorted(self.categories.items())},
            "misclassified": self.misclassified,
        }


def score_rows(rows: Sequence[Row], verdicts: Mapping[str, Sequence[Any]]) -> SplitScore:
    """Score labelled rows against the verdicts found on each of them."""
    overall = Tally()
    categories: dict[str, Tally] = {}
    misclassified: list[dict[str, Any]] = []
    for row in rows:
        found = verdicts.get(row.id, [])
        names = [_verdict_name(v) for v in found]
        outcome = line_outcome(row.label, names)
        prefix_only = outcome == "caught" and not set(names) & (FLAGGING - {"prefix-ambiguous"})
        for tally in (overall, categories.setdefault(row.category, Tally())):
            tally.add(row.label, outcome)
            tally.prefix_only += prefix_only
        if outcome not in ("caught", "clean"):
            misclassified.append(
                {
                    "id": row.id,
                    "category": row.category,
                    "label": row.label,
                    "outcome": outcome,
                    "line": row.line,
                    "true_value": row.true_value,
                    "verdicts": [_describe(v) for v in found],
                }
            )
    return SplitScore(overall, categories, misclassified)


def _describe(verdict: Any) -> str:
    text = f"{_verdict_name(verdict)}: {verdict.lhs} {verdict.relation} {verdict.rhs}"
    computed = getattr(verdict, "computed", None)
    if computed is not None:
        unit = getattr(verdict, "unit", "")
        text += f" (computed {computed:.4g}{' ' + unit if unit else ''})"
    return text


def score_split(path: Path, check: Checker | None = None) -> SplitScore:
    """Load, validate and score one split file with ``check`` (default: the real checker)."""
    rows = load_corpus(path)
    problems = corpus_problems(rows)
    if problems:
        raise CorpusError(f"{path.name}: " + "; ".join(problems[:5]))
    if check is None:
        from sysdrill.napkin.claims import check_claims

        check = check_claims
    return score_rows(rows, verdicts_by_row(rows, check))


def _percent(value: float | None) -> str:
    return "n/a" if value is None else f"{100 * value:5.1f} %"


def _print_split(name: str, score: SplitScore, *, verbose: bool) -> None:
    o = score.overall
    print(f"== {name}: {o.lines} lines, {o.claim_lines} claim lines, {o.wrong_lines} wrong")
    print(
        f"precision {_percent(o.precision)}   recall {_percent(o.recall)}   "
        f"skipped {_percent(o.skip_share)}   "
        f"false alarms per clean line {_percent(o.false_alarm_rate)}\n"
        f"(caught {o.caught}, {o.prefix_only} of them by a prefix note only; "
        f"false alarms {o.count('right', 'false-alarm')} on right + "
        f"{o.count('not-a-claim', 'false-alarm')} on not-a-claim lines)"
    )
    print(f"{'category':<16} {'lines':>5} {'prec':>8} {'recall':>8} {'skipped':>8} {'FA':>4}")
    for category in CATEGORIES:
        t = score.categories.get(category)
        if t is None:
            continue
        print(
            f"{category:<16} {t.lines:>5} {_percent(t.precision):>8} {_percent(t.recall):>8} "
            f"{_percent(t.skip_share):>8} {t.false_alarms:>4}"
        )
    if verbose:
        print(f"-- misclassified ({len(score.misclassified)})")
        for item in score.misclassified:
            truth = f"  [true: {item['true_value']}]" if item["true_value"] else ""
            print(f"{item['id']:<20} {item['outcome']:<15} {item['line']}{truth}")
            for described in item["verdicts"]:
                print(f"{'':<37}{described}")
    print()


def main_over_splits(
    argv: Sequence[str] | None,
    *,
    description: str,
    splits: Mapping[str, Path],
    score_split: Callable[[Path], Any],
    print_split: Callable[[str, Any, argparse.Namespace], None],
    flags: Sequence[tuple[str, str, str]] = (),
) -> int:
    """Score each split asked for (``--split``, all by default) and print it, or JSON.

    Shared by the accuracy scripts; ``flags`` are extra ``(long, short, help)`` switches
    that ``print_split`` reads from the parsed arguments.
    """
    parser = argparse.ArgumentParser(description=description)
    for long, short, help_text in flags:
        parser.add_argument(long, short, action="store_true", help=help_text)
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--split", choices=sorted(splits), action="append")
    args = parser.parse_args(argv)
    scores = {name: score_split(splits[name]) for name in args.split or splits}
    if args.json:
        json.dump({name: s.to_dict() for name, s in scores.items()}, sys.stdout, indent=2)
        print()
        return 0
    for name, split_score in scores.items():
        print_split(name, split_score, args)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    return main_over_splits(
        argv,
        description=__doc__.split("\n\n")[0],
        splits=SPLITS,
        score_split=score_split,
        print_split=lambda name, score, args: _print_split(name, score, verbose=args.verbose),
        flags=[("--verbose", "-v", "list misclassified lines")],
    )


if __name__ == "__main__":
    raise SystemExit(main())
