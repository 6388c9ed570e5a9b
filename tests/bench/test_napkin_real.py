"""The real-text napkin harness (bench/napkin_real.py) and its labels (issue 27).

The labels file is checked for format everywhere; that every line it names exists, and
the figures on the real StaffML set, only where ``../shared/realdata`` is present (a
clone without it skips those tests with the reason). The harness itself runs on a tiny
vault and batch of our own writing.

The guards below hold today; tighten them towards issue 27's targets
(``nr.TARGETS``) as the checker improves.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]

# Guards on the real set: (figure, comparison, bound). Tighten, never loosen without a
# written reason; issue 27's targets are in nr.TARGETS.
GUARDS: tuple[tuple[str, str, float], ...] = (
    ("error_precision", ">=", 0.95),
    ("warning_precision", ">=", 0.80),
    ("before_recall", ">=", 0.85),
    ("after_errors", "<=", 0),
    ("after_warning_share", "<=", 0.02),
    ("skip_share", "<=", 0.10),
)
MIN_LABEL_ROWS = 233
"""Rows in real_labels.tsv today (findings labelled plus wrong lines)."""


def _load_harness() -> ModuleType:
    name = "napkin_real"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, ROOT / "bench" / "napkin_real.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


nr = _load_harness()


def _realdata() -> Path:
    path = nr.realdata_dir()
    if not (path / nr.VAULT / "questions").is_dir():
        pytest.skip(f"no real data at {path} (../shared/realdata/staffml); set SYSDRILL_REALDATA")
    return Path(path)


# -- the labels file ------------------------------------------------------------------


def test_labels_file_is_well_formed() -> None:
    labels = nr.load_labels(nr.LABELS_PATH)
    assert len(labels) >= MIN_LABEL_ROWS
    assert nr.label_problems(labels) == []
    assert {label.verdict for label in labels} <= set(nr.VERDICTS)
    assert any(label.rule == nr.LINE_RULE for label in labels)


def test_labels_quote_no_long_third_party_text() -> None:
    # Recomputations are our own words: short, and the message-matching field stays a
    # handful of characters.
    for label in nr.load_labels(nr.LABELS_PATH):
        assert len(label.recomputation) <= 200, label
        assert len(label.match) <= 20, label


def test_every_labelled_file_and_line_exists_in_the_real_data() -> None:
    realdata = _realdata()
    assert nr.label_problems(nr.load_labels(nr.LABELS_PATH), realdata) == []


def test_label_problems_names_each_fault(tmp_path: Path) -> None:
    def label(source: str, line: int, rule: str, verdict: str, match: str = "") -> Any:
        return nr.Label(source, line, rule, verdict, match, "2 * 3 = 6, line right")

    labels = [
        label("questions/a.yaml", 3, "napkin-arithmetic", "false-alarm"),
        label("questions/a.yaml", 3, "napkin-arithmetic", "real-error"),
        label("questions/a.yaml", 4, "napkin-markers", "false-alarm"),
        label("questions/a.yaml", 5, "napkin-units", "maybe"),
        label("x.json#id:napkin_math", 1, "line", "false-alarm"),
        nr.Label("questions/a.yaml", 6, "napkin-units", "debatable", "", "short"),
    ]
    assert nr.label_problems(labels) == [
        "questions/a.yaml:3: napkin-arithmetic '' labelled twice",
        "questions/a.yaml:4: unknown rule 'napkin-markers'",
        "questions/a.yaml:5: unknown verdict 'maybe'",
        "x.json#id:napkin_math:1: a line row is always real-error",
        "questions/a.yaml:6: the recomputation is missing or too short",
    ]
    vault = tmp_path / nr.VAULT / "questions"
    vault.mkdir(parents=True)
    (vault / "a.yaml").write_text("one\ntwo\n", "utf-8")
    assert nr.label_problems(
        [label("questions/a.yaml", 3, "napkin-units", "debatable")], tmp_path
    ) == ["questions/a.yaml:3: past the end of the file"]
    assert nr.label_problems(
        [label("questions/b.yaml", 1, "napkin-units", "debatable")], tmp_path
    ) == ["questions/b.yaml:1: no such vault file"]


def test_load_labels_rejects_a_bad_header_a_short_row_and_a_bad_line(tmp_path: Path) -> None:
    header = "\t".join(nr.LABEL_FIELDS)
    cases = {
        "header.tsv": ("# c\nsource\tline\n", "header"),
        "short.tsv": (f"{header}\nquestions/a.yaml\t3\tline\n", "short.tsv:2: 3 fields"),
        "line.tsv": (f"{header}\nq.yaml\tx\tline\treal-error\t\tsome text here\n", "not a number"),
    }
    for name, (text, message) in cases.items():
        path = tmp_path / name
        path.write_text(text, "utf-8")
        with pytest.raises(nr.LabelError, match=message):
            nr.load_labels(path)


# -- line rules -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("- 2 * 3 = 6 ms", True),
        ("total ≈ 40 GB / 8 GB → 5 GPUs", True),
        ("5 MB -> 50 KB", False),
        ("TTFT = 250 ms, TPOT = 10 ms", False),
        ("FP16 max value = 65,504", False),
        ("about ~140 GB at 8 GPUs", False),
        ("(Ridge point = 295 FLOPs/byte)", False),
        ("arrives at t=0 and 4 more", False),
        ("2 x 3 ~ 6", True),
        ("$2 \\approx 2$ from 1 + 1", True),
        ("batch = 32", False),
        ("Let B = 32", False),
        ("no numbers = none", False),
        ("3 GPUs, 4 nodes", False),
    ],
)
def test_claim_looking_needs_a_relation_with_digits_on_both_sides(
    line: str, expected: bool
) -> None:
    assert nr.is_claim_looking(line) is expected


def test_segment_field_cuts_at_breaks_and_sentence_ends_keeping_list_numbers() -> None:
    text = "1. **Size:** 2 * 3 = 6 GB. Fits in 8 GB. 2. **Time:** 6 / 2 = 3 s.\nDone e.g. now."
    assert nr.segment_field(text) == [
        "1. **Size:** 2 * 3 = 6 GB.",
        "Fits in 8 GB.",
        "2. **Time:** 6 / 2 = 3 s.",
        "Done e.g. now.",
    ]


# -- the harness on a fixture of our own ----------------------------------------------

_ITEM = """\
schema_version: '1.0'
id: cloud-0199
format: flashcard
track: cloud
level: L1
zone: recall
topic: data-parallelism
competency_area: parallelism
title: A tiny item for the harness
scenario: Eight GPUs hold a model.
question: How much memory do they hold together?
details:
  realistic_solution: Eight cards of 80 GB hold 640 GB.
  napkin_math: |
    8 * 80 GB = 600 GB
    100 MB / (50 GB/s) = 2 ms
    version 2 = 3 + y apples
