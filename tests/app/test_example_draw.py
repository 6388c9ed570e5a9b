"""Outside sessions a parametric item shows one fixed draw: show, search, exports."""

from __future__ import annotations

import csv
import json
import re
import shutil
from pathlib import Path

import pytest

from sysdrill.app.example_draw import EXAMPLE_SEED, example_draw, shown_item
from sysdrill.content.loader import load_vault
from sysdrill.napkin.templates import draw_template

STARTER = Path(__file__).resolve().parents[2] / "src/sysdrill/content/starter_vault"
TEMPLATE = "cloud-4000"
PLAIN = "cloud-0102"
PLACEHOLDER = re.compile(r"\{[a-z_][a-z0-9_]*\}")


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    """A vault with one template and one plain item from the starter vault."""
    root = tmp_path / "vault"
    (root / "questions" / "cloud").mkdir(parents=True)
    shutil.copy(STARTER / "taxonomy.yaml", root / "taxonomy.yaml")
    for item_id in (TEMPLATE, PLAIN):
        shutil.copy(STARTER / f"questions/cloud/{item_id}.yaml", root / "questions" / "cloud")
    return root


def test_a_template_is_shown_with_the_draw_of_the_example_seed(vault: Path) -> None:
    items = {f.item.id: f.item for f in load_vault(vault).files if f.item is not None}
    template = items[TEMPLATE]
    shown = shown_item(template)
    assert shown.scenario == draw_template(template, EXAMPLE_SEED).item.scenario
    assert PLACEHOLDER.search(template.scenario or "")
    assert not PLACEHOLDER.search(shown.scenario or "")
    assert not shown.is_template


def test_a_plain_item_is_shown_as_it_is(vault: Path) -> None:
    items = {f.item.id: f.item for f in load_vault(vault).files if f.item is not None}
    assert shown_item(items[PLAIN]) is items[PLAIN]
    assert example_draw(items[PLAIN]) is None


def test_show_prints_the_example_numbers_and_says_they_change(run_cli, vault: Path) -> None:
    result = run_cli("show", TEMPLATE, "--vault", str(vault))
    assert result.exit_code == 0, result.stderr
    assert "practice draws new numbers each session" in result.stdout
    assert not PLACEHOLDER.search(result.stdout)


def test_show_json_keeps_the_template_and_adds_the_example(run_cli, vault: Path) -> None:
    result = run_cli("show", TEMPLATE, "--vault", str(vault), "--json")
    assert result.exit_code == 0, result.stderr
    shown = json.loads(result.stdout)
    assert PLACEHOLDER.search(shown["item"]["scenario"])
    assert shown["example"]["seed"] == EXAMPLE_SEED
    assert not PLACEHOLDER.search(shown["example"]["item"]["scenario"])
    assert set(shown["example"]["values"]) >= set(shown["item"]["parameters"])


def test_search_snippets_show_numbers_not_placeholders(run_cli, vault: Path) -> None:
    result = run_cli("search", "all-reduce", "--vault", str(vault), "--json")
    assert result.exit_code == 0, result.stderr
    hits = {hit["id"]: hit for hit in json.loads(result.stdout)}
    assert "over 8 GPUs" in hits[TEMPLATE]["snippet"]
    assert not PLACEHOLDER.search(json.dumps(hits[TEMPLATE]))


def test_csv_export_shows_the_example_and_json_keeps_the_template(
    run_cli, vault: Path, tmp_path: Path
) -> None:
    assert run_cli("export", str(vault), "-o", str(tmp_path / "out.csv")).exit_code == 0
    with (tmp_path / "out.csv").open(encoding="utf-8", newline="") as handle:
        records = list(csv.DictReader(handle))
    # The `item` column carries the whole item for a re-import (the template itself);
    # the columns a person reads show the drawn example.
    rows = [[cell for name, cell in record.items() if name != "item"] for record in records]
    assert any(TEMPLATE in cell for row in rows for cell in row)
    assert not any(PLACEHOLDER.search(cell) for row in rows for cell in row)
    assert all(PLACEHOLDER.search(record["item"]) for record in records if TEMPLATE in record["id"])
    assert run_cli("export", str(vault), "-o", str(tmp_path / "out.json")).exit_code == 0
    exported = (tmp_path / "out.json").read_text(encoding="utf-8")
    assert PLACEHOLDER.search(exported) and '"parameters"' in exported
