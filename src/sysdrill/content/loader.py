"""Load a vault folder: item YAML files, taxonomy, chains and decks.

Loading never raises on bad content: every problem becomes a
:class:`~sysdrill.content.diagnostics.Finding`, so ``check`` can report all of
them at once. Only a vault path that does not exist raises
:class:`~sysdrill.errors.VaultNotFound`.

Parsing takes two roads. The fast one reads a file with ``yaml_rs`` (a Rust
YAML parser, about eight times faster than libyaml's loader here; see
docs/benchmarks.md), which also rejects duplicate keys. Files that need
libyaml's finer reporting go the careful road: those the fast parser rejects,
and those a cheap text test suspects of anchors, aliases, tags or several
documents. The careful road scans libyaml events (duplicate keys, anchors and
nesting depth, each with its line) and then loads with libyaml, so both roads
give the same data for any file the fast parser accepts.

Line numbers are found lazily: :class:`Locator` re-reads a file as a libyaml
node tree only when a finding needs the line of a field.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from sysdrill.content.cache import CachedFile, VaultCache
from sysdrill.content.collections import Chain, ChainsFile, Deck, DecksFile, Taxonomy
from sysdrill.content.diagnostics import Finding, Severity
from sysdrill.content.models import Item, validate_item
from sysdrill.errors import VaultNotFound

__all__ = [
    "MAX_DEPTH",
    "MAX_FILE_BYTES",
    "ItemFile",
    "Locator",
    "Vault",
    "iter_item_paths",
    "check_vault_root",
    "list_item_files",
    "load_item_file",
    "load_shared_files",
    "load_vault",
    "locate",
    "parse_yaml",
    "read_file",
    "read_item_file",
]

MAX_FILE_BYTES = 256 * 1024
"""Largest item file read, in bytes; larger files get a ``file-too-large`` finding."""

MAX_DEPTH = 50
"""Deepest nesting of mappings and sequences accepted in one file."""

try:
    _Loader: Any = yaml.CSafeLoader
except AttributeError:  # pragma: no cover - PyYAML built without libyaml
    _Loader = yaml.SafeLoader

try:
    import yaml_rs as _yaml_rs

    _FAST_ERRORS: tuple[type[Exception], ...] = (_yaml_rs.YAMLDecodeError, ValueError)
    PARSER = f"yaml_rs {_yaml_rs.__version__}"
    _NO_ALIASES = _yaml_rs.AliasLimits(max_total_replayed_events=0)
except ImportError:  # pragma: no cover - the fast parser is a declared dependency
    _yaml_rs = None
    _FAST_ERRORS = ()
    _NO_ALIASES = None
    PARSER = "libyaml"

# Constructs the fast parser treats differently from libyaml's safe loader, or
# that we reject and must locate: anchors `&a` and tags `!x` (aliases `*a` the
# fast parser is told to reject). YAML reads `&` and `!`
# as syntax only after a space or a flow indicator and before a name, so prose
# such as "Assumptions & Constraints" or "R&D" stays on the fast road. Plain
# `str.find` loops beat a regex here: the characters are rare.
_SYNTAX_BEFORE = frozenset(" \t\n[{,")
_NOT_A_NAME = frozenset(" \t\r\n&!=,[]{}")


def _needs_careful_road(text: str) -> bool:
    for sign in "&!":
        at = text.find(sign)
        while at >= 0:
            after = text[at + 1 : at + 2]
            if (at == 0 or text[at - 1] in _SYNTAX_BEFORE) and after and after not in _NOT_A_NAME:
                return True
            at = text.find(sign, at + 1)
    return False


@dataclass(slots=True)
class ItemFile:
    """One item file as loaded: its raw mapping, the validated item, and findings."""

    path: Path
    rel: str
    """Path relative to the vault root, with forward slashes (used in findings)."""
    raw: Any = None
    """The mapping read from the file (None when it could not be read)."""
    item: Item | None = None
    """The validated item (None when the file has errors that prevent it)."""
    findings: list[Finding] = field(default_factory=list)
    """What the loader found wrong (YAML, size, encoding and schema problems)."""
    digest: str = ""
    """SHA-256 hex digest of the file bytes ("" when the file was not read)."""
    size: int = 0
    """File size in bytes."""
    mtime_ns: int = 0
    """Modification time in nanoseconds since the epoch."""
    text: str | None = None
    """The decoded file text, kept for rules that scan the source (None if not read)."""


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


def _walk(folder: str, out: list[str]) -> None:
    with os.scandir(folder) as entries:
        for entry in entries:
            if entry.is_dir(follow_symlinks=False):
                _walk(entry.path, out)
            elif entry.name.endswith((".yaml", ".yml")) and entry.is_file():
                out.append(entry.path)


def iter_item_paths(root: Path) -> list[Path]:
    """Item files below ``root/questions`` (``*.yaml`` and ``*.yml``), sorted."""
    return [path for path, _ in list_item_files(root)]


def _finding(
    code: str,
    rel: str,
    message: str,
    fix: str,
    *,
    line: int = 0,
    column: int = 0,
    severity: Severity = Severity.ERROR,
) -> Finding:
    return Finding(code, severity, rel, line, column, message, fix)


def _scan_events(text: str, rel: str) -> list[Finding]:
    """Find duplicate keys, anchors, aliases and deep nesting from libyaml events."""
    found: list[Finding] = []
    # One frame per open collection: [is_mapping, expecting_key, keys seen].
    stack: list[list[Any]] = []
    documents = 0
    for event in yaml.parse(text, Loader=_Loader):
        mark = event.start_mark
        anchor = getattr(event, "anchor", None)
        if isinstance(event, yaml.AliasEvent) or anchor:
            sign = "*" if isinstance(event, yaml.AliasEvent) else "&"
            found.append(
                _finding(
                    "yaml-anchor",
                    rel,
                    f"{'alias' if sign == '*' else 'anchor'} {sign}{anchor} is not allowed",
                    "write the value out in full instead of using anchors and aliases",
                    line=mark.line + 1,
                    column=mark.column + 1,
                )
            )
        if isinstance(event, yaml.DocumentStartEvent):
            documents += 1
            if documents == 2:
                found.append(
                    _finding(
                        "yaml-syntax",
                        rel,
                        "file holds more than one YAML document",
                        "keep one item a file and remove the `---` separators",
                        line=mark.line + 1,
                        column=mark.column + 1,
                    )
                )
            continue
        is_key = bool(stack) and stack[-1][0] and stack[-1][1]
        if stack and stack[-1][0]:
            stack[-1][1] = not stack[-1][1]
        if isinstance(event, yaml.ScalarEvent) and is_key:
            seen: set[str] = stack[-1][2]
            if event.value in seen:
                found.append(
                    _finding(
                        "yaml-duplicate-key",
                        rel,
                        f"key '{event.value}' appears twice in one mapping",
                        "remove or rename one of the two keys (YAML would keep only the last)",
                        line=mark.line + 1,
                        column=mark.column + 1,
                    )
                )
            seen.add(event.value)
        elif isinstance(event, yaml.MappingStartEvent | yaml.SequenceStartEvent):
            stack.append([isinstance(event, yaml.MappingStartEvent), True, set()])
            if len(stack) > MAX_DEPTH:
                found.append(
                    _finding(
                        "yaml-syntax",
                        rel,
                        f"nesting deeper than {MAX_DEPTH} levels",
                        "flatten the structure; an item needs only a few levels",
                        line=mark.line + 1,
                        column=mark.column + 1,
                    )
                )
                return found
        elif isinstance(event, yaml.MappingEndEvent | yaml.SequenceEndEvent):
            stack.pop()
    return found


def _parse_careful(text: str, rel: str) -> tuple[Any, list[Finding]]:
    try:
        found = _scan_events(text, rel)
        if any(f.code == "yaml-syntax" for f in found):
            return None, found
        return yaml.load(text, Loader=_Loader), found  # noqa: S506 - safe loader
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        problem = exc.problem or "invalid YAML"
        return None, [
            _finding(
                "yaml-syntax",
                rel,
                f"invalid YAML: {problem}",
                "fix the YAML syntax at this position",
                line=mark.line + 1 if mark else 0,
                column=mark.column + 1 if mark else 0,
            )
        ]
    except (yaml.YAMLError, RecursionError, ValueError, TypeError) as exc:
        return None, [
            _finding(
                "yaml-syntax", rel, f"invalid YAML: {exc}", "simplify the YAML structure"
            )
        ]


def _decode(data: bytes, rel: str) -> tuple[str | None, list[Finding]]:
    if b"\x00" in data:
        return None, [
            _finding(
                "file-not-text",
                rel,
                "file is binary, not YAML text",
                "remove the file or replace it with a UTF-8 YAML item",
                line=1,
                column=1,
            )
        ]
    try:
        return data.decode("utf-8").removeprefix("\ufeff"), []
    except UnicodeDecodeError as exc:
        line_start = data.rfind(b"\n", 0, exc.start) + 1
        return None, [
            _finding(
                "file-not-text",
                rel,
                f"bytes at offset {exc.start} are not UTF-8",
                "save the file as UTF-8",
                line=data[: exc.start].count(b"\n") + 1,
                column=exc.start - line_start + 1,
            )
        ]


def _parse_text(text: str, rel: str) -> tuple[Any, list[Finding]]:
    if _yaml_rs is not None and not _needs_careful_road(text):
        try:
            data = _yaml_rs.loads(
                text,
                parse_datetime=False,
                alias_limits=_NO_ALIASES,
                duplicate_key_policy=_yaml_rs.DuplicateKeyPolicy.Error,
            )
        except _FAST_ERRORS:
            pass  # libyaml says where and why
        else:
            # A list may be several documents, which the fast parser does not tell
            # apart from a top-level sequence.
            if not isinstance(data, list):
                return data, []
    return _parse_careful(text, rel)


def parse_yaml(data: bytes, rel: str) -> tuple[Any, list[Finding]]:
    """Parse one file's bytes into Python objects, turning every failure into a finding.

    Args:
        data: The file's bytes.
        rel: Path used in findings.

    Returns:
        The parsed data (None on failure) and the findings.
    """
    text, findings = _decode(data, rel)
    if text is None:
        return None, findings
    return _parse_text(text, rel)


class Locator:
    """Finds the lines of fields in one YAML file, parsing it on first use."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._text: str | None = None
        self._node: yaml.Node | None = None
        self._parsed = False

    def _root(self) -> yaml.Node | None:
        if not self._parsed:
            self._parsed = True
            try:
                self._text = self.path.read_bytes().decode("utf-8")
                self._node = yaml.compose(self._text, Loader=_Loader)
            except (OSError, UnicodeDecodeError, yaml.YAMLError, RecursionError):
                self._node = None
        return self._node

    def node(self, loc: Sequence[str | int]) -> tuple[yaml.Node | None, yaml.Mark | None]:
        """The node at ``loc`` (None if missing) and the mark of its nearest existing part."""
        node = self._root()
        if node is None:
            return None, None
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
                return None, best
            node = child
        return node, best

    def locate(self, loc: Sequence[str | int], *, needle: str | None = None) -> tuple[int, int]:
        """Line and column (1-based) of the field at ``loc``.

        Args:
            loc: Field path, such as ``("details", "options", 2)``.
            needle: Text inside the field's string value to point at instead of
                the field itself (for example a marker in a block scalar).

        Returns:
            The position; a missing field gives its nearest existing parent, an
            unreadable file (1, 1).
        """
        node, best = self.node(loc)
        if best is None:
            return 1, 1
        if needle and isinstance(node, yaml.ScalarNode) and self._text is not None:
            start, end = node.start_mark.index, node.end_mark.index
            index = self._text.find(needle, start, end)
            if index < 0 and len(needle) > 12:
                index = self._text.find(needle[:12], start, end)
            if index >= 0:
                line_start = self._text.rfind("\n", 0, index) + 1
                return self._text.count("\n", 0, index) + 1, index - line_start + 1
        return best.line + 1, best.column + 1


