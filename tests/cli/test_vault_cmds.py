from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sysdrill.content.sample import sample_vault_path

SAMPLE = str(sample_vault_path())
"""The 12-item sample vault these tests count and search (the default is the starter vault)."""


@pytest.fixture(autouse=True)
def cache_dir(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    folder = tmp_path / "cache"
    monkeypatch.setenv("SYSDRILL_CACHE_DIR", str(folder))
    return folder


def test_build_reports_items_and_release_hash(run_cli, tmp_path: Path) -> None:
    out = tmp_path / "vault.db"
    result = run_cli("build", SAMPLE, "--out", str(out))
    assert result.exit_code == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == (
        f"Built {out}: 12 items (12 published); parsed 12 files, reused 0, removed 0."
    )
    assert lines[1].startswith("Release hash: ") and len(lines[1]) == len("Release hash: ") + 64
    assert out.is_file()


def test_build_again_says_up_to_date(run_cli, tmp_path: Path) -> None:
    out = tmp_path / "vault.db"
    run_cli("build", SAMPLE, "--out", str(out))
    result = run_cli("build", SAMPLE, "--out", str(out))
    assert result.exit_code == 0
    assert result.stdout.splitlines()[0] == f"{out} is up to date: 12 items, nothing changed."


def test_build_quiet_prints_nothing_and_builds(run_cli, tmp_path: Path) -> None:
    out = tmp_path / "vault.db"
    result = run_cli("build", SAMPLE, "--out", str(out), "--quiet")
    assert (result.exit_code, result.stdout, result.stderr) == (0, "", "")
    assert out.is_file()


def test_build_quiet_still_prints_an_error(run_cli, tmp_path: Path) -> None:
    missing = tmp_path / "nope"
    result = run_cli("build", str(missing), "--out", str(tmp_path / "x.db"), "-q")
    assert (result.exit_code, result.stdout) == (1, "")
    assert result.stderr.startswith(f"Error: vault '{missing}' does not exist")


def test_build_json_report(run_cli, sample_vault_copy: Path, tmp_path: Path) -> None:
    out = tmp_path / "vault.db"
    result = run_cli("build", str(sample_vault_copy), "--out", str(out), "--json")
    assert result.exit_code == 0
    report = json.loads(result.stdout)
    assert report["items"] == 12 and report["parsed"] == 12 and report["up_to_date"] is False
    assert len(report["release_hash"]) == 64


def test_build_of_missing_vault_is_an_error(run_cli, tmp_path: Path) -> None:
    missing = tmp_path / "nope"
    result = run_cli("build", str(missing), "--out", str(tmp_path / "x.db"))
    assert result.exit_code == 1
    assert result.stderr.strip() == (
        f"Error: vault '{missing}' does not exist or is not a folder; pass a vault folder"
    )


def test_build_refuses_a_vault_with_errors(
    run_cli, sample_vault_copy: Path, tmp_path: Path
) -> None:
    path = sample_vault_copy / "questions/cloud/cloud-0102.yaml"
    path.write_text(path.read_text("utf-8").replace("zone: fluency", "zone: nowhere"), "utf-8")
    out = tmp_path / "x.db"
    result = run_cli("build", str(sample_vault_copy), "--out", str(out))
    assert result.exit_code == 1
    error = result.stderr.strip()
    assert error.startswith(
        "Error: the vault has 1 error finding(s), first questions/cloud/cloud-0102.yaml:"
    )
    assert error.endswith(f"run `sysdrill check {sample_vault_copy}` and fix them before building")
    assert len(result.stderr.strip().splitlines()) == 1
    assert not out.exists()


def test_search_leaves_out_an_item_file_that_does_not_load_and_runs_no_audit(
    run_cli, sample_vault_copy: Path, tmp_path: Path
) -> None:
    # As show, stats and practice leave such a file out; a search answers without
    # a `check` of every item, which after an import of 100,000 cards costs 15 s.
    path = sample_vault_copy / "questions/cloud/cloud-0102.yaml"
    good = path.read_text("utf-8")
    path.write_text(good.replace("zone: fluency", "zone: nowhere"), "utf-8")
    vault = str(sample_vault_copy)
    broken = run_cli("search", "gradient sync", "--vault", vault, "--json")
    assert broken.exit_code == 0, broken.stderr
    assert "cloud-0102" not in [hit["id"] for hit in json.loads(broken.stdout)]
    assert list((tmp_path / "cache").glob("check-*")) == []
    path.write_text(good, "utf-8")
    mended = run_cli("search", "gradient sync", "--vault", vault, "--json")
    assert "cloud-0102" in [hit["id"] for hit in json.loads(mended.stdout)]


def test_search_finds_items_by_words(run_cli) -> None:
    result = run_cli("search", "bubble", "--vault", SAMPLE)
    assert result.exit_code == 0, result.stderr
    assert "cloud-0104" in result.stdout
    assert result.stdout.rstrip().endswith("1 result.")


def test_search_json_lists_hits_best_first(run_cli) -> None:
    result = run_cli("search", "pipeline", "--json", "--vault", SAMPLE)
    hits = json.loads(result.stdout)
    assert hits[0]["id"] == "cloud-0104"
    assert set(hits[0]) == {
        "id",
        "title",
        "track",
        "level",
        "topic",
        "kind",
        "status",
        "snippet",
        "score",
    }


def test_search_filters_by_track_level_and_topic(run_cli) -> None:
    edge = json.loads(run_cli("search", "", "--track", "edge", "--json", "--vault", SAMPLE).stdout)
    assert [hit["id"] for hit in edge] == ["edge-0101", "edge-0102"]
    top = json.loads(run_cli("search", "", "--level", "L6+", "--json", "--vault", SAMPLE).stdout)
    assert [hit["id"] for hit in top] == ["cloud-0106"]
    topic = json.loads(
        run_cli("search", "", "--topic", "checkpointing", "--json", "--vault", SAMPLE).stdout
    )
    assert [hit["id"] for hit in topic] == ["global-0101", "global-0102"]


def test_search_with_no_match_says_so(run_cli) -> None:
    result = run_cli("search", "zebra")
    assert result.exit_code == 0
    assert result.stdout.strip() == "No items match 'zebra'."


@pytest.mark.parametrize("query", ['"unterminated', "NEAR(", "AND", "*", "title:", "[x]"])
def test_search_survives_fts_syntax(run_cli, query: str) -> None:
    result = run_cli("search", query)
    assert result.exit_code == 0
    assert result.stderr == ""


def test_search_rejects_unknown_track_and_zero_limit(run_cli) -> None:
    assert run_cli("search", "x", "--track", "moon").exit_code == 2
    assert run_cli("search", "x", "--limit", "0").exit_code == 2


def test_search_rejects_vault_and_db_together(run_cli, tmp_path: Path) -> None:
    result = run_cli("search", "x", "--vault", str(sample_vault_path()), "--db", "a.db")
    assert result.exit_code == 2
    assert "give --vault or --db, not both" in result.stderr


def test_search_reads_a_built_database(run_cli, tmp_path: Path) -> None:
    out = tmp_path / "vault.db"
    run_cli("build", "--out", str(out))
    result = run_cli("search", "roofline", "--db", str(out), "--json")
    assert "edge-0102" in [hit["id"] for hit in json.loads(result.stdout)]


def test_search_with_missing_database_is_an_error(run_cli, tmp_path: Path) -> None:
    missing = tmp_path / "missing.db"
    result = run_cli("search", "x", "--db", str(missing))
    assert result.exit_code == 1
    assert result.stderr.strip() == (
        f"Error: no compiled vault at '{missing}'; run `sysdrill build` first"
    )


def test_search_sees_edits_to_the_vault(run_cli, sample_vault_copy: Path) -> None:
    vault = str(sample_vault_copy)
    assert json.loads(run_cli("search", "zebra", "--vault", vault, "--json").stdout) == []
    path = sample_vault_copy / "questions/tinyml/tinyml-0101.yaml"
    path.write_text(path.read_text("utf-8").replace("keyword-spotting", "zebra-spotting"))
    hits = json.loads(run_cli("search", "zebra", "--vault", vault, "--json").stdout)
    assert [hit["id"] for hit in hits] == ["tinyml-0101"]


def test_show_renders_item_with_options_and_markers(run_cli) -> None:
    result = run_cli("show", "cloud-0103")
    assert result.exit_code == 0, result.stderr
    out = result.stdout
    assert "Choosing the ZeRO Stage for a 7B Model on 80 GB GPUs" in out
    assert "B. ZeRO stage 2 (optimizer state and gradients sharded) (correct)" in out
    assert "The Pitfall:" in out and "Calculations:" in out
    assert "questions/cloud/cloud-0103.yaml  content hash " in out


def test_show_renders_numeric_answer_and_parts(run_cli) -> None:
    numeric = run_cli("show", "edge-0101").stdout
    assert "Expected answer 128 KiB (within 5 % of it: 121.6 to 134.4 KiB)" in numeric
    exercise = run_cli("show", "global-0102").stdout
    assert "Part (a)" in exercise and "Answer: About 48.8 hours" in exercise


def test_show_json_has_item_path_and_hash(run_cli) -> None:
    data = json.loads(run_cli("show", "edge-0101", "--json").stdout)
    assert data["id"] == "edge-0101"
    assert data["path"] == "questions/edge/edge-0101.yaml"
    assert len(data["content_hash"]) == 64
    assert data["item"]["answer_unit"] == "KiB"


def test_show_unknown_id_is_an_error(run_cli) -> None:
    result = run_cli("show", "nope-1")
    assert result.exit_code == 1
    assert result.stdout == ""
    assert result.stderr == "Error: no item with id 'nope-1'; find ids with `sysdrill search`\n"


def test_stats_prints_total_and_tables(run_cli) -> None:
    result = run_cli("stats", "--vault", SAMPLE)
    assert result.exit_code == 0, result.stderr
    assert result.stdout.startswith("12 items  (release ")
    for title in ("Track x level", "Zone", "Competency area", "Status", "Kind"):
        assert title in result.stdout


def test_stats_json_counts(run_cli) -> None:
    data = json.loads(run_cli("stats", "--json", "--vault", SAMPLE).stdout)
    assert data["total"] == 12
    assert data["by_track_level"]["edge"] == {"L2": 1, "L3": 1}
    assert data["by_kind"]["question"] == 8
    assert data["by_status"] == {"published": 12}
    assert len(data["release_hash"]) == 64


def test_stats_of_missing_vault_is_an_error(run_cli, tmp_path: Path) -> None:
    missing = tmp_path / "nope"
    result = run_cli("stats", "--vault", str(missing))
    assert result.exit_code == 1
    assert result.stderr.startswith(f"Error: vault '{missing}' does not exist")


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(query=st.text(max_size=40))
def test_search_command_never_tracebacks(run_cli, query: str) -> None:
    result = run_cli("search", "--", query) if query.startswith("-") else run_cli("search", query)
    assert result.exit_code == 0, result.stderr


_MARKED_UP_ITEM = r"""schema_version: '1.0'
id: cloud-my-0003
format: quiz
track: cloud
level: L2
zone: fluency
topic: data-parallelism
competency_area: parallelism
bloom_level: apply
phase: training
title: Ring **all-reduce** time with $\bar{t}$
question: |
  With `code`, $\min(a, b)$ and \bar{t} = 5 us:

  | GPUs | Bandwidth |
  |------|-----------|
  | 8    | 50 GB/s   |

  How long does $2\frac{N-1}{N} \times M$ take?
details:
  realistic_solution: '**Answer:** $35\ \text{ms}$.'
status: published
provenance: human
answer_value: 35
answer_unit: ms
"""


def _marked_up_vault(run_cli, tmp_path: Path) -> Path:
    vault = tmp_path / "v"
    assert run_cli("init", str(vault)).exit_code == 0
    (vault / "questions" / "cloud-my-0003.yaml").write_text(_MARKED_UP_ITEM, encoding="utf-8")
    return vault


def test_show_and_practice_render_markdown_and_latex_readably(run_cli, tmp_path: Path) -> None:
    vault = _marked_up_vault(run_cli, tmp_path)
    shown = run_cli("show", "cloud-my-0003", "--vault", str(vault))
    practised = run_cli(
        "practice", "--vault", str(vault), "--level", "L2", "--topic", "data-parallelism",
        "--limit", "3", input="skip\n10 ms\n",
    )  # fmt: skip
    for result in (shown, practised):
        assert result.exit_code == 0, result.stderr
        out = result.stdout
        assert "Ring all-reduce time with t̅" in out
        assert "min(a, b)" in out and "2(N-1)/N × M" in out and "t̅ = 5 us" in out
        assert "│ 8    │ 50 GB/s   │" in out
        for raw in ("**", "\\min", "\\bar", "\\frac", "$", "`", "|---"):
            assert raw not in out, raw
    assert " 2. Ring all-reduce time with t̅: graded wrong, rated Again" in practised.stdout