status: published
provenance: human
"""


def _fixture(tmp_path: Path) -> tuple[Path, Path]:
    realdata = tmp_path / "staffml"
    folder = realdata / nr.VAULT / "questions" / "cloud"
    folder.mkdir(parents=True)
    (folder / "cloud-0199.yaml").write_text(_ITEM, "utf-8")
    batches = realdata / nr.BATCH_DIR
    batches.mkdir(parents=True)
    for name in nr.BATCHES:
        before = [
            {
                "id": "t1",
                "napkin_math": "4 * 5 = 21 W. Then 2 + 2 = 4 W. Eight 80 GB cards hold 600 GB.",
                "realistic_solution": "Fine.",
            }
        ]
        fixed = "4 * 5 = 20 W. Then 2 + 2 = 4 W. Eight 80 GB cards hold 640 GB."
        after = [{"id": "t1", "fixes": {"napkin_math": fixed}}]
        (batches / f"{name}.json").write_text(json.dumps(before), "utf-8")
        (batches / f"{name}_corrected.json").write_text(json.dumps(after), "utf-8")
    header = "\t".join(nr.LABEL_FIELDS)
    wrong = "4 * 5 = 20 W, not 21"
    rows = [
        "questions/cloud/cloud-0199.yaml\t15\tnapkin-arithmetic\treal-error\t\t8 * 80 GB = 640 GB",
        *(f"{name}.json#t1:napkin_math\t1\tline\treal-error\t\t{wrong}" for name in nr.BATCHES),
        *(
            f"{name}.json#t1:napkin_math\t3\tline-unwritten\treal-error\t\t8 * 80 GB = 640 GB"
            for name in nr.BATCHES
        ),
        *(
            f"{name}.json#t1:napkin_math\t1\tnapkin-arithmetic\treal-error\t\t{wrong}"
            for name in nr.BATCHES
        ),
    ]
    labels = tmp_path / "labels.tsv"
    labels.write_text(header + "\n" + "\n".join(rows) + "\n", "utf-8")
    return realdata, labels


def test_harness_scores_a_fixture_of_our_own(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    realdata, labels = _fixture(tmp_path)
    monkeypatch.setenv(nr.REALDATA_ENV, str(realdata))
    assert nr.label_problems(nr.load_labels(labels), realdata) == []
    report = tmp_path / "report.md"
    assert nr.main(["--json", "--labels", str(labels), "--report", str(report)]) == 0
    data = json.loads(capsys.readouterr().out)
    targets = data["targets"]
    assert targets["error_precision"]["value"] == 1.0
    assert targets["before_recall"]["value"] == 1.0
    assert targets["after_errors"]["value"] == 0
    assert targets["after_errors"]["met"] is True
    assert data["vault"]["errors"]["real_error"] == 1
    assert data["vault"]["claim_looking_lines"] == 3
    # The unwritten product is wrong but outside the recall target; it shows apart.
    assert data["batches"]["before_wrong_lines"] == 2
    assert data["batches"]["before_unwritten_lines"] == 2
    assert data["batches"]["before_recall_all"] == 0.5
    assert len(data["batches"]["before_unwritten_missed"]) == 2
    assert data["unlabelled"] == []
    table = report.read_text("utf-8")
    assert "| questions/cloud/cloud-0199.yaml | 15 | napkin-arithmetic |" in table
    assert "640" in table and "600" in table


def test_verbose_output_lists_skips_and_targets(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    realdata, labels = _fixture(tmp_path)
    monkeypatch.setenv(nr.REALDATA_ENV, str(realdata))
    assert nr.main(["--verbose", "--labels", str(labels)]) == 0
    out = capsys.readouterr().out
    assert "-- skipped lines" in out
    assert "questions/cloud/cloud-0199.yaml:" in out
    for name in nr.TARGETS:
        assert name in out


def test_a_missing_real_data_folder_is_one_error_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv(nr.REALDATA_ENV, str(tmp_path / "nowhere"))
    assert nr.main([]) == 1
    err = capsys.readouterr().err
    assert err.startswith("Error: no real data at ") and err.count("\n") == 1


# -- the real set ---------------------------------------------------------------------


@pytest.fixture(scope="module")
def real_score() -> dict[str, Any]:
    realdata = _realdata()
    run, _ = nr.measure(realdata)
    scored: dict[str, Any] = nr.score(run, nr.load_labels(nr.LABELS_PATH))
    return scored


def test_every_default_visible_finding_on_the_real_set_is_labelled(
    real_score: dict[str, Any],
) -> None:
    missing = [
        f"{h['source']}:{h['line']} {h['rule']}: {h['message']}" for h in real_score["unlabelled"]
    ]
    assert missing == [], "label these in tests/data/napkin/real_labels.tsv"


@pytest.mark.parametrize(("figure", "op", "bound"), GUARDS)
def test_real_set_figures_hold(
    real_score: dict[str, Any], figure: str, op: str, bound: float
) -> None:
    value = real_score["targets"][figure]["value"]
    if value is None:
        # No finding of that severity at all: no false alarm either, so the share holds.
        assert real_score["targets"][figure]["met"], figure
        return
    assert (value >= bound) if op == ">=" else (value <= bound), f"{figure} = {value}"