def locate(path: Path, loc: Sequence[str | int]) -> tuple[int, int]:
    """Find the 1-based line and column of a field path in a YAML file.

    Falls back to the nearest existing parent (a missing field reports the line
    of its parent mapping), and to (1, 1) when the file cannot be read.
    """
    return Locator(path).locate(loc)


def _schema_findings(path: Path, rel: str, exc: ValidationError) -> list[Finding]:
    found = []
    locator = Locator(path)
    for error in exc.errors():
        loc = tuple(error["loc"])
        line, column = locator.locate(loc)
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


def _rel(path: Path, root: Path) -> str:
    return path.relative_to(root).as_posix() if path.is_relative_to(root) else str(path)


def list_item_files(root: Path, paths: Iterable[Path] | None = None) -> list[tuple[Path, str]]:
    """(path, path relative to ``root`` with ``/``) of each item file, sorted.

    Args:
        root: The vault folder.
        paths: Item files to use instead of scanning ``root/questions``.
    """
    if paths is not None:
        return [(path, _rel(path, root)) for path in paths]
    questions = root / "questions"
    if not questions.is_dir():
        return []
    found: list[str] = []
    _walk(str(questions), found)
    found.sort()
    # String slicing: pathlib's relative_to costs more than parsing the file.
    prefix = len(str(root)) + 1
    return [(Path(p), p[prefix:].replace(os.sep, "/")) for p in found]


