"""Item rules about identity and shape: ids, file names, folders, unknown and misspelt fields."""

from __future__ import annotations

import difflib
import functools
import re
from collections.abc import Iterator

from pydantic import BaseModel

from sysdrill.check.context import FileContext
from sysdrill.content.enums import ItemKind, Track
from sysdrill.content.models import Details, Item

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


_CUTOFF = 0.85
"""How alike (difflib's ratio) an unknown field and a known one must be to call it a typo.

``napkin_maths`` and ``napkin_math`` score 0.96, ``realistic_soln`` and
``realistic_solution`` 0.88; fields a tool of the author's adds, such as ``notes_url``,
stay below it and remain ``unknown-field`` info."""


def _norm(name: str) -> str:
    return name.strip().lower().replace("-", "_").replace(" ", "_")


@functools.cache
def _known_names(model: type[BaseModel]) -> dict[str, str]:
    """The fields of ``model`` a key may have meant, normalised, to how they are written."""
    names: dict[str, str] = {}
    for name, info in model.model_fields.items():
        names[_norm(name)] = name
        if info.alias:
            names[_norm(info.alias)] = info.alias
    return names


_ELSEWHERE: dict[type[BaseModel], tuple[tuple[str, type[BaseModel]], ...]] = {
    # A field written one level off is as silently unused as a misspelt one.
    Item: (("details.", Details),),
    Details: (("", Item),),
}
"""Other places an item's fields live: a key of one model may belong in the other."""


def _likeness(wanted: str, known: str) -> float:
    """How alike two normalised names are: difflib's ratio, or 0.9 for swapped letters.

    difflib scores a transposition low (``anwser`` and ``answer``: 0.67), yet it is
    the commonest typo; the same letters in another order count as one.
    """
    if len(wanted) >= 4 and len(wanted) == len(known) and sorted(wanted) == sorted(known):
        return max(0.9, difflib.SequenceMatcher(None, wanted, known).ratio())
    return difflib.SequenceMatcher(None, wanted, known).ratio()


def _meant(model: type[BaseModel], key: str, prefix: str) -> str | None:
    """The known field ``key`` is probably a misspelling of, written as its path, or None."""
    wanted = _norm(key)
    best: tuple[float, str] | None = None
    for place, candidate_model in ((prefix, model), *_ELSEWHERE.get(model, ())):
        for normalised, written in _known_names(candidate_model).items():
            ratio = _likeness(wanted, normalised)
            # The model's own fields win a tie: a typo is likelier than a misplaced key.
            if ratio >= _CUTOFF and (best is None or ratio > best[0]):
                best = (ratio, place + written)
    return best[1] if best is not None else None


def _unknown_fields(ctx: FileContext, model: BaseModel | None, loc: tuple[str | int, ...]) -> None:
    # The slot itself, not the ``model_extra`` property: this runs for every model of every item.
    extra = model.__pydantic_extra__ if model is not None else None
    if not extra:
        return
    assert model is not None
    own_prefix = "".join(f"{p}." for p in loc)
    for key in extra:
        dotted = ".".join(str(p) for p in (*loc, key))
        meant = _meant(type(model), str(key), own_prefix) if isinstance(key, str) else None
        if meant is not None and meant != dotted:
            ctx.add(
                "field-misspelt",
                f"unknown field '{dotted}': did you mean `{meant}`? What it holds is "
                "neither shown nor checked",
                (*loc, key),
                fix=(
                    f"rename '{dotted}' to `{meant}`"
                    if meant.rpartition(".")[0] == dotted.rpartition(".")[0]
                    else f"move '{dotted}' to `{meant}`"
                ),
            )
        else:
            ctx.add("unknown-field", f"unknown field '{dotted}' is kept but not used", (*loc, key))


def _nested(item: Item) -> Iterator[tuple[BaseModel | None, tuple[str | int, ...]]]:
    """Every model inside an item whose unknown keys are reported, with its field path."""
    yield item, ()
    yield item.details, ("details",)
    yield item.human_reviewed, ("human_reviewed",)
    yield item.source, ("source",)
    yield item.visual, ("visual",)
    yield item.note_link, ("note_link",)
    yield item.answer_calculator, ("answer_calculator",)
    for index, resource in enumerate(item.details.resources or ()):
        yield resource, ("details", "resources", index)
    for index, part in enumerate(item.parts or ()):
        yield part, ("parts", index)
    for index, chain in enumerate(item.chains or ()):
        if isinstance(chain, BaseModel):
            yield chain, ("chains", index)
    for name, parameter in (item.parameters or {}).items():
        yield parameter, ("parameters", name)
    for name, value in (item.derived or {}).items():
        yield value, ("derived", name)


def check_shape(ctx: FileContext) -> None:
    """``unknown-field``, ``field-misspelt`` and ``kind-field-unused``."""
    item = ctx.item
    for model, loc in _nested(item):
        _unknown_fields(ctx, model, loc)
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
