"""Run the whole audit over a vault and collect every finding at once.

The runner loads the vault (the loader reports file, YAML and schema findings),
runs the item rules and the napkin tier on every validated item, then the vault
rules over short item summaries. With a cache folder, each unchanged file's
item and napkin findings and its summary come from the cache: a warm run
stats every file, hashes only those whose size or mtime changed (or that are
too recent to trust, see :meth:`ParseCache.lookup_stat`), and parses only files
whose digest changed. Cold runs hand half of the files to a forked worker
process when there are enough of them to pay for it.

The vault rules run over every item's summary on each run, and place their
findings by parsing the files they point at (an item whose topic is missing from
the taxonomy, say). So their findings are cached too, for the whole vault, under
a key of everything they read (:func:`_vault_rules_key`): a warm run with nothing
changed reads no file for a line number.
"""

from __future__ import annotations

import gc
import hashlib
import os
import threading
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from operator import itemgetter
from pathlib import Path
from typing import Any

from sysdrill.check import rules_graph
from sysdrill.check.context import FileContext
from sysdrill.check.napkin_decks import napkin_exemptions
from sysdrill.check.registry import Rule, all_rules, napkin_module
from sysdrill.check.rules_diagram import check_diagram
from sysdrill.check.rules_graph import ItemSummary, vault_findings
from sysdrill.check.rules_identity import check_identity, check_shape
from sysdrill.check.rules_markers import check_answer_text, check_links_and_markup, check_options
from sysdrill.check.rules_numeric import check_numeric_answer
from sysdrill.check.rules_plans import plan_findings
from sysdrill.check.rules_style import check_classification, check_wording
from sysdrill.check.rules_template import check_template
from sysdrill.check.selection import Selection
from sysdrill.check.suppress import IgnoreScope, ignore_scopes, split_suppressed
from sysdrill.content.cache import (
    CONTENT_CODE,
    CachedFile,
    ParseCache,
    code_fingerprint,
    findings_from_data,
    findings_to_data,
)
from sysdrill.content.diagnostics import Finding, Severity
from sysdrill.content.loader import (
    MAX_SHARED_FILE_BYTES,
    PARSER,
    ItemFile,
    Vault,
    check_vault_root,
    list_item_file_names,
    load_shared_files,
    read_file,
    read_item_file,
    shared_file_names,
)
from sysdrill.content.media import MEDIA_FOLDER
from sysdrill.errors import UsageError

__all__ = ["CHECKING", "ITEM_CHECKS", "CheckReport", "audit_file", "run_check"]

CHECKING = "Checking files"
"""The stage ``run_check`` reports to its progress callback, one step per file parsed."""

ITEM_CHECKS: tuple[Callable[[FileContext], None], ...] = (
    check_shape,
    check_identity,
    check_classification,
    check_wording,
    check_answer_text,
    check_options,
    check_numeric_answer,
    check_template,
    check_diagram,
    check_links_and_markup,
)
"""Item rules, run in this order on every validated item."""

PARALLEL_MIN_FILES = 400
"""Fewer files than this are audited in one process (a worker costs more than it saves)."""

RULESET_VERSION = 3
"""Bumped when a rule changes what it reports, so cached findings are recomputed."""

NapkinHook = Callable[[ItemFile], list[Finding]]

_SEVERITY_ORDER = {Severity.ERROR: 0, Severity.WARNING: 1, Severity.INFO: 2}


@dataclass(slots=True)
class CheckReport:
    """Outcome of ``check``: every finding, sorted by file, line and column."""

    root: Path
    findings: list[Finding] = field(default_factory=list)
    files: int = 0
    """Item files looked at (with a selection: the selected ones)."""
    items: int = 0
    """Item files that validated (with a selection: the selected ones)."""
    suppressed: list[Finding] = field(default_factory=list)
    """Findings silenced by ``# sysdrill: ignore[CODE]`` comments (not in ``findings``)."""

    @property
    def counts(self) -> dict[str, int]:
        """Number of findings per severity (``error``, ``warning``, ``info``)."""
        counted = Counter(f.severity.value for f in self.findings)
        return {severity.value: counted.get(severity.value, 0) for severity in Severity}

    def exit_code(self, *, strict: bool = False) -> int:
        """1 when there are errors (or warnings with ``strict``), else 0."""
        counts = self.counts
        failing = counts["error"] + (counts["warning"] if strict else 0)
        return 1 if failing else 0

    def to_dict(self) -> dict[str, Any]:
        """The JSON document ``check --json`` prints."""
        return {
            "vault": str(self.root),
            "files": self.files,
            "items": self.items,
            "counts": self.counts,
            "suppressed": len(self.suppressed),
            "findings": [f.to_dict() for f in self.findings],
            "suppressed_findings": [f.to_dict() for f in self.suppressed],
        }


