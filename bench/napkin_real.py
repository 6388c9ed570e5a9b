"""The napkin checker on real StaffML text: findings, skips, and precision and recall.

Reads the real third-party set in ``../shared/realdata/staffml/`` (relative to the
repository root; ``SYSDRILL_REALDATA`` names another ``staffml`` folder) and
measures issue 27's targets against the labels in
``tests/data/napkin/real_labels.tsv`` (format in ``tests/data/napkin/README.md``).

What it runs:

- ``check`` on ``interviews/vault`` in-process (no cache), as an author would;
  findings by rule and severity, per file, and which are default-visible (errors and
  warnings: info is hidden by default);
- ``check_claims`` on every text ``check`` reads for napkin math (``napkin_math``,
  ``realistic_solution``, part answers) to count *claim-looking* lines and the ones
  the checker skipped. A line is claim-looking when a relation sign (``=``, ``≈``,
  spaced ``~``, ``→``, ``->``, ``⇒``, ``=>``, LaTeX ``\\approx``/``\\sim``) has a number
  on both of its sides, each side ending at a hard boundary or another relation sign
  (so ``batch = 32``, ``TTFT = 250 ms`` and ``~140 GB`` are not:
  :func:`is_claim_looking` gives the reasons);
  it is *skipped* when no verdict on it is a judgement (``ok``, ``wrong``,
  ``unit-mismatch``, ``prefix-ambiguous`` or any other non-``skipped`` verdict);
- ``check_claims`` on the napkin text of StaffML's two math-fix batches, "before"
  (``fix_math_0N.json``) and "after" (``fix_math_0N_corrected.json``: ``fixes`` holds
  the replaced fields, an item without a fixed field keeps its "before" text). Their
  fields are mostly one long line, so a batch field is cut into *lines*: at line
  breaks, then after each sentence end (``.``, ``!``, ``?`` followed by a space and a
  capital, a digit or Markdown), a lone list number (``2.``) staying with what follows.
  A batch line is addressed ``fix_math_07.json#<item id>:<field>:<n>`` (``n`` 1-based
  within the field as cut) and its findings are graded with the ``check`` tier's own
  rule table (:mod:`sysdrill.check.napkin_rules`).

Figures against the labels (rows name a file and line, a rule and a verdict):
precision of errors = real-error / (real-error + false-alarm) among error findings
(debatable ones are counted apart), likewise of warnings, both on the vault run;
recall = share of the "before" lines labelled wrong (rule ``line``: the written
arithmetic or units are wrong) that carry an error or warning, and the same share
counting lines whose wrong figure comes from an unwritten operation (``line-unwritten``)
too, shown beside it; errors on "after" lines (those on lines whose fix is itself
labelled wrong do not count against the target, and are shown) and the share of
"after" lines with a warning; skip share of the vault's claim-looking lines. Labelled
findings that no longer fire are counted as silenced.

Usage: ``python bench/napkin_real.py [--verbose] [--json] [--report FILE] [--labels FILE]``.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from napkin_accuracy import read_tsv  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
REALDATA_ENV = "SYSDRILL_REALDATA"
LABELS_PATH = ROOT / "tests" / "data" / "napkin" / "real_labels.tsv"
VAULT = Path("interviews") / "vault"
BATCH_DIR = Path("interviews") / "_validation_batches" / "opus_fix"
BATCHES = ("fix_math_07", "fix_math_08")
BATCH_FIELDS = ("napkin_math", "realistic_solution")

LABEL_FIELDS = ("source", "line", "rule", "verdict", "match", "recomputation")
VERDICTS = ("real-error", "false-alarm", "debatable")
NAPKIN_RULES = (
    "napkin-arithmetic",
    "napkin-units",
    "napkin-prefix-ambiguous",
    "napkin-unsure",
)
"""The rules labelled: the napkin tier's claim rules. ``napkin-markers`` (missing
section headings) says nothing about arithmetic and is not labelled."""
LINE_RULE = "line"
"""Rule of a row about a line itself: ``real-error`` = its arithmetic or units are
wrong on the line (the recall set of the "before" batches, or a wrong "after" fix)."""
UNWRITTEN_RULE = "line-unwritten"
"""Rule of a row about a line whose wrong figure comes from an operation the line does
not write ("32 layers, 8 heads: the KV cache is ~3.2 MB"): wrong, but outside the
recall target, which is about written arithmetic; counted in ``before_recall_all``."""
LINE_RULES = (LINE_RULE, UNWRITTEN_RULE)
DEFAULT_VISIBLE = ("error", "warning")

TARGETS: dict[str, tuple[str, float]] = {
    "error_precision": (">=", 0.95),
    "warning_precision": (">=", 0.80),
    "before_recall": (">=", 0.85),
    "after_errors": ("<=", 0),
    "after_warning_share": ("<=", 0.02),
    "skip_share": ("<=", 0.10),
}
"""Issue 27's targets: figure -> (comparison, bound)."""

