"""Load a vault folder: item YAML files, taxonomy, chains and decks.

Loading never raises on bad content: every problem becomes a
:class:`~sysdrill.content.diagnostics.Finding`, so ``check`` can report all of
them at once. Only a vault path that does not exist raises
:class:`~sysdrill.errors.VaultNotFound`.

Line numbers are found lazily: the fast path reads each file with libyaml into
plain Python objects, and :func:`locate` re-reads a file as a node tree only
when a finding needs the line of a field.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from sysdrill.content.collections import Chain, ChainsFile, Deck, DecksFile, Taxonomy
from sysdrill.content.diagnostics import Finding, Severity
from sysdrill.content.models import Item, validate_item
from sysdrill.errors import VaultNotFound

__all__ = [
    "MAX_FILE_BYTES",
    "ItemFile",
    "Vault",
    "iter_item_paths",
    "load_item_file",
    "load_vault",
    "locate",
]

MAX_FILE_BYTES = 256 * 1024
"""Largest item file read, in bytes; larger files get a ``file-too-large`` finding."""

try:
    _Loader: Any = yaml.CSafeLoader
except AttributeError:  # pragma: no cover - PyYAML built without libyaml
    _Loader = yaml.SafeLoader


@dataclass(slots=True)
class ItemFile:
    """One item file as loaded: its raw mapping, the validated item, and findings."""

    path: Path
    rel: str
    """Path relative to the vault root, with forward slashes (used in findings)."""
    raw: Any = None
    item: Item | None = None
    findings: list[Finding] = field(default_factory=list)


@dataclass(slots=True)
class Vault:
    """A loaded vault. Items that failed validation are in ``files`` but not ``items``."""

    root: Path
    files: list[ItemFile] = field(default_factory=list)
    taxonomy: Taxonomy | None = None
    chains: list[Chain] = field(default_factory=list)
    decks: list[Deck] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    """Findings about the vault's shared files (taxonomy, chains, decks)."""

    @property
    def items(self) -> list[Item]:
        """Every item that validated, in path order."""
        return [f.item for f in self.files if f.item is not None]

    def all_findings(self) -> list[Finding]:
        """Loader findings of every file, then of the shared files."""
        found = [finding for f in self.files for finding in f.findings]
        return found + self.findings


def iter_item_paths(root: Path) -> list[Path]:
    """Item files below ``root/questions`` (``*.yaml`` and ``*.yml``), sorted."""
    questions = root / "questions"
    if not questions.is_dir():
        return []
    paths = [p for p in questions.rglob("*") if p.suffix in (".yaml", ".yml") and p.is_file()]
    return sorted(paths)


def _finding(
    code: str, rel: str, message: str, fix: str, *, line: int = 0, column: int = 0
) -> Finding:
    return Finding(code, Severity.ERROR, rel, line, column, message, fix)


def _read_yaml(path: Path, rel: str) -> tuple[Any, list[Finding]]:
    """Read one YAML file into Python objects, turning every failure into a finding."""
    try:
        size = path.stat().st_size
    except OSError as exc:
        return None, [_finding("io", rel, f"cannot read file: {exc.strerror}", "check permissions")]
    if size > MAX_FILE_BYTES:
        return None, [
            _finding(
                "file-too-large",
                rel,
                f"file is {size} bytes, more than the {MAX_FILE_BYTES} allowed",
                "split it or remove what does not belong in one item",
            )
        ]
    data = path.read_bytes()
    if b"\x00" in data:
        return None, [
            _finding("yaml-syntax", rel, "file is binary, not YAML text", "remove the file")
        ]
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        return None, [
            _finding(
                "yaml-syntax",
                rel,
                f"bytes at offset {exc.start} are not UTF-8",
                "save the file as UTF-8",
                line=line,
                column=1,
            )
        ]
    try:
        return yaml.load(text, Loader=_Loader), []  # noqa: S506 - safe loader
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark else 0
        column = mark.column + 1 if mark else 0
        problem = exc.problem or "invalid YAML"
        return None, [
            _finding(
                "yaml-syntax",
                rel,
                f"invalid YAML: {problem}",
                "fix the YAML syntax at this position",
                line=line,
                column=column,
            )
        ]
    except (yaml.YAMLError, RecursionError) as exc:
        return None, [
            _finding("yaml-syntax", rel, f"invalid YAML: {exc}", "simplify the YAML structure")
        ]


