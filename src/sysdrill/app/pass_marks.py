"""Final-pass marks of a vault's items, kept beside its catalogue between forecasts.

A workload forecast needs each studied item's day in the final pass
(:func:`~sysdrill.study.deadline.final_pass_day`), a few hashes of its id each:
about a third of a second over 100,000 items, a third of the whole command.
The marks (:func:`~sysdrill.study.deadline.final_pass_marks`) depend on the id
alone, so they are worked out once per item and kept in the user cache folder
next to the catalogue; a later forecast reads them and hashes only items it has
not met. A file that cannot be read or written only costs the next forecast
its speed.
"""

from __future__ import annotations

import marshal
from collections.abc import Collection
from pathlib import Path

from sysdrill.files import replace_atomically
from sysdrill.study.deadline import final_pass_marks

__all__ = ["kept_pass_marks"]

_FORMAT = 1
"""Layout of the kept file; another number makes it be rebuilt."""


def _read(path: Path) -> dict[str, int]:
    try:
        data = marshal.loads(path.read_bytes())
    except (OSError, EOFError, ValueError, TypeError):
        return {}
    if not isinstance(data, dict) or data.get("format") != _FORMAT:
        return {}
    marks = data.get("marks")
    return marks if isinstance(marks, dict) else {}


def kept_pass_marks(path: Path, item_ids: Collection[str]) -> dict[str, int]:
    """The final-pass marks of ``item_ids``, read from ``path`` and completed there.

    Args:
        path: The file that keeps a vault's marks (beside its catalogue).
        item_ids: The items whose marks are wanted.

    Returns:
        The marks of every item of ``item_ids``. The file is rewritten, with the
        marks of these items only (a vault's items come and go), when any was
        missing from it.
    """
    kept = _read(path)
    missing = [item_id for item_id in item_ids if item_id not in kept]
    if not missing:
        return kept
    for item_id in missing:
        kept[item_id] = final_pass_marks(item_id)
    marks = {item_id: kept[item_id] for item_id in item_ids}
    blob = marshal.dumps({"format": _FORMAT, "marks": marks})

    def write(scratch: Path) -> None:
        scratch.write_bytes(blob)

    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        replace_atomically(path, write)
    except OSError:
        pass  # kept for speed only
    return marks
