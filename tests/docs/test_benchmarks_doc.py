"""docs/benchmarks.md names a committed script for every section, and the scripts exist."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BENCHMARKS = ROOT / "docs" / "benchmarks.md"
_SCRIPT = re.compile(r"(?<![\w/:])bench/[\w-]+\.py")


def _sections() -> dict[str, str]:
    parts = re.split(r"^## (.+)$", BENCHMARKS.read_text("utf-8"), flags=re.M)
    return dict(zip(parts[1::2], parts[2::2], strict=True))


def test_every_bench_script_named_in_the_docs_exists() -> None:
    named = {m for doc in (ROOT / "docs").glob("*.md") for m in _SCRIPT.findall(doc.read_text())}
    assert named
    assert sorted(n for n in named if not (ROOT / n).is_file()) == []


def test_every_bench_script_is_named_on_the_benchmarks_page() -> None:
    named = set(_SCRIPT.findall(BENCHMARKS.read_text("utf-8")))
    scripts = {f"bench/{p.name}" for p in (ROOT / "bench").glob("*.py")}
    assert scripts - named == set()


@pytest.mark.parametrize("title", list(_sections()))
def test_every_section_names_the_command_that_prints_its_figures(title: str) -> None:
    text = _sections()[title]
    assert re.search(r"`(?:python|\.venv/bin/python) bench/[\w-]+\.py[^`]*`", text), title


def _run(*args: str) -> str:
    done = subprocess.run(
        [sys.executable, *args], capture_output=True, text=True, cwd=ROOT, check=False
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.mark.slow
def test_yaml_parsers_bench_reads_every_file_alike() -> None:
    out = _run("bench/yaml_parsers_bench.py", "--count", "20", "--repeat", "1")
    assert re.search(
        r"^yaml_rs \S+ \(the fast road\): same data as libyaml for 20/20 files$", out, re.M
    )
    assert "PyYAML SafeLoader (pure Python): same data as libyaml for 20/20 files" in out
    for row in ("libyaml compose", "validate_item (pydantic)", "SHA-256 of the bytes"):
        assert f"\n{row}" in out


@pytest.mark.slow
def test_markdown_bench_renders_the_exporters_fields() -> None:
    out = _run("bench/markdown_bench.py", "20", "--repeat", "1")
    assert re.search(r"^20 items: \d+ fields rendered by the \.apkg exporter", out, re.M)
    assert "render every field, cmark-gfm (cmarkgfm, shipped): best " in out
