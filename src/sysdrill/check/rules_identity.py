"""Item rules about identity and shape: ids, file names, folders, unknown fields."""

from __future__ import annotations

import re

from pydantic import BaseModel

from sysdrill.check.context import FileContext
from sysdrill.content.enums import ItemKind, Track

__all__ = ["ID_PATTERN", "check_identity", "check_shape"]

_TRACKS = "|".join(track.value for track in Track)
_TRACK_NAMES = frozenset(track.value for track in Track)
ID_PATTERN = re.compile(rf"^({_TRACKS})-[A-Za-z0-9][A-Za-z0-9._-]*$")
"""An id: a track name, a hyphen, and a suffix of letters, digits, ``.``, ``_``, ``-``."""

_FLASHCARD_UNUSED = (
    ("scenario",),
    ("details", "common_mistake"),
    ("details", "napkin_math"),
    ("details", "options"),
)


def _unknown_fields(ctx: FileContext, model: BaseModel | None, loc: tuple[str | int, ...]) -> None:
    # The slot itself, not the ``model_extra`` property: this runs for every model of every item.
    extra = model.__pydantic_extra__ if model is not None else None
    if not extra:
        return
    for key in extra:
        dotted = ".".join(str(p) for p in (*loc, key))
        ctx.add("unknown-field", f"unknown field '{dotted}' is kept but not used", (*loc, key))


def check_shape(ctx: FileContext) -> None:
    """``unknown-field`` and ``kind-field-unused``."""
    item = ctx.item
    if (
        item.__pydantic_extra__
        or item.details.__pydantic_extra__
        or item.human_reviewed
        or item.source
    ):
        _unknown_fields(ctx, item, ())
        _unknown_fields(ctx, item.details, ("details",))
        _unknown_fields(ctx, item.human_reviewed, ("human_reviewed",))
        _unknown_fields(ctx, item.source, ("source",))
    for index, resource in enumerate(item.details.resources or ()):
        _unknown_fields(ctx, resource, ("details", "resources", index))
    for index, part in enumerate(item.parts or ()):
        _unknown_fields(ctx, part, ("parts", index))
    if item.kind is ItemKind.FLASHCARD:
        details = ctx.raw.get("details")
        for loc in _FLASHCARD_UNUSED:
            holder = ctx.raw if len(loc) == 1 else details
            if isinstance(holder, dict) and holder.get(loc[-1]):
                ctx.add(
                    "kind-field-unused",
                    f"a flashcard has no use for '{'.'.join(loc)}'",
                    loc,
                )


def _suffix(item_id: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "-", item_id).strip("-._") or "1"


def check_identity(ctx: FileContext) -> None:
    """``id-format``, ``id-matches-filename`` and ``track-matches-folder``."""
    item = ctx.item
    item_id = str(item.id)
    track = item.track.value if item.track is not None else None
    match = ID_PATTERN.match(item_id)
    if match is None:
        ctx.add(
            "id-format",
            f"id '{item_id}' is not `<track>-<suffix>`",
            ("id",),
            fix=f"rename it, for example '{track or 'global'}-{_suffix(item_id)}'",
        )
    elif track is not None and match.group(1) != track:
        ctx.add(
            "id-format",
            f"id '{item_id}' starts with track '{match.group(1)}' but the item's track is "
            f"'{track}'",
            ("id",),
            fix="make the id's prefix the item's track",
        )
    parts = ctx.loaded.rel.split("/")
    name = parts[-1]
    stem, dot, suffix = name.rpartition(".")
    if (stem if dot else name) != item_id:
        ctx.add(
            "id-matches-filename",
            f"file name '{name}' does not match id '{item_id}'",
            ("id",),
            fix=f"rename the file to '{item_id}.{suffix if dot else 'yaml'}'",
        )
    if track is not None and len(parts) >= 3 and parts[0] == "questions":
        folder = parts[1]
        if folder in _TRACK_NAMES and folder != track:
            ctx.add(
                "track-matches-folder",
                f"item is in folder 'questions/{folder}/' but its track is '{track}'",
                ("track",),
            )
