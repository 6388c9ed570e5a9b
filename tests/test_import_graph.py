"""The import graph of src/sysdrill: no cycles, and the layers of docs/architecture.md.

Every ``import`` and ``from ... import`` counts, wherever it is written: at
module level, inside a function, or under ``TYPE_CHECKING``. A function-level
import is still a dependency; it only moves a cycle's failure to run time.
An edge goes to the module named (``from sysdrill.a import b`` names the
module ``sysdrill.a.b`` when there is one, else ``sysdrill.a``), not to the
packages around it, which Python initialises first.

The layer table is read from docs/architecture.md, so the drawing and the
rule cannot drift apart.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SOURCE = ROOT / "src"
PACKAGE = SOURCE / "sysdrill"
ARCHITECTURE = ROOT / "docs" / "architecture.md"


@dataclass(frozen=True, slots=True)
class Edge:
    """One import: ``source`` imports ``target`` at ``line``."""

    source: str
    target: str
    line: int

    def __str__(self) -> str:
        path = module_path(self.source).relative_to(ROOT)
        return f"{self.source} -> {self.target} ({path}:{self.line})"


def module_files() -> dict[str, Path]:
    """Dotted module name -> file, for every module of the package."""
    modules = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = list(path.relative_to(SOURCE).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        modules[".".join(parts)] = path
    return modules


MODULES = module_files()


def module_path(name: str) -> Path:
    return MODULES[name]


def _known(name: str) -> str | None:
    """The innermost module of ours that ``name`` is, or lies in."""
    while name not in MODULES:
        if "." not in name:
            return None
        name = name.rsplit(".", 1)[0]
    return name


def imports_of(name: str) -> list[Edge]:
    """Every import of one module that names a module of ours."""
    path = MODULES[name]
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    edges: list[Edge] = []
    for node in ast.walk(ast.parse(path.read_text("utf-8"), str(path))):
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base_parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*base_parts, *([node.module] if node.module else [])])
            else:
                base = node.module or ""
            targets = [
                f"{base}.{alias.name}" if f"{base}.{alias.name}" in MODULES else base
                for alias in node.names
            ]
        for target in targets:
            known = _known(target)
            if known is not None and known != name:
                edges.append(Edge(name, known, node.lineno))
    return edges


GRAPH: dict[str, list[Edge]] = {name: imports_of(name) for name in MODULES}


def find_cycle(graph: dict[str, list[Edge]]) -> list[Edge] | None:
    """One import cycle as a list of edges, or None when the graph has none."""
    state: dict[str, int] = {}  # 1 on the current path, 2 done
    path: list[Edge] = []

    def visit(node: str) -> list[Edge] | None:
        state[node] = 1
        for edge in graph[node]:
            if state.get(edge.target) == 1:
                start = next(
                    (i for i, step in enumerate(path) if step.source == edge.target), len(path)
                )
                return [*path[start:], edge]
            if edge.target not in state:
                path.append(edge)
                found = visit(edge.target)
                if found is not None:
                    return found
                path.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state:
            found = visit(node)
            if found is not None:
                return found
    return None


def layer_of(name: str) -> str:
    """``sysdrill.study.service`` -> ``study``; ``sysdrill`` (the version) -> ``sysdrill``."""
    parts = name.split(".")
    return parts[1] if len(parts) > 1 else parts[0]


def documented_layers() -> dict[str, set[str]]:
    """The table under "Layers" in docs/architecture.md: layer -> layers it may import."""
    text = ARCHITECTURE.read_text("utf-8")
    section = text.split("\n## Layers\n", 1)[1].split("\n## ", 1)[0]
    table: dict[str, set[str]] = {}
    for row in re.findall(r"^\| `([\w.]+)`[^|]*\| ([^|]*) \|", section, re.MULTILINE):
        layer, allowed = row
        table[layer] = set(re.findall(r"`([\w.]+)`", allowed))
    return table


LAYERS = documented_layers()


def test_cycle_finder_reports_the_cycle() -> None:
    graph = {
        "a": [Edge("a", "b", 1)],
        "b": [Edge("b", "c", 2)],
        "c": [Edge("c", "a", 3), Edge("c", "d", 4)],
        "d": [],
    }
    cycle = find_cycle(graph)
    assert cycle is not None
    assert [(e.source, e.target) for e in cycle] == [("a", "b"), ("b", "c"), ("c", "a")]
    assert find_cycle({"a": [Edge("a", "b", 1)], "b": []}) is None


def test_relative_and_absolute_imports_are_both_edges() -> None:
    # interop/export/__init__.py re-exports with absolute imports; the graph must see them.
    targets = {edge.target for edge in GRAPH["sysdrill.interop.export"]}
    assert {"sysdrill.interop.export.service", "sysdrill.interop.export.cards"} <= targets
    # Function-level imports count: the CLI imports its commands' modules inside functions.
    assert "sysdrill.app.build" in {edge.target for edge in GRAPH["sysdrill.cli.vault_cmds"]}


def test_no_import_cycles() -> None:
    cycle = find_cycle(GRAPH)
    assert cycle is None, "import cycle:\n  " + "\n  ".join(str(edge) for edge in cycle or [])


def test_every_package_has_a_documented_layer() -> None:
    packages = {layer_of(name) for name in MODULES}
    assert packages == set(LAYERS), "docs/architecture.md 'Layers' table is out of step"


def test_documented_layers_form_no_cycle() -> None:
    graph = {
        layer: [Edge(layer, target, 0) for target in sorted(allowed)]
        for layer, allowed in LAYERS.items()
    }
    assert all(target in LAYERS for edges in graph.values() for target in (e.target for e in edges))
    assert find_cycle(graph) is None


@pytest.mark.parametrize("layer", sorted(LAYERS))
def test_layer_imports_only_what_the_table_allows(layer: str) -> None:
    allowed = LAYERS[layer] | {layer}
    wrong = [
        str(edge)
        for name, edges in GRAPH.items()
        if layer_of(name) == layer
        for edge in edges
        if layer_of(edge.target) not in allowed
    ]
    assert wrong == [], f"{layer} may import only {sorted(LAYERS[layer])}:\n  " + "\n  ".join(wrong)


@pytest.mark.parametrize(
    ("importer", "forbidden"),
    [
        ("content", {"check", "napkin", "study", "storage", "interop", "app", "cli", "web"}),
        ("storage", {"check", "app", "cli"}),
        ("check", {"study", "storage", "app", "cli"}),
        ("study", {"storage", "app", "cli"}),
        ("app", {"cli"}),
    ],
)
def test_table_keeps_the_architectural_rules(importer: str, forbidden: set[str]) -> None:
    # A guard on the documented table itself, so a loosened rule is a visible test change.
    assert LAYERS[importer].isdisjoint(forbidden)


def test_nothing_below_the_cli_imports_the_cli() -> None:
    for layer, allowed in LAYERS.items():
        if layer not in {"cli", "__main__"}:
            assert "cli" not in allowed, layer