def read_file(path: Path, rel: str) -> tuple[bytes | None, int, int, list[Finding]]:
    """Read a file's bytes unless it is too large.

    Args:
        path: The file.
        rel: Path used in findings.

    Returns:
        (bytes or None, size in bytes, mtime in ns, findings): ``file-too-large``
        files are not read, and an unreadable file gives ``file-unreadable``.
    """
    try:
        with open(path, "rb") as handle:
            stat = os.fstat(handle.fileno())
            if stat.st_size > MAX_FILE_BYTES:
                return (
                    None,
                    stat.st_size,
                    stat.st_mtime_ns,
                    [
                        _finding(
                            "file-too-large",
                            rel,
                            f"file is {stat.st_size} bytes, more than the "
                            f"{MAX_FILE_BYTES} allowed",
                            "split it or remove what does not belong in one item",
                        )
                    ],
                )
            return handle.read(), stat.st_size, stat.st_mtime_ns, []
    except OSError as exc:
        return (
            None,
            0,
            0,
            [
                _finding(
                    "file-unreadable",
                    rel,
                    f"cannot read file: {exc.strerror or exc}",
                    "check that the file exists and is readable",
                )
            ],
        )


def _validate(loaded: ItemFile) -> None:
    raw = loaded.raw
    if not isinstance(raw, dict):
        shape = "empty" if raw is None else f"a {type(raw).__name__}"
        loaded.findings.append(
            _finding(
                "schema",
                loaded.rel,
                f"top level is {shape}, not a mapping of fields",
                "write one item as `key: value` lines",
                line=1,
                column=1,
            )
        )
        return
    try:
        loaded.item = validate_item(raw)
    except ValidationError as exc:
        loaded.findings.extend(_schema_findings(loaded.path, loaded.rel, exc))