def _ruleset_key(rules: dict[str, Rule]) -> str:
    """Identify the rules in force, so cached findings of other rule code are not reused."""
    digest = hashlib.sha256(f"{RULESET_VERSION}/{PARSER}/{sorted(rules)}".encode())
    # During development the rule code changes without a version bump: include the
    # size and mtime of the modules that make findings.
    folders = [Path(rules_graph.__file__).parent, CONTENT_CODE]
    module = napkin_module()
    if module.__file__:
        folders.append(Path(module.__file__).parent.parent / "napkin")
    digest.update(code_fingerprint(*folders).encode())
    return digest.hexdigest()


def _napkin_hook() -> NapkinHook:
    hook: NapkinHook = napkin_module().napkin_findings
    return hook


def audit_file(loaded: ItemFile, napkin: NapkinHook | None = None) -> list[Finding]:
    """Run the item rules (and the napkin tier) on one loaded file.

    Args:
        loaded: A file from the loader; nothing is checked unless its item validated.
        napkin: The napkin tier's ``napkin_findings``, or None to skip it.

    Returns:
        The findings of item rules and the napkin tier (not the loader's own).
    """
    if loaded.item is None:
        return []
    context = FileContext(loaded, loaded.item)
    for check in ITEM_CHECKS:
        check(context)
    if napkin is not None:
        try:
            context.findings.extend(napkin(loaded))
        except Exception as exc:  # one tier's bug must not end the whole audit
            if os.environ.get("SYSDRILL_DEBUG"):
                raise
            context.add(
                "rule-crashed",
                f"the napkin tier failed on this item ({type(exc).__name__}: {exc})"[:300],
                ("details",),
            )
    return context.findings


_Result = tuple[
    str, bool, tuple[Any, ...], tuple[Any, ...], tuple[Any, ...] | None, tuple[IgnoreScope, ...]
]
"""Per file: rel, validated?, loader findings, rule findings, summary, ignore comments
(all plain data)."""

_Fresh = tuple[_Result, int, int, str]
"""A freshly audited file: its result, size, mtime_ns and digest (for the cache)."""


def _audit_files(
    files: list[tuple[str, str]], progress: Callable[[int], None] | None = None
) -> list[_Fresh]:
    """Load and audit files from scratch (in this process or a worker).

    ``progress(done)`` is called before each file (in this process only).
    """
    napkin = _napkin_hook()
    fresh: list[_Fresh] = []
    for done, (path, rel) in enumerate(files):
        if progress is not None:
            progress(done)
        loaded = read_item_file(path, rel)
        found = audit_file(loaded, napkin)
        summary = ItemSummary.of(rel, loaded.raw)
        result: _Result = (
            rel,
            loaded.item is not None,
            findings_to_data(loaded.findings),
            findings_to_data(found),
            tuple(summary) if summary is not None else None,
            ignore_scopes(loaded.text) if loaded.text is not None else (),
        )
        fresh.append((result, loaded.size, loaded.mtime_ns, loaded.digest))
    return fresh


def _audit_in_parallel(
    files: list[tuple[str, str]],
    workers: int,
    progress: Callable[[str, int, int], None] | None = None,
) -> list[_Fresh]:
    """Audit files, handing half to a forked worker when there are enough of them.

    Parsing and validation are CPU-bound Python, so a second process is what
    makes use of a second core; forking shares the imported modules for free.
    ``progress`` hears of this process's files (its half, scaled to the whole).
    """
    total = len(files)

    def report(part: int) -> Callable[[int], None] | None:
        if progress is None or part == 0:
            return None
        return lambda done: progress(CHECKING, done * total // part, total)

    # Forking a process that runs other threads (a web server, say) can copy a
    # lock in its held state; such hosts get the serial road.
    if workers < 2 or len(files) < PARALLEL_MIN_FILES or threading.active_count() > 1:
        return _audit_files(files, report(total))
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    if "fork" not in multiprocessing.get_all_start_methods():
        return _audit_files(files, report(total))
    half = _halfway(files)
    # Objects that exist before the fork (imported modules, schemas) are left out of
    # garbage collection while both processes audit: collections then do not walk
    # them, and the worker does not copy the pages they live on.
    # A host that froze objects itself keeps its own arrangement.
    freeze = gc.get_freeze_count() == 0
    if freeze:
        gc.freeze()
    # The napkin tier allocates many short-lived objects and keeps its line results and
    # plans, and each collection walks all it keeps; yet an audit makes almost no cyclic
    # garbage (a few hundred objects over the 10,711 files of the real-style bench
    # vault), which reference counting alone cannot free. So the cyclic collector
    # pauses while both processes audit (the worker inherits the pause).
    collecting = gc.isenabled()
    gc.disable()
    try:
        with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("fork")) as pool:
            future = pool.submit(_audit_files, files[half:])
            first = _audit_files(files[:half], report(half))
            return first + future.result()
    except (OSError, BrokenProcessPool):
        return _audit_files(files, report(total))
    finally:
        if collecting:
            gc.enable()
        if freeze:
            gc.unfreeze()


