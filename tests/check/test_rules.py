"""Each rule catches a planted defect at the right line and stays silent on the valid vault."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from sysdrill.check import all_rules, run_check
from sysdrill.content.diagnostics import Severity

ITEM = "questions/cloud/cloud-0001.yaml"

RATIONALE = (
    "    **The Rationale:** A ring all-reduce is a reduce-scatter followed by an all-gather.\n"
)
CONSEQUENCE = "    **The Consequence:** The estimate comes out at half the real time.\n"

# (code, how to plant the defect, expected (path, line) of each finding of that code)
CASES: list[tuple[str, Callable[..., None], list[tuple[str, int]]]] = [
    ("yaml-syntax", lambda v: v.replace_line(5, "zone: [diagnosis"), [(ITEM, 6)]),
    ("yaml-duplicate-key", lambda v: v.replace_line(3, "track: cloud\ntrack: edge"), [(ITEM, 4)]),
    (
        "yaml-duplicate-key",
        lambda v: v.edit("  napkin_math: |", "  common_mistake: again\n  napkin_math: |"),
        [(ITEM, 21)],
    ),
    ("yaml-anchor", lambda v: v.replace_line(9, "phase: &p training"), [(ITEM, 9)]),
    (
        "yaml-anchor",
        lambda v: v.replace_line(9, "phase: &p training\nextra_phase: *p"),
        [(ITEM, 9), (ITEM, 10)],
    ),
    ("file-too-large", lambda v: v.write(ITEM, "a: '" + "x" * 300_000 + "'\n"), [(ITEM, 0)]),
    ("file-not-text", lambda v: v.write(ITEM, b"\x00\x01\x02binary"), [(ITEM, 1)]),
    ("file-not-text", lambda v: v.write(ITEM, b"id: a\ntitle: caf\xe9\n"), [(ITEM, 2)]),
    ("schema", lambda v: v.replace_line(4, "level: L9"), [(ITEM, 4)]),
    ("schema", lambda v: v.replace_line(10, ""), [(ITEM, 1)]),
    ("schema", lambda v: v.write(ITEM, "- just\n- a list\n"), [(ITEM, 1)]),
    ("schema", lambda v: v.write(ITEM, ""), [(ITEM, 1)]),
    (
        "option-parsed-as-mapping",
        lambda v: v.edit(
            "  napkin_math: |",
            "  options:\n    - 'Peak 20 GB'\n    - Peak: 28 GB\n    - 'Peak 40 GB'\n"
            "    - 'Peak 80 GB'\n  correct_index: 1\n  napkin_math: |",
        ),
        [(ITEM, 23)],
    ),
    # Line 31 is the last line of the valid item: fields appended land on 32 and 33.
    (
        "numeric-answer",
        lambda v: v.replace_line(
            31, "created_at: '2026-11-21'\nanswer_value: 3.5\nanswer_unit: furlongs"
        ),
        [(ITEM, 33)],
    ),
    (
        "numeric-answer",
        lambda v: v.replace_line(31, "created_at: '2026-11-21'\nanswer_value: 3.5"),
        [(ITEM, 32)],
    ),
    (
        "numeric-answer",
        lambda v: v.replace_line(31, "created_at: '2026-11-21'\nanswer_unit: ms"),
        [(ITEM, 32)],
    ),
    (
        "template-draw",
        lambda v: v.replace_line(31, "created_at: '2026-11-21'\nanswer_expr: '2 ms'"),
        [(ITEM, 32)],
    ),
    (
        "diagram",
        lambda v: v.replace_line(
            31, "created_at: '2026-11-21'\ndiagram:\n  kind: ring-allreduce\n  params: {ranks: 1}"
        ),
        [(ITEM, 32)],
    ),
    ("id-format", lambda v: v.replace_line(2, "id: cloud_0001"), [(ITEM, 2)]),
    ("id-format", lambda v: v.replace_line(2, "id: edge-0001"), [(ITEM, 2)]),
    (
        "id-matches-filename",
        lambda v: v.write("questions/cloud/cloud-0002.yaml", v.base_text),
        [("questions/cloud/cloud-0002.yaml", 2)],
    ),
    (
        "id-unique",
        lambda v: v.write("questions/cloud/extra/cloud-0001.yaml", v.base_text),
        [(ITEM, 2), ("questions/cloud/extra/cloud-0001.yaml", 2)],
    ),
    (
        "track-matches-folder",
        lambda v: (
            v.write("questions/edge/cloud-0001.yaml", v.base_text),
            (v.root / ITEM).unlink(),
        ),
        [("questions/edge/cloud-0001.yaml", 3)],
    ),
    ("zone-bloom", lambda v: v.replace_line(8, "bloom_level: remember"), [(ITEM, 8)]),
    ("zone-level", lambda v: v.replace_line(4, "level: L1"), [(ITEM, 4)]),
    (
        "question-length",
        lambda v: v.replace_line(12, "question: Estimate the all-reduce time."),
        [(ITEM, 12)],
    ),
    (
        "question-length",
        lambda v: v.replace_line(12, "question: Why " + "very " * 50 + "slow?"),
        [(ITEM, 12)],
    ),
    ("title", lambda v: v.replace_line(10, "title: Question 12"), [(ITEM, 10)]),
    ("title", lambda v: v.replace_line(10, "title: Ring all_reduce time."), [(ITEM, 10)]),
    ("title", lambda v: v.replace_line(10, "title: Time of **one** all-reduce"), [(ITEM, 10)]),
    ("title", lambda v: v.replace_line(10, "title: Cost of $O(n)$ traffic"), [(ITEM, 10)]),
    ("title", lambda v: v.replace_line(10, "title: " + "Long " * 30), [(ITEM, 10)]),
    ("scenario-length", lambda v: v.replace_line(11, "scenario: Eight GPUs."), [(ITEM, 11)]),
    (
        "common-mistake-markers",
        lambda v: v.replace_line(19, ""),
        [(ITEM, 17)],
    ),
    (
        "common-mistake-markers",
        lambda v: v.write(
            ITEM, v.base_text.replace(RATIONALE + CONSEQUENCE, CONSEQUENCE + RATIONALE)
        ),
        [(ITEM, 19)],
    ),
    ("napkin-markers", lambda v: v.replace_line(24, "    **Calculation:**"), [(ITEM, 24)]),
    ("napkin-markers", lambda v: v.replace_line(27, "    Summary"), [(ITEM, 21)]),
    (
        "napkin-markers",
        lambda v: (
            v.replace_line(22, "")
            or v.edit("    **Calculations:**\n", "    **Calculations:**\n    **Assumptions:**\n")
        ),
        [(ITEM, 23)],
    ),
    (
        "mcq",
        lambda v: v.edit(
            "  napkin_math: |",
            "  options:\n    - '10 ms'\n    - '40 ms'\n    - '80 ms'\n  correct_index: 1\n"
            "  napkin_math: |",
        ),
        [(ITEM, 21)],
    ),
    (
        "mcq",
        lambda v: v.edit(
            "  napkin_math: |",
            "  options:\n    - '10 ms'\n    - '40 ms'\n    - '80 ms'\n    - '160 ms'\n"
            "  correct_index: 4\n  napkin_math: |",
        ),
        [(ITEM, 26)],
    ),
    (
        "mcq",
        lambda v: v.edit(
            "  napkin_math: |",
            "  options:\n    - '10 ms'\n    - '40 ms'\n    - '40 ms'\n    - '160 ms'\n"
            "  correct_index: 1\n  napkin_math: |",
        ),
        [(ITEM, 21)],
    ),
    (
        "mcq",
        lambda v: v.edit("  napkin_math: |", "  correct_index: 0\n  napkin_math: |"),
        [(ITEM, 21)],
    ),
    ("napkin-markers", lambda v: v.replace_line(24, "    Working:"), [(ITEM, 21)]),
    ("napkin-markers", lambda v: v.replace_line(22, "    Given:"), [(ITEM, 21)]),
    (
        "mcq",
        lambda v: v.edit(
            "  napkin_math: |",
            "  options:\n    - '10 ms'\n    - 40\n    - '80 ms'\n    - '160 ms'\n"
            "  correct_index: 1\n  napkin_math: |",
        ),
        [(ITEM, 23)],
    ),
    (
        "mcq",
        lambda v: v.edit(
            "  napkin_math: |",
            "  options:\n    - '10 ms'\n    - '40 ms'\n    - '80 ms'\n    - '160 ms'\n"
            "  napkin_math: |",
        ),
        [(ITEM, 21)],
    ),
    (
        "unsafe-markup",
        lambda v: v.replace_line(9, "phase: training\ntags:\n  - safe\n  - 'javascript:alert(1)'"),
        [(ITEM, 12)],
    ),
    (
        "taxonomy-ref-exists",
        lambda v: v.edit(
            "  - id: collectives\n",
            "  - id: collectives\n  - id: collectives\n",
            rel="taxonomy.yaml",
        ),
        [("taxonomy.yaml", 7)],
    ),
    (
        "chain-duplicate",
        lambda v: v.edit(
            "chains:\n",
            "chains:\n  - id: data-parallelism-chain\n    items: [cloud-0001]\n",
            rel="chains.yaml",
        ),
        [("chains.yaml", 4)],
    ),
    (
        "unsafe-markup",
        lambda v: v.edit("or about 40 ms", "or <script>alert(1)</script> about 40 ms"),
        [(ITEM, 16)],
    ),
    (
        "unsafe-markup",
        lambda v: v.replace_line(11, 'scenario: "See <a href=x onclick=steal()>the trace</a>."'),
        [(ITEM, 11)],
    ),
    (
        "resource-url",
        lambda v: v.edit(
            "  napkin_math: |",
            "  resources:\n    - name: Ring all-reduce\n      url: http://example.org/ring\n"
            "  napkin_math: |",
        ),
        [(ITEM, 23)],
    ),
    (
        "unknown-field",
        lambda v: v.replace_line(9, "phase: training\nreviewer_mood: happy"),
        [(ITEM, 10)],
    ),
    (
        "field-misspelt",
        lambda v: v.edit("  napkin_math: |", "  napkin_maths: |"),
        [(ITEM, 21)],
    ),
    (
        "field-misspelt",
        lambda v: v.replace_line(9, "phase: training\nTags: [ring]"),
        [(ITEM, 10)],
    ),
    (
        "kind-field-unused",
        lambda v: v.replace_line(9, "phase: training\nformat: flashcard"),
        [(ITEM, 12), (ITEM, 18), (ITEM, 22)],
    ),
    (
        "answer-missing",
        lambda v: v.write(
            "questions/global/global-q1.yaml",
            "id: global-q1\nformat: quiz\nquestion: What does an all-reduce compute?\n",
        ),
        [("questions/global/global-q1.yaml", 3)],
    ),
    (
        "topic-in-taxonomy",
        lambda v: v.replace_line(6, "topic: tensor-parallelism"),
        [(ITEM, 6)],
    ),
    (
        "taxonomy-acyclic",
        lambda v: v.edit(
            "    description: All-reduce, all-gather and reduce-scatter.",
            "    description: All-reduce, all-gather and reduce-scatter.\n"
            "    prerequisites: [data-parallelism]",
            rel="taxonomy.yaml",
        ),
        [("taxonomy.yaml", 9)],
    ),
    (
        "taxonomy-ref-exists",
        lambda v: v.edit("[collectives]", "[collectives, sharding]", rel="taxonomy.yaml"),
        [("taxonomy.yaml", 5)],
    ),
    (
        "chain-ref-exists",
        lambda v: v.edit(
            "      - cloud-0001\n", "      - cloud-0001\n      - cloud-9999\n", rel="chains.yaml"
        ),
        [("chains.yaml", 6)],
    ),
    (
        "chain-duplicate",
        lambda v: v.edit(
            "      - cloud-0001\n", "      - cloud-0001\n      - cloud-0001\n", rel="chains.yaml"
        ),
        [("chains.yaml", 6)],
    ),
    (
        "chain-levels-monotonic",
        lambda v: (
            v.write(
                "questions/cloud/cloud-0002.yaml",
                v.base_text.replace("cloud-0001", "cloud-0002").replace("level: L3", "level: L2"),
            ),
            v.edit(
                "      - cloud-0001\n",
                "      - cloud-0001\n      - cloud-0002\n",
                rel="chains.yaml",
            ),
        ),
        [("chains.yaml", 6)],
    ),
    (
        "json-syntax",
        lambda v: v.write("chains.json", '[\n  {"chain_id": "json-chain",,}\n]\n'),
        [("chains.json", 2)],
    ),
    (
        "chain-level-mismatch",
        lambda v: v.write(
            "chains.json",
            '[\n  {\n    "chain_id": "json-chain",\n    "questions": [\n'
            '      {"id": "cloud-0001", "level": "L1"}\n    ]\n  }\n]\n',
        ),
        [("chains.json", 5)],
    ),
    (
        "deck-ref-exists",
        lambda v: v.edit(
            "      - cloud-0001\n", "      - cloud-0001\n      - cloud-0404\n", rel="decks.yaml"
        ),
        [("decks.yaml", 6)],
    ),
    (
        "plan-schema",
        lambda v: v.write("plans.yaml", "plans:\n- name: week\n  days: 7\n"),
        [("plans.yaml", 1)],
    ),
    (
        "plan-ref-exists",
        lambda v: v.write(
            "plans.yaml",
            "plans:\n- name: week\n  title: A week\n  days: 7\n  new_per_day: 2\n"
            "  topics: [no-such-topic]\n",
        ),
        [("plans.yaml", 6)],
    ),
    (
        "media-missing",
        lambda v: v.replace_line(
            12, "question: Estimate the all-reduce time in ![](media/0123456789abcdef.png) now."
        ),
        [(ITEM, 12)],
    ),
]


def test_valid_vault_has_no_findings(planted) -> None:
    assert planted.check() == []


@pytest.mark.parametrize(("code", "plant", "expected"), CASES, ids=[c[0] for c in CASES])
def test_rule_reports_planted_defect_at_its_line(planted, code, plant, expected) -> None:
    assert planted.lines_of(code) == []
    plant(planted)
    assert planted.lines_of(code) == expected


def test_every_defined_rule_has_a_planted_case() -> None:
    planted_codes = {case[0] for case in CASES}
    local = {code for code, rule in all_rules().items() if rule.scope != "napkin"}
    # Tested on their own: an unreadable file (test_loader) and a crashing tier (test_runner).
    assert local - planted_codes == {"file-unreadable", "rule-crashed", "vault-layout"}


def test_numeric_answer_accepts_a_gradable_answer(planted) -> None:
    planted.replace_line(
        31, "created_at: '2026-11-21'\nanswer_value: 3.5\nanswer_unit: ms\nanswer_tolerance: 0.02"
    )
    assert planted.lines_of("numeric-answer") == []


def test_findings_carry_the_rule_severity(planted) -> None:
    planted.replace_line(4, "level: L1")
    planted.replace_line(9, "phase: training\nreviewer_mood: happy")
    severities = {f.code: f.severity for f in planted.check()}
    assert severities == {"unknown-field": Severity.INFO}
    planted.replace_line(4, "level: L1")
    assert {f.code: f.severity for f in planted.check()} == {"zone-level": Severity.WARNING}


def test_check_reports_every_problem_of_a_file_at_once(planted) -> None:
    text = (
        planted.base_text.replace("level: L3", "level: L9")
        .replace("phase: training", "phase: never")
        .replace("title: All-Reduce Time for a 1B Model on 8 GPUs", "title: Question 3.")
    )
    planted.write(ITEM, text)
    found = [(f.code, f.line, f.message.split(":")[0]) for f in planted.check()]
    assert ("schema", 4, "level") in found
    assert ("schema", 9, "phase") in found
    assert len([f for f in found if f[0] == "schema"]) == 2


def test_folder_without_questions_is_reported(tmp_path) -> None:
    report = run_check(tmp_path, workers=1)
    assert [(f.code, f.severity, f.path, f.line) for f in report.findings] == [
        ("vault-layout", Severity.WARNING, "questions", 0)
    ]


def test_free_form_napkin_math_is_one_finding_naming_every_missing_header(planted) -> None:
    for header in ("Assumptions & Constraints", "Calculations", "Conclusion & Interpretation"):
        planted.edit(f"    **{header}:**\n", "")

    findings = [f for f in planted.check() if f.code == "napkin-markers"]

    assert [f.message for f in findings] == [
        "napkin_math lacks an **Assumptions...:** header, the **Calculations:** marker "
        "and a **Conclusion...:** header"
    ]


def test_napkin_math_missing_one_header_names_only_that_one(planted) -> None:
    planted.replace_line(27, "")

    findings = [f for f in planted.check() if f.code == "napkin-markers"]

    assert [f.message for f in findings] == ["napkin_math lacks a **Conclusion...:** header"]