def read_item_file(path: Path, rel: str, data: bytes | None = None) -> ItemFile:
    """Read, parse and validate one item file; problems become findings, never exceptions.

    Args:
        path: The file.
        rel: Its path relative to the vault, used in findings.
        data: The file's bytes when already read (size and mtime are then read afresh).
    """
    if data is None:
        data, size, mtime_ns, findings = read_file(path, rel)
    else:
        stat = path.stat()
        size, mtime_ns, findings = stat.st_size, stat.st_mtime_ns, []
    loaded = ItemFile(path=path, rel=rel, findings=findings, size=size, mtime_ns=mtime_ns)
    if data is None:
        return loaded
    loaded.digest = hashlib.sha256(data).hexdigest()
    loaded.text, problems = _decode(data, rel)
    if loaded.text is not None:
        loaded.raw, more = _parse_text(loaded.text, rel)
        problems.extend(more)
    loaded.findings.extend(problems)
    if loaded.text is not None and not any(f.code == "yaml-syntax" for f in problems):
        _validate(loaded)
    return loaded


def load_item_file(path: Path, root: Path) -> ItemFile:
    """Read and validate one item file below ``root``; problems become findings."""
    return read_item_file(path, _rel(path, root))


def _cached_item_file(path: Path, rel: str, cache: VaultCache) -> ItemFile:
    """Load one file through the cache: unchanged files are not parsed again."""
    data, size, mtime_ns, findings = read_file(path, rel)
    if data is None:
        return ItemFile(path=path, rel=rel, findings=findings, size=size, mtime_ns=mtime_ns)
    digest = hashlib.sha256(data).hexdigest()
    entry = cache.lookup(rel, size=size, mtime_ns=mtime_ns, digest=digest)
    raw = cache.raw(rel) if entry is not None else None
    if entry is not None and (raw is not None or not entry.valid):
        loaded = ItemFile(
            path=path,
            rel=rel,
            raw=raw,
            findings=list(entry.findings),
            digest=digest,
            size=size,
            mtime_ns=mtime_ns,
        )
        if entry.valid:
            loaded.item = validate_item(raw)
        return loaded
    loaded = read_item_file(path, rel, data)
    loaded.size, loaded.mtime_ns = size, mtime_ns
    cache.store(
        rel,
        CachedFile(size, mtime_ns, digest, loaded.item is not None, tuple(loaded.findings)),
        loaded.raw,
    )
    return loaded