def _halfway(files: list[tuple[str, str]]) -> int:
    """Where to cut ``files`` into two runs of about equal size in bytes.

    A file's audit cost grows with its size (the napkin tier checks every claim
    line), so halving bytes balances the two processes better than halving the
    count; the order of files is kept.
    """
    sizes = []
    for path, _ in files:
        try:
            sizes.append(os.stat(path).st_size)
        except OSError:
            sizes.append(0)
    total = sum(sizes)
    if total == 0:
        return len(files) // 2
    running = 0
    for index, size in enumerate(sizes):
        if (running + size) * 2 >= total:
            # Cut before or after this file, whichever leaves the halves closer.
            after = abs((running + size) * 2 - total) < abs(running * 2 - total)
            return index + 1 if after else index
        running += size
    return len(files) // 2  # pragma: no cover - the loop reaches half the total


def _sort_key(finding: Finding) -> tuple[Any, ...]:
    return (
        finding.path,
        finding.line,
        finding.column,
        _SEVERITY_ORDER[finding.severity],
        finding.code,
        finding.message,
    )


def _check_codes(codes: Iterable[str] | None, rules: dict[str, Rule]) -> set[str] | None:
    if codes is None:
        return None
    selected = set(codes)
    unknown = sorted(selected - set(rules))
    if unknown:
        raise UsageError(
            f"unknown rule code {', '.join(unknown)}; see docs/check-rules.md for the codes"
        )
    return selected


def _reuse_cached(
    files: list[tuple[str, str]], cache: ParseCache, key: str, digests: dict[str, str]
) -> tuple[list[_Result], list[tuple[str, str]]]:
    """Results of unchanged files from the cache, and the files that need auditing.

    The digest of each reused file goes into ``digests``.
    """
    reused: list[_Result] = []
    stale: list[tuple[str, str]] = []
    for name, rel in files:
        try:
            stat = os.stat(name)
        except OSError:
            stale.append((name, rel))
            continue
        entry = cache.lookup_stat(rel, size=stat.st_size, mtime_ns=stat.st_mtime_ns)
        if entry is None:
            data, size, mtime_ns, _ = read_file(name, rel)
            if data is not None:
                digest = hashlib.sha256(data).hexdigest()
                entry = cache.lookup(rel, size=size, mtime_ns=mtime_ns, digest=digest)
        extra = entry.extra if entry is not None else None
        if entry is not None and isinstance(extra, tuple) and len(extra) == 4 and extra[0] == key:
            reused.append(
                (rel, entry.valid, findings_to_data(entry.findings), extra[1], extra[2], extra[3])
            )
            digests[rel] = entry.digest
        else:
            stale.append((name, rel))
    return reused, stale


def _vault_rules_key(
    root: Path, key: str, results: list[_Result], digests: dict[str, str]
) -> str | None:
    """A digest of everything the vault rules read, or None when one input is unreadable.

    The rules read the item summaries and the shared files (taxonomies, chains,
    decks), place findings by parsing item and shared files, and look for the media
    files items refer to. The key covers the rule code (``key``), every item
    file's digest (summaries and line numbers follow from the bytes), every shared
    file's digest, and which referenced media files exist.
    """
    digest = hashlib.sha256(key.encode())
    media: set[str] = set()
    for result in sorted(results, key=itemgetter(0)):
        rel, summary = result[0], result[4]
        file_digest = digests.get(rel)
        if not file_digest:
            return None
        digest.update(f"{rel}\0{file_digest}\n".encode())
        if summary is not None:
            media.update(ItemSummary(*summary).media)
    for name in shared_file_names(root):
        try:
            path = root / name
            if path.stat().st_size > MAX_SHARED_FILE_BYTES:
                return None
            data = path.read_bytes()
        except OSError:
            return None
        digest.update(f"{name}\0{hashlib.sha256(data).hexdigest()}\n".encode())
    folder = root / MEDIA_FOLDER
    for name in sorted(media):
        digest.update(f"{name}\0{(folder / name).is_file()}\n".encode())
    return digest.hexdigest()


