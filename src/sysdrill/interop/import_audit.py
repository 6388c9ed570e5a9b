"""What ``check`` will flag on imported items: the defects an import report lists.

Each imported item file gets ``check``'s item rules and napkin tier, except the
napkin tier on items of a deck that says ``skip_napkin_check`` (a flashcard app's
deck, whose numbers are not napkin math), as ``check`` itself leaves them.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from sysdrill.check.napkin_decks import NapkinExemptions, napkin_exemptions
from sysdrill.content.collections import Deck
from sysdrill.content.loader import ItemFile, load_item_file, read_item_file
from sysdrill.interop import vault_writer

__all__ = ["PARALLEL_AUDIT_MIN_FILES", "audit_imported", "exemptions_of"]

PARALLEL_AUDIT_MIN_FILES = 400
"""Written item files from which the audit hands half of them to a forked worker."""

Tick = Callable[[int, int], None]
"""``tick(done, total)``: how far the audit has gone, in item files."""


def exemptions_of(decks: Mapping[str, Any]) -> NapkinExemptions:
    """The napkin exemptions of ``decks.yaml`` read as plain data.

    An entry that does not validate exempts nothing (``check`` reports it).
    """
    valid: list[Deck] = []
    for entry in decks.get("decks") or ():
        try:
            valid.append(Deck.model_validate(entry))
        except ValidationError:
            continue
    return napkin_exemptions(valid)


def _napkin_hook() -> Any:
    from sysdrill.check.registry import napkin_module

    module = napkin_module()
    hook = getattr(module, "napkin_findings", None) if module is not None else None
    return hook if callable(hook) else None


def _rendered(loaded: ItemFile, napkin: Any, exempt: NapkinExemptions) -> list[str]:
    """Errors and warnings ``check`` reports on one loaded item file, one line each."""
    from sysdrill.check.runner import audit_file
    from sysdrill.content.diagnostics import Severity

    item = loaded.item
    if item is not None and exempt.covers(item.id, item.deck):
        napkin = None
    found = [*loaded.findings, *audit_file(loaded, napkin)]
    return [f.render() for f in found if f.severity is not Severity.INFO]


def _audit_written(
    root: Path,
    rels: list[str],
    exempt: NapkinExemptions,
    progress: Callable[[int], None] | None = None,
) -> list[str]:
    """The defects of item files in the vault (in this process or a forked worker).

    A file that is gone is skipped. Paths are plain strings: pathlib's join, stat
    and ``relative_to`` per file cost a sixth of the audit of 100,000 files.
    """
    napkin = _napkin_hook()
    defects: list[str] = []
    base = str(root)
    for done, rel in enumerate(rels):
        if progress is not None:
            progress(done)
        path = os.path.join(base, *rel.split("/"))
        loaded = read_item_file(path, rel)
        if loaded.text is None and not os.path.isfile(path):
            continue
        defects.extend(_rendered(loaded, napkin, exempt))
    return defects


def _audit_written_in_parallel(
    root: Path, rels: list[str], exempt: NapkinExemptions, tick: Tick
) -> list[str]:
    """The defects of written item files, half of them audited by a forked worker.

    The napkin tier and the item rules are CPU-bound Python: a second process
    uses the second core, as ``check`` does. Small imports, one-core machines
    and hosts running other threads (forking copies their locks) stay serial.
    """
    import multiprocessing
    import threading

    total = len(rels)

    def report(part: int) -> Callable[[int], None]:
        return lambda done: tick(done * total // max(part, 1), total)

    if (
        total < PARALLEL_AUDIT_MIN_FILES
        or (os.cpu_count() or 1) < 2
        or threading.active_count() > 1
        or "fork" not in multiprocessing.get_all_start_methods()
    ):
        return _audit_written(root, rels, exempt, report(total))
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    half = total // 2
    # Loaded before the fork, so the worker inherits the napkin tier instead of
    # importing it again.
    _napkin_hook()
    try:
        with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("fork")) as pool:
            future = pool.submit(_audit_written, root, rels[half:], exempt)
            first = _audit_written(root, rels[:half], exempt, report(half))
            return first + future.result()
    except (OSError, BrokenProcessPool):
        return _audit_written(root, rels, exempt, report(total))


def audit_imported(
    root: Path,
    audited: list[str],
    planned: Mapping[str, str],
    *,
    written: bool,
    exempt: NapkinExemptions,
    tick: Tick,
) -> list[str]:
    """What ``check`` will flag on the imported items: the source's own defects.

    After a write the files are audited where they now are; a dry run writes its
    planned files to a scratch folder laid out like the vault, so the findings name
    the paths the files would have (rules read a file again to find a finding's line).

    Args:
        root: The vault folder.
        audited: Vault-relative paths of the imported item files.
        planned: Text of each file the import plans to write, by vault-relative path.
        written: Whether the files are in the vault already.
        exempt: Items whose deck skips the napkin tier.
        tick: Called as ``tick(done, total)`` as files are audited.

    Returns:
        One rendered line per error or warning.
    """
    import tempfile

    if written:
        defects = _audit_written_in_parallel(root, audited, exempt, tick)
        tick(len(audited), len(audited))
        return defects
    napkin = _napkin_hook()
    defects = []
    with tempfile.TemporaryDirectory(prefix="sysdrill-import-check-") as scratch:
        scratch_root = Path(scratch)
        folders: set[str] = set()
        for done, rel in enumerate(audited):
            tick(done, len(audited))
            text = planned.get(rel)
            if text is None:
                if not (root / rel).is_file():
                    continue
                loaded = load_item_file(root / rel, root)
            else:
                path = scratch_root / rel
                vault_writer.write_scratch_file(path, text, folders)
                loaded = read_item_file(path, rel, text.encode("utf-8"))
            defects.extend(_rendered(loaded, napkin, exempt))
    tick(len(audited), len(audited))
    return defects