_USABLE_DESPITE = frozenset({"yaml-anchor", "yaml-duplicate-key"})
"""Findings after which a shared file's data is still used (aliases resolved, last key wins)."""


def _load_shared(root: Path, name: str, model: Any, findings: list[Finding]) -> Any:
    path = root / name
    if not path.is_file():
        return None
    data, _, _, problems = read_file(path, name)
    raw: Any = None
    if data is not None:
        raw, problems = parse_yaml(data, name)
    findings.extend(problems)
    if data is None or any(f.code not in _USABLE_DESPITE for f in problems):
        return None
    try:
        return model.model_validate(raw or {})
    except ValidationError as exc:
        findings.extend(_schema_findings(path, name, exc))
        return None


def check_vault_root(root: Path) -> None:
    """Raise :class:`VaultNotFound` unless ``root`` is an existing folder."""
    if not root.exists():
        raise VaultNotFound(f"vault '{root}' does not exist; pass an existing vault folder")
    if not root.is_dir():
        raise VaultNotFound(f"vault '{root}' is not a folder; pass the folder holding questions/")


def load_shared_files(vault: Vault) -> None:
    """Load ``taxonomy.yaml``, ``chains.yaml`` and ``decks.yaml`` into ``vault``."""
    root = vault.root
    vault.taxonomy = _load_shared(root, "taxonomy.yaml", Taxonomy, vault.findings)
    chains = _load_shared(root, "chains.yaml", ChainsFile, vault.findings)
    vault.chains = chains.chains if chains else []
    decks = _load_shared(root, "decks.yaml", DecksFile, vault.findings)
    vault.decks = decks.decks if decks else []


def load_vault(
    root: Path, *, paths: Iterable[Path] | None = None, cache_dir: Path | None = None
) -> Vault:
    """Load every item file and the shared files of a vault.

    Args:
        root: The vault folder (holding ``questions/``).
        paths: Item files to load instead of scanning ``questions/``.
        cache_dir: Folder for the load cache; files unchanged in size, mtime and
            digest since the last load with the same folder are not parsed again.

    Returns:
        The loaded vault; problems are findings on it, never exceptions.

    Raises:
        VaultNotFound: If ``root`` does not exist or is not a folder.
    """
    check_vault_root(root)
    vault = Vault(root=root)
    cache = VaultCache(cache_dir, root, salt=PARSER) if cache_dir is not None else None
    for path, rel in list_item_files(root, paths):
        if cache is None:
            vault.files.append(read_item_file(path, rel))
        else:
            vault.files.append(_cached_item_file(path, rel, cache))
    load_shared_files(vault)
    if cache is not None and paths is None:
        cache.save()
    return vault
