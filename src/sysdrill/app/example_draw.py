"""Parametric items outside a session: shown with one fixed draw, never raw.

A template's file holds ``{placeholders}`` that only a draw fills. Wherever an item is
shown outside a study session (``show``, search and its snippets, the web item page,
Anki and CSV exports), it is shown with the draw of :data:`EXAMPLE_SEED`, so the text
is concrete and the same every time; sessions draw fresh numbers from their own seed
(:mod:`sysdrill.app.template_draws`).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any

from sysdrill.content.compile import CompiledItem, with_shown_text
from sysdrill.content.models import Item, dump_item
from sysdrill.errors import ContentInvalid

if TYPE_CHECKING:
    from sysdrill.napkin.templates import TemplateDraw

__all__ = ["EXAMPLE_SEED", "example_draw", "shown_item", "with_example_text"]

EXAMPLE_SEED = 0
"""The seed of the one draw a parametric item is shown with outside sessions."""


def example_draw(item: Item) -> TemplateDraw | None:
    """The example draw of a parametric item; None for other items or a broken template.

    A template whose draw fails is reported by ``check`` (rule codes TPL*); showing
    its raw text then is better than refusing to show it at all.
    """
    if not item.is_template:
        return None
    # The napkin engine loads only when a vault has templates (search and show start fast).
    from sysdrill.napkin.templates import draw_template

    try:
        return draw_template(item, EXAMPLE_SEED)
    except ContentInvalid:
        return None


def shown_item(item: Item) -> Item:
    """The item as it is shown outside a session (a template: its example draw)."""
    draw = example_draw(item)
    return item if draw is None else draw.item


def with_example_text(items: Iterable[CompiledItem]) -> Iterator[CompiledItem]:
    """Compiled items whose searchable texts show a template's example draw.

    The stored item JSON stays the template, so ``show --json`` and sessions still
    see its parameters.
    """
    for compiled in items:
        row = compiled.row
        # Cheap test first: only a template's mapping names parameters.
        if '"parameters"' not in row.item_json:
            yield compiled
            continue
        raw: dict[str, Any] = json.loads(row.item_json)
        try:
            item = Item.model_validate(raw)
        except ValueError:
            yield compiled
            continue
        shown = shown_item(item)
        if shown is item:
            yield compiled
            continue
        yield CompiledItem(with_shown_text(row, dump_item(shown)), compiled.tags)