def locate(path: Path, loc: Sequence[str | int]) -> tuple[int, int]:
    """Find the 1-based line and column of a field path in a YAML file.

    Falls back to the nearest existing parent (a missing field reports the line
    of its parent mapping), and to (1, 1) when the file cannot be read.
    """
    try:
        node = yaml.compose(path.read_text("utf-8"), Loader=_Loader)
    except (OSError, UnicodeDecodeError, yaml.YAMLError, RecursionError):
        return 1, 1
    if node is None:
        return 1, 1
    best = node.start_mark
    for part in loc:
        child = None
        if isinstance(node, yaml.MappingNode):
            for key_node, value_node in node.value:
                if key_node.value == str(part):
                    best = key_node.start_mark
                    child = value_node
                    break
        elif isinstance(node, yaml.SequenceNode) and isinstance(part, int):
            if 0 <= part < len(node.value):
                child = node.value[part]
                best = child.start_mark
        if child is None:
            break
        node = child
    return best.line + 1, best.column + 1


def _schema_findings(path: Path, rel: str, exc: ValidationError) -> list[Finding]:
    found = []
    for error in exc.errors():
        loc = tuple(error["loc"])
        line, column = locate(path, loc)
        dotted = ".".join(str(part) for part in loc) or "(top level)"
        found.append(
            _finding(
                "schema",
                rel,
                f"{dotted}: {error['msg']}",
                "see docs/vault-format.md for the field's allowed values",
                line=line,
                column=column,
            )
        )
    return found


def load_item_file(path: Path, root: Path) -> ItemFile:
    """Read and validate one item file; problems become findings, never exceptions."""
    rel = path.relative_to(root).as_posix() if path.is_relative_to(root) else str(path)
    raw, findings = _read_yaml(path, rel)
    loaded = ItemFile(path=path, rel=rel, raw=raw, findings=findings)
    if findings:
        return loaded
    if not isinstance(raw, dict):
        shape = "empty" if raw is None else f"a {type(raw).__name__}"
        loaded.findings.append(
            _finding(
                "schema",
                rel,
                f"top level is {shape}, not a mapping of fields",
                "write one item as `key: value` lines",
                line=1,
                column=1,
            )
        )
        return loaded
    try:
        loaded.item = validate_item(raw)
    except ValidationError as exc:
        loaded.findings.extend(_schema_findings(path, rel, exc))
    return loaded


def _load_shared(root: Path, name: str, model: Any, findings: list[Finding]) -> Any:
    path = root / name
    if not path.is_file():
        return None
    raw, problems = _read_yaml(path, name)
    findings.extend(problems)
    if problems:
        return None
    try:
        return model.model_validate(raw or {})
    except ValidationError as exc:
        findings.extend(_schema_findings(path, name, exc))
        return None


def load_vault(root: Path, *, paths: Iterable[Path] | None = None) -> Vault:
    """Load every item file and the shared files of a vault.

    Args:
        root: The vault folder (holding ``questions/``).
        paths: Item files to load instead of scanning ``questions/``.

    Returns:
        The loaded vault; problems are findings on it, never exceptions.

    Raises:
        VaultNotFound: If ``root`` does not exist or is not a folder.
    """
    if not root.exists():
        raise VaultNotFound(f"vault '{root}' does not exist; pass an existing vault folder")
    if not root.is_dir():
        raise VaultNotFound(f"vault '{root}' is not a folder; pass the folder holding questions/")
    vault = Vault(root=root)
    for path in iter_item_paths(root) if paths is None else paths:
        vault.files.append(load_item_file(path, root))
    vault.taxonomy = _load_shared(root, "taxonomy.yaml", Taxonomy, vault.findings)
    chains = _load_shared(root, "chains.yaml", ChainsFile, vault.findings)
    vault.chains = chains.chains if chains else []
    decks = _load_shared(root, "decks.yaml", DecksFile, vault.findings)
    vault.decks = decks.decks if decks else []
    return vault