def _vault_rule_findings(
    vault: Vault, results: list[_Result], cache: ParseCache | None, memo_key: str | None
) -> list[Finding]:
    """The vault rules' findings: from the cache when ``memo_key`` matches, else run."""
    memo = cache.vault_extra if cache is not None else None
    if memo_key is not None and isinstance(memo, tuple) and len(memo) == 2 and memo[0] == memo_key:
        return list(findings_from_data(memo[1]))
    summaries = sorted(ItemSummary(*r[4]) for r in results if r[4] is not None)
    found = vault_findings(vault, summaries)
    if cache is not None:
        cache.vault_extra = (memo_key, findings_to_data(found)) if memo_key else None
    return found


def run_check(
    root: Path,
    *,
    codes: Iterable[str] | None = None,
    cache_dir: Path | None = None,
    workers: int | None = None,
    selection: Selection | None = None,
    progress: Callable[[str, int, int], None] | None = None,
) -> CheckReport:
    """Audit a vault and report every finding at once.

    Findings silenced by an ignore comment (:mod:`sysdrill.check.suppress`) go to
    ``suppressed`` instead of ``findings``.

    Args:
        root: The vault folder.
        codes: Report only these rule codes (all rules still run).
        cache_dir: Folder of the check cache; None checks everything afresh.
        workers: Processes to use for files that need parsing (default: up to 2,
            one per CPU); 1 keeps everything in this process.
        selection: Report only the findings it covers (the whole vault is still
            audited, since id and reference rules need every item).
        progress: Called as ``progress(CHECKING, done, total)`` while files that
            need parsing are audited.

    Returns:
        The report, findings sorted by path, line and column.

    Raises:
        VaultNotFound: If ``root`` is not an existing folder.
        UsageError: If ``codes`` names a code no rule has.
        TierUnavailable: If the napkin tier cannot be loaded.
    """
    rules = all_rules()
    selected = _check_codes(codes, rules)
    check_vault_root(root)
    if workers is None:
        workers = min(2, os.cpu_count() or 1)
    files = list_item_file_names(root)
    cache = None
    if cache_dir is not None:
        cache = ParseCache(cache_dir, root, salt=PARSER, keeps_raw=False)
    results: list[_Result] = []
    digests: dict[str, str] = {}
    stale = files
    key = ""
    if cache is not None:
        key = _ruleset_key(rules)
        if cache.has_entries:
            results, stale = _reuse_cached(files, cache, key, digests)
    for result, size, mtime_ns, digest in _audit_in_parallel(stale, workers, progress):
        results.append(result)
        digests[result[0]] = digest
        if cache is not None and digest:
            rel, valid, loader_findings, found, summary, ignores = result
            entry = CachedFile(size, mtime_ns, digest, valid, findings_from_data(loader_findings))
            cache.store(rel, entry)
            cache.attach(rel, (key, found, summary, ignores))
    vault = Vault(root=root)
    load_shared_files(vault)
    if not (root / "questions").is_dir():
        rule = rules["vault-layout"]
        vault.findings.append(
            Finding("vault-layout", rule.severity, "questions", 0, 0, rule.meaning, rule.fix)
        )
    report = CheckReport(root=root)
    ignores_of: dict[str, tuple[IgnoreScope, ...]] = {}
    exempt = napkin_exemptions(vault.decks)
    napkin_codes = frozenset(napkin_module().RULES) if exempt else frozenset()
    for rel, valid, loader_findings, found, summary, ignores in results:
        ignores_of[rel] = ignores
        if selection is None or rel in selection.files:
            report.files += 1
            report.items += valid
        report.findings.extend(findings_from_data(loader_findings))
        item_findings = findings_from_data(found)
        if exempt and summary is not None:
            described = ItemSummary(*summary)
            if exempt.covers(described.id, described.deck):
                # The deck says its numbers are not napkin math; the cached findings stay
                # whole, so turning the setting off brings them back without a re-audit.
                item_findings = tuple(f for f in item_findings if f.code not in napkin_codes)
        report.findings.extend(item_findings)
    memo_key = _vault_rules_key(root, key, results, digests) if cache is not None else None
    report.findings.extend(vault.findings)
    report.findings.extend(_vault_rule_findings(vault, results, cache, memo_key))
    report.findings.extend(plan_findings(vault))
    if selection is not None:
        report.findings = [f for f in report.findings if selection.covers(f)]
    if selected is not None:
        report.findings = [f for f in report.findings if f.code in selected]
    report.findings, report.suppressed = split_suppressed(root, report.findings, rules, ignores_of)
    report.findings.sort(key=_sort_key)
    report.suppressed.sort(key=_sort_key)
    if cache is not None:
        cache.save()
    return report