_RELATION = re.compile(r"=>|->|⇒|→|≈|~|=|\\approx|\\sim")
_DIGIT = re.compile(r"\d")
_NUMBER = re.compile(r"(?<![\w.])\d[\d.,]*(?!-[A-Za-z])(?![\d.,])")
"""A number: not digits inside a name (``H100``, ``FP16``) nor an adjective (``32-bit``)."""
_SETTING = re.compile(r"\w=\S")
"""A glued ``=`` (``TP=8``, ``t=0``): a setting, never a claim (docs/napkin.md)."""
_ARROWS = frozenset({"→", "->", "=>", "⇒"})
_SINGLE_VALUE = re.compile(r"\s*[~≈$]?\s*\d[\d.,]*\s*[A-Za-z%/µ]*\s*")
"""One value with its unit: an arrow after it marks a change (``5 MB -> 50 KB``)."""
_BOUNDARY = re.compile(r"[:;?!|]|\.(?!\d)|,(?!\d{3}(?!\d))")
"""Where the checker's sides stop (as ``napkin.claims`` splits a line)."""
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9*(\[$~`#-])")
_LIST_NUMBER = re.compile(r"\d{1,2}\.")
_SAYS = re.compile(r"expected (?P<computed>.+?) from (?P<source>.+?); the line says (?P<says>.+)$")


class LabelError(ValueError):
    """The labels file is malformed (bad header or field count)."""


class RealDataMissing(RuntimeError):
    """The real data folder is absent."""


@dataclass(frozen=True)
class Label:
    """One labelled fact about a finding, or about a line (rule ``line``)."""

    source: str
    """Vault file relative to the vault, or a batch address without its line."""
    line: int
    rule: str
    verdict: str
    match: str
    """Empty, or a text the finding's message must hold (to tell two findings of one
    rule on one line apart)."""
    recomputation: str

    def covers(self, hit: Hit) -> bool:
        return (
            hit.source == self.source
            and hit.line == self.line
            and hit.rule == self.rule
            and self.match in hit.message
        )


@dataclass(frozen=True)
class Hit:
    """A napkin finding on the vault, or on a batch line (graded like ``check``)."""

    source: str
    line: int
    rule: str
    severity: str
    message: str
    column: int = 0


@dataclass
class LineStat:
    """A claim-looking line and what the claim checker made of it."""

    source: str
    line: int
    checked: bool
    reasons: list[str] = field(default_factory=list)


@dataclass
class Run:
    """Everything measured on the real set, before the labels are applied."""

    findings: list[dict[str, Any]]
    """Every finding ``check`` reports on the vault (its JSON shape)."""
    vault_hits: list[Hit]
    vault_lines: list[LineStat]
    batch_lines: dict[str, dict[str, list[str]]]
    """phase ("before"/"after") -> batch source (``file#id:field``) -> its lines."""
    batch_hits: dict[str, list[Hit]]
    """phase -> napkin findings on its lines."""


def realdata_dir() -> Path:
    """The ``staffml`` folder: ``$SYSDRILL_REALDATA`` or ``../shared/realdata/staffml``."""
    override = os.environ.get(REALDATA_ENV)
    return Path(override) if override else ROOT.parent / "shared" / "realdata" / "staffml"


def require_realdata(path: Path) -> Path:
    """``path`` if it holds the vault, else :class:`RealDataMissing` with the fix."""
    if not (path / VAULT / "questions").is_dir():
        raise RealDataMissing(
            f"no real data at {path} (want {VAULT}/questions/ there); "
            f"set {REALDATA_ENV} to the staffml folder"
        )
    return path


# -- labels ---------------------------------------------------------------------------


def load_labels(path: Path) -> list[Label]:
    """Read the labels; ``#`` lines are comments, the first other line is the header."""
    labels: list[Label] = []
    for number, fields in read_tsv(path, LABEL_FIELDS, LabelError):
        source, line, rule, verdict, match, recomputation = fields
        if not line.isdigit():
            raise LabelError(f"{path.name}:{number}: line {line!r} is not a number")
        labels.append(Label(source, int(line), rule, verdict, match, recomputation))
    return labels


def label_problems(labels: Sequence[Label], realdata: Path | None = None) -> list[str]:
    """Every problem in ``labels``; with ``realdata``, also lines that do not exist."""
    problems: list[str] = []
    seen: set[tuple[str, int, str, str]] = set()
    batch_text: dict[str, dict[str, list[str]]] | None = None
    for label in labels:
        where = f"{label.source}:{label.line}"
        key = (label.source, label.line, label.rule, label.match)
        if key in seen:
            problems.append(f"{where}: {label.rule} {label.match!r} labelled twice")
        seen.add(key)
        if label.rule not in (*NAPKIN_RULES, *LINE_RULES):
            problems.append(f"{where}: unknown rule {label.rule!r}")
        if label.verdict not in VERDICTS:
            problems.append(f"{where}: unknown verdict {label.verdict!r}")
        if label.rule in LINE_RULES and label.verdict != "real-error":
            problems.append(f"{where}: a line row is always real-error")
        if len(label.recomputation.strip()) < 10:
            problems.append(f"{where}: the recomputation is missing or too short")
        if label.line < 1:
            problems.append(f"{where}: lines count from 1")
        if realdata is None:
            continue
        if "#" in label.source:
            if batch_text is None:
                batch_text = {phase: dict(lines) for phase, lines in _all_batch_lines(realdata)}
            known = batch_text["before"].get(label.source) or batch_text["after"].get(label.source)
            if known is None:
                problems.append(f"{where}: no such batch field")
            elif label.line > len(known):
                problems.append(f"{where}: the field has {len(known)} lines")
        else:
            file = realdata / VAULT / label.source
            if not file.is_file():
                problems.append(f"{where}: no such vault file")
            elif label.line > len(file.read_text("utf-8").splitlines()):
                problems.append(f"{where}: past the end of the file")
    return problems


# -- measuring ------------------------------------------------------------------------


def is_claim_looking(line: str) -> bool:
    """Whether a relation sign on ``line`` relates two sides that both hold a number.

    Each side runs from the sign to the nearest hard boundary (a colon, semicolon,
    sentence end, list comma, ``|``...) or other relation sign, as the checker reads
    them, and inside a parenthesis the sign is in (``(Ridge point = 295)``). A
    *number* is not digits glued to a name (``H100``, ``FP16``) or an adjective
    (``32-bit``).

    Why: ``TTFT = 250 ms``, ``Ridge point = 295 FLOPs/byte`` or ``Peak = 20 GPUs,
    Trough = 2 GPUs`` define or label a value and claim nothing computed; a ``~``
    glued to what follows (``~140 GB``, ``at ~$2/hr``) means "about", not "is about
    equal to"; a glued ``=`` is a setting (``t=0``); an arrow after a single value
    marks a change (``224 -> 448``), as the checker documents. A line that computes a
    result keeps a number on both sides and still counts (``1M GPU-hours * 1.4e18
    FLOPs/hr = ~1.4e24 FLOPs``).
    """
    signs = [
        sign
        for sign in _RELATION.finditer(line)
        if not (sign.group() == "~" and not line[sign.end() : sign.end() + 1].isspace())
        and not _SETTING.fullmatch(line, max(0, sign.start() - 1), sign.end() + 1)
    ]
    for index, sign in enumerate(signs):
        start = signs[index - 1].end() if index else 0
        end = signs[index + 1].start() if index + 1 < len(signs) else len(line)
        left = _open_group(_BOUNDARY.split(line[start : sign.start()])[-1])
        right = _close_group(_BOUNDARY.split(line[sign.end() : end], maxsplit=1)[0])
        if sign.group() in _ARROWS and _SINGLE_VALUE.fullmatch(left):
            continue
        if _NUMBER.search(left) and _NUMBER.search(right):
            return True
    return False


def _open_group(left: str) -> str:
    """A left side after the last parenthesis still open at the sign (``(Ridge point``)."""
    depth = 0
    for index in range(len(left) - 1, -1, -1):
        if left[index] == ")":
            depth += 1
        elif left[index] == "(":
            if depth == 0:
                return left[index + 1 :]
            depth -= 1
    return left


def _close_group(right: str) -> str:
    """A right side up to the first parenthesis it closes without opening."""
    depth = 0
    for index, char in enumerate(right):
        if char == "(":
            depth += 1
        elif char == ")":
            if depth == 0:
                return right[:index]
            depth -= 1
    return right


def segment_field(text: str) -> list[str]:
    """A batch field cut into lines: at line breaks, then after each sentence end."""
    lines: list[str] = []
    for raw in text.splitlines():
        pieces = _SENTENCE_END.split(raw)
        merged: list[str] = []
        for piece in pieces:
            if merged and _LIST_NUMBER.fullmatch(merged[-1].strip()):
                merged[-1] = f"{merged[-1]} {piece}"
            else:
                merged.append(piece)
        lines.extend(merged)
    return lines


def _batch_items(path: Path) -> list[dict[str, Any]]:
    data = json.loads(path.read_text("utf-8"))
    if not isinstance(data, list):
        raise ValueError(f"{path.name}: want a JSON list of items")
    return [item for item in data if isinstance(item, dict)]


def _all_batch_lines(realdata: Path) -> Iterator[tuple[str, dict[str, list[str]]]]:
    """("before" | "after", batch source -> its lines), for every batch and field."""
    before: dict[str, list[str]] = {}
    after: dict[str, list[str]] = {}
    for name in BATCHES:
        folder = realdata / BATCH_DIR
        items = _batch_items(folder / f"{name}.json")
        fixed = {
            str(item.get("id")): item.get("fixes") or {}
            for item in _batch_items(folder / f"{name}_corrected.json")
        }
        for item in items:
            item_id = str(item.get("id"))
            fixes = fixed.get(item_id, {})
            for key in BATCH_FIELDS:
                text = item.get(key)
                if not isinstance(text, str):
                    continue
                source = f"{name}.json#{item_id}:{key}"
                before[source] = segment_field(text)
                new = fixes.get(key) if isinstance(fixes, dict) else None
                after_text = new if isinstance(new, str) else text
                after[f"{name}_corrected.json#{item_id}:{key}"] = segment_field(after_text)
    yield "before", before
    yield "after", after


def _grade(verdict: Any) -> tuple[str, str] | None:
    """The rule code and severity ``check`` gives a claim verdict (None: no finding).

    Mirrors :func:`sysdrill.check.napkin_rules.napkin_findings`, whichever of its
    helpers the checker has (``unsure`` abstentions and ``severity_of`` came later).
    """
    from sysdrill.check import napkin_rules

    unsure = bool(getattr(verdict, "unsure", False))
    try:
        code = napkin_rules.rule_code(verdict.verdict, unsure=unsure)
    except TypeError:
        code = napkin_rules.rule_code(verdict.verdict)
    if code is None:
        return None
    severity_of = getattr(napkin_rules, "severity_of", None)
    if severity_of is not None:
        return code, str(severity_of(code, verdict.claim).value)
    return code, str(napkin_rules.RULES[code][0].value)


def _verdict_name(verdict: Any) -> str:
    value = verdict.verdict
    return str(getattr(value, "value", value))


def _line_stats(source: str, lines: Sequence[str], verdicts: Iterable[Any]) -> list[LineStat]:
    by_line: dict[int, list[Any]] = {}
    for verdict in verdicts:
        by_line.setdefault(verdict.line, []).append(verdict)
    stats: list[LineStat] = []
    for number, text in enumerate(lines, 1):
        if not is_claim_looking(text):
            continue
        found = by_line.get(number, [])
        judged = [v for v in found if _verdict_name(v) != "skipped"]
        reasons = [
            ("abstained: " if getattr(v, "unsure", False) else "") + (v.message or "skipped")
            for v in found
            if _verdict_name(v) == "skipped"
        ]
        if not found:
            reasons = ["no relation read as a claim (no verdict)"]
        stats.append(LineStat(source, number, bool(judged), [] if judged else reasons))
    return stats


def measure_batches(
    realdata: Path,
) -> tuple[dict[str, dict[str, list[str]]], dict[str, list[Hit]], list[LineStat]]:
    """Lines, graded napkin findings and claim-line stats of both batch phases."""
    from sysdrill.napkin.claims import check_claims

    texts: dict[str, dict[str, list[str]]] = {}
    hits: dict[str, list[Hit]] = {}
    stats: list[LineStat] = []
    for phase, fields in _all_batch_lines(realdata):
        texts[phase] = fields
        found: list[Hit] = []
        for source, lines in fields.items():
            verdicts = check_claims("\n".join(lines))
            stats.extend(_line_stats(source, lines, verdicts))
            for verdict in verdicts:
                graded = _grade(verdict)
                if graded is None:
                    continue
                message = (
                    verdict.message
                    if graded[0] == "napkin-arithmetic"
                    else (f"'{verdict.claim}': {verdict.message}")
                )
                found.append(Hit(source, verdict.line, *graded, message, verdict.column))
        hits[phase] = found
    return texts, hits, stats


def measure_vault(vault: Path) -> tuple[list[dict[str, Any]], list[Hit], list[LineStat]]:
    """``check`` on the vault (every finding, as JSON) and its claim-looking lines."""
    import yaml

    from sysdrill.check.service import check_paths
    from sysdrill.napkin.claims import check_claims
    from sysdrill.napkin.filecheck import YAML_LOADER, item_fields, node_at, yaml_line

    report = check_paths([vault], cache_dir=None)
    findings = [finding.to_dict() for finding in report.findings]
    hits = [
        Hit(f["path"], f["line"], f["code"], f["severity"], f["message"], f["column"])
        for f in findings
        if f["code"] in NAPKIN_RULES
    ]
    stats: list[LineStat] = []
    for path in sorted((vault / "questions").rglob("*.yaml")):
        document = path.read_text("utf-8")
        try:
            data = yaml.load(document, Loader=YAML_LOADER)  # noqa: S506 - safe loader
            root = yaml.compose(document, Loader=YAML_LOADER)
        except yaml.YAMLError:
            continue
        if not isinstance(data, dict):
            continue
        rel = path.relative_to(vault).as_posix()
        for loc, text in item_fields(data):
            lines = text.splitlines()
            node = node_at(root, loc) if root is not None else None
            for stat in _line_stats(rel, lines, check_claims(text)):
                stat.line = yaml_line(document, node, text, stat.line)[0]
                stats.append(stat)
    return findings, hits, stats


def measure(realdata: Path) -> tuple[Run, list[LineStat]]:
    """Run everything on the real set: the vault run and both batch phases."""
    findings, vault_hits, vault_lines = measure_vault(realdata / VAULT)
    texts, batch_hits, batch_stats = measure_batches(realdata)
    return Run(findings, vault_hits, vault_lines, texts, batch_hits), batch_stats


# -- scoring --------------------------------------------------------------------------


def _ratio(part: int, whole: int) -> float | None:
    return part / whole if whole else None


def label_of(hit: Hit, labels: Sequence[Label]) -> Label | None:
    """The most specific label covering ``hit`` (one with a ``match`` first)."""
    covering = [label for label in labels if label.covers(hit)]
    covering.sort(key=lambda label: -len(label.match))
    return covering[0] if covering else None


def _precision(hits: Sequence[Hit], labels: Sequence[Label], severity: str) -> dict[str, Any]:
    tally: Counter[str] = Counter()
    for hit in hits:
        if hit.severity != severity:
            continue
        label = label_of(hit, labels)
        tally[label.verdict if label else "unlabelled"] += 1
    real, false = tally["real-error"], tally["false-alarm"]
    return {
        "findings": sum(tally.values()),
        "real_error": real,
        "false_alarm": false,
        "debatable": tally["debatable"],
        "unlabelled": tally["unlabelled"],
        "precision": _ratio(real, real + false),
    }


def score(run: Run, labels: Sequence[Label]) -> dict[str, Any]:
    """Every figure of the run against the labels, with each target met or missed."""
    visible = [h for h in run.vault_hits if h.severity in DEFAULT_VISIBLE]
    errors = _precision(run.vault_hits, labels, "error")
    warnings = _precision(run.vault_hits, labels, "warning")

    wrong_before_all = [
        label
        for label in labels
        if label.rule in LINE_RULES
        and label.source.split("#")[0].endswith(".json")
        and "_corrected" not in label.source
    ]
    wrong_before = [label for label in wrong_before_all if label.rule == LINE_RULE]
    # A wrong line is caught by a default-visible finding on it that is not a labelled
    # false alarm (a one-line block can hold a false alarm next to the wrong claim).
    before_flagged = {
        (h.source, h.line)
        for h in run.batch_hits.get("before", [])
        if h.severity in DEFAULT_VISIBLE
        and getattr(label_of(h, labels), "verdict", "") != "false-alarm"
    }
    caught = [label for label in wrong_before if (label.source, label.line) in before_flagged]
    missed = [label for label in wrong_before if (label.source, label.line) not in before_flagged]
    caught_all = [
        label for label in wrong_before_all if (label.source, label.line) in before_flagged
    ]
    missed_unwritten = [
        label
        for label in wrong_before_all
        if label.rule == UNWRITTEN_RULE and (label.source, label.line) not in before_flagged
    ]

    wrong_after = {
        (label.source, label.line)
        for label in labels
        if label.rule in LINE_RULES and "_corrected" in label.source
    }
    after_hits = run.batch_hits.get("after", [])
    after_errors = [h for h in after_hits if h.severity == "error"]
    after_errors_counted = [
        h
        for h in after_errors
        if (h.source, h.line) not in wrong_after
        and getattr(label_of(h, labels), "verdict", "") != "real-error"
    ]
    after_lines = sum(len(lines) for lines in run.batch_lines.get("after", {}).values())
    after_warned = {(h.source, h.line) for h in after_hits if h.severity == "warning"}
    skipped = [s for s in run.vault_lines if not s.checked]

    vault_sources = {h.source for h in run.vault_hits}
    fired = {(h.source, h.line, h.rule) for h in run.vault_hits} | {
        (h.source, h.line, h.rule) for phase in run.batch_hits.values() for h in phase
    }
    finding_labels = [label for label in labels if label.rule not in LINE_RULES]
    silenced = [
        label for label in finding_labels if (label.source, label.line, label.rule) not in fired
    ]
    unlabelled = [
        h
        for h in (*visible, *(h for p in run.batch_hits.values() for h in p))
        if h.severity in DEFAULT_VISIBLE and label_of(h, labels) is None
    ]
    figures: dict[str, Any] = {
        "error_precision": errors["precision"],
        "warning_precision": warnings["precision"],
        "before_recall": _ratio(len(caught), len(wrong_before)),
        "after_errors": len(after_errors_counted),
        "after_warning_share": _ratio(len(after_warned), after_lines),
        "skip_share": _ratio(len(skipped), len(run.vault_lines)),
    }
    return {
        "targets": {
            name: {
                "value": figures[name],
                "target": f"{op} {bound:g}",
                "met": _meets(figures[name], op, bound),
            }
            for name, (op, bound) in TARGETS.items()
        },
        "vault": {
            "files_with_napkin_findings": len(vault_sources),
            "by_rule_and_severity": _by_rule(run.findings),
            "default_visible_napkin_findings": len(visible),
            "errors": errors,
            "warnings": warnings,
            "claim_looking_lines": len(run.vault_lines),
            "skipped_lines": len(skipped),
        },
        "batches": {
            "before_wrong_lines": len(wrong_before),
            "before_caught": len(caught),
            "before_missed": [f"{label.source}:{label.line}" for label in missed],
            "before_unwritten_lines": len(wrong_before_all) - len(wrong_before),
            "before_unwritten_missed": [
                f"{label.source}:{label.line}" for label in missed_unwritten
            ],
            "before_recall_all": _ratio(len(caught_all), len(wrong_before_all)),
            "before_findings": _by_severity(run.batch_hits.get("before", [])),
            "after_lines": after_lines,
            "after_findings": _by_severity(after_hits),
            "after_errors_on_wrong_fixes": len(after_errors) - len(after_errors_counted),
            "after_lines_with_warnings": len(after_warned),
        },
        "labels": {
            "rows": len(labels),
            "by_verdict": dict(Counter(label.verdict for label in finding_labels)),
            "line_rows": len(labels) - len(finding_labels),
            "silenced": len(silenced),
            "silenced_false_alarms": sum(1 for s in silenced if s.verdict == "false-alarm"),
            "silenced_real_errors": sum(1 for s in silenced if s.verdict == "real-error"),
        },
        "unlabelled": [asdict(h) for h in unlabelled],
    }


def _meets(value: float | None, op: str, bound: float) -> bool:
    # A share with nothing to count (no warning shown at all) holds vacuously: a precision
    # target is there to keep false alarms out, and there are none.
    if value is None:
        return True
    return value >= bound if op == ">=" else value <= bound


def _by_rule(findings: Iterable[dict[str, Any]]) -> dict[str, int]:
    tally = Counter(f"{f['code']} ({f['severity']})" for f in findings)
    return dict(sorted(tally.items()))


def _by_severity(hits: Iterable[Hit]) -> dict[str, int]:
    return dict(sorted(Counter(h.severity for h in hits).items()))


# -- output ---------------------------------------------------------------------------


def _percent(value: float | None) -> str:
    return "n/a" if value is None else f"{100 * value:.1f} %"


def _show(name: str, value: Any) -> str:
    if isinstance(value, float) and name != "after_errors":
        return _percent(value)
    return "n/a (none shown)" if value is None else str(value)


def print_summary(
    run: Run, batch_stats: Sequence[LineStat], scored: dict[str, Any], *, verbose: bool
) -> None:
    """The figures as people read them."""
    vault = scored["vault"]
    print(f"== vault: {len(run.findings)} findings")
    for rule, count in vault["by_rule_and_severity"].items():
        print(f"  {rule:<40} {count:>4}")
    per_file = Counter(h.source for h in run.vault_hits if h.severity in DEFAULT_VISIBLE)
    print(
        f"default-visible napkin findings: {vault['default_visible_napkin_findings']} "
        f"in {len(per_file)} files (info is hidden by default)"
    )
    for source, count in per_file.most_common(None if verbose else 10):
        print(f"  {count:>3}  {source}")
    for kind in ("errors", "warnings"):
        t = vault[kind]
        print(
            f"{kind}: {t['findings']} = {t['real_error']} real + {t['false_alarm']} false + "
            f"{t['debatable']} debatable + {t['unlabelled']} unlabelled; "
            f"precision {_percent(t['precision'])}"
        )
    print(
        f"claim-looking lines: {vault['claim_looking_lines']}, skipped "
        f"{vault['skipped_lines']} ({_percent(scored['targets']['skip_share']['value'])})"
    )
    if verbose:
        reasons = Counter(r for s in run.vault_lines if not s.checked for r in s.reasons[:1])
        print("-- skip reasons (first reason of each skipped line)")
        for reason, count in reasons.most_common():
            print(f"  {count:>3}  {reason}")
        print("-- skipped lines")
        for stat in run.vault_lines:
            if not stat.checked:
                print(f"  {stat.source}:{stat.line}: {'; '.join(stat.reasons)}")
    batches = scored["batches"]
    batch_skipped = sum(1 for s in batch_stats if not s.checked)
    print(
        f"== batches: {batches['before_wrong_lines']} wrong 'before' lines, "
        f"{batches['before_caught']} caught (with {batches['before_unwritten_lines']} more "
        f"whose operation is not written: {_percent(batches['before_recall_all'])} caught); "
        f"findings before {batches['before_findings']}, "
        f"after {batches['after_findings']} on {batches['after_lines']} lines "
        f"({batches['after_errors_on_wrong_fixes']} errors on fixes that are wrong themselves); "
        f"claim-looking batch lines skipped {batch_skipped} of {len(batch_stats)}"
    )
    if verbose and batches["before_missed"]:
        print("-- missed 'before' lines")
        for where in batches["before_missed"]:
            print(f"  {where}")
    if verbose and batches["before_unwritten_missed"]:
        print("-- missed 'before' lines whose operation is not written")
        for where in batches["before_unwritten_missed"]:
            print(f"  {where}")
    labels = scored["labels"]
    print(
        f"== labels: {labels['rows']} rows ({labels['line_rows']} line rows), findings "
        f"{labels['by_verdict']}; {labels['silenced']} labelled findings no longer fire "
        f"({labels['silenced_false_alarms']} false alarms silenced, "
        f"{labels['silenced_real_errors']} real errors lost)"
    )
    print("== targets")
    for name, target in scored["targets"].items():
        state = "met" if target["met"] else "MISSED"
        print(
            f"  {name:<20} {_show(name, target['value']):>9}  target {target['target']:<7} {state}"
        )
    if scored["unlabelled"]:
        print(f"-- unlabelled default-visible findings ({len(scored['unlabelled'])})")
        for hit in scored["unlabelled"]:
            cells = (hit["source"], hit["line"], hit["rule"], hit["severity"], hit["message"])
            print("  " + "\t".join(str(cell) for cell in cells))


def _numbers_only(text: str) -> str:
    """``text`` with its words dropped: numbers, operators and unit spellings stay."""
    from sysdrill.napkin.units import is_unit_spelling

    kept: list[str] = []
    for token in text.split():
        bare = token.strip(",;:()'\"*")
        if (
            _DIGIT.search(token)
            or bare in {"*", "x", "×", "/", "+", "-", "=", "≈", "~", "÷"}
            or is_unit_spelling(bare)
        ):
            kept.append(token)
    return " ".join(kept) or "-"


def write_report(path: Path, run: Run, labels: Sequence[Label]) -> int:
    """Write the real errors found on the vault as a Markdown table; return their count."""
    rows: list[str] = []
    for hit in run.vault_hits:
        label = label_of(hit, labels)
        if label is None or label.verdict != "real-error":
            continue
        message = hit.message.split(": ", 1)[-1]
        said = _SAYS.search(message)
        if said:
            computed = f"{_numbers_only(said['computed'])} from {_numbers_only(said['source'])}"
            says = _numbers_only(said["says"])
        else:
            computed, says = "-", _numbers_only(message)
        cells = (hit.source, str(hit.line), hit.rule, computed, says, label.recomputation)
        rows.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    header = (
        "# Real napkin-math errors found in the StaffML sample\n\n"
        "Written by `python bench/napkin_real.py --report FILE`; numbers only, "
        "the recomputation is ours.\n\n"
        "| file | line | rule | computed (from) | the line says | recomputation |\n"
        "| --- | --- | --- | --- | --- | --- |\n"
    )
    path.write_text(header + "\n".join(rows) + ("\n" if rows else ""), "utf-8")
    return len(rows)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--verbose", "-v", action="store_true", help="list every skip and miss")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--report", type=Path, help="write the real errors as Markdown here")
    parser.add_argument("--labels", type=Path, default=LABELS_PATH, help="the labels file")
    args = parser.parse_args(argv)
    try:
        realdata = require_realdata(realdata_dir())
    except RealDataMissing as exc:
        print(f"Error: {exc}", file=sys.stderr)
        return 1
    labels = load_labels(args.labels) if args.labels.is_file() else []
    run, batch_stats = measure(realdata)
    scored = score(run, labels)
    if args.report:
        count = write_report(args.report, run, labels)
        if not args.json:
            print(f"wrote {count} real errors to {args.report}")
    if args.json:
        scored["skipped_lines"] = [asdict(s) for s in run.vault_lines if not s.checked]
        json.dump(scored, sys.stdout, indent=2)
        print()
        return 0
    print_summary(run, batch_stats, scored, verbose=args.verbose)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
