"""What the item page shows: the item, its checked napkin math, its chains and visual.

Kept apart from the routes so the page and its ``/api/items/{id}`` twin show the
same data. The napkin claims listed are a learner's view
(:func:`sysdrill.app.learner_napkin.learner_claims`): those that hold and those
``check`` reports as errors; doubts and abstentions never reach the page.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sysdrill.app.learner_napkin import learner_claims
from sysdrill.content.collections import Chain
from sysdrill.content.ignore_marks import without_ignore_marks
from sysdrill.content.models import Item
from sysdrill.napkin import ClaimVerdict, Verdict
from sysdrill.napkin.diagram_text import diagram_results, diagram_summary
from sysdrill.napkin.diagrams import DiagramGeometry, item_diagram
from sysdrill.study.sessions.text import untitled_heading
from sysdrill.study.sessions.view import item_view as session_item_view

__all__ = ["ChainStrip", "ItemView", "claim_rows", "item_view", "read_visual"]

_VISUAL_LIMIT_BYTES = 512 * 1024
"""Largest visual shown inline; a bigger file is left out (its alt text stays)."""

_MARKS = {
    Verdict.OK: ("right", "ok"),
    Verdict.WRONG: ("wrong", "bad"),
    Verdict.UNIT_MISMATCH: ("units differ", "bad"),
    Verdict.PREFIX_AMBIGUOUS: ("prefix?", "warn"),
    Verdict.SKIPPED: ("not checked", "muted"),
}


@dataclass(frozen=True, slots=True)
class ChainStrip:
    """One chain through the item: every member, where the item stands, what is next."""

    chain_id: str
    title: str
    members: list[dict[str, Any]]
    """``{"id", "title", "level", "current"}`` per member, in chain order."""
    next_id: str | None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready mapping."""
        return {
            "chain_id": self.chain_id,
            "title": self.title,
            "members": self.members,
            "next_id": self.next_id,
        }


@dataclass(frozen=True, slots=True)
class ItemView:
    """Everything the item page shows."""

    item: Item
    claims: list[dict[str, Any]]
    chains: list[ChainStrip]
    visual_svg: str | None
    """The visual's SVG text as stored (sanitized when rendered), or None."""
    diagram: DiagramGeometry | None = None
    """The picture drawn from the item's numbers (its ``diagram``), or None."""
    heading: str = ""
    """The title, or the first words of the question (the one rule every view uses)."""
    facts: tuple[tuple[str, str], ...] = ()
    """Every classification field set, as (name, value), as ``sysdrill show`` lists them."""

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready mapping (the item as in the vault, plus claims and chains)."""
        return {
            "item": self.item.model_dump(mode="json", exclude_none=True),
            "heading": self.heading,
            "facts": dict(self.facts),
            "claims": self.claims,
            "chains": [c.to_dict() for c in self.chains],
            "has_visual": self.visual_svg is not None,
            "diagram": None
            if self.diagram is None
            else {
                "description": diagram_summary(self.diagram),
                "results": diagram_results(self.diagram),
            },
        }


def _number(value: float | None, unit: str) -> str:
    if value is None:
        return ""
    magnitude = abs(value)
    shown = f"{value:,.4g}" if magnitude < 1e6 else f"{value:.4g}"
    return f"{shown} {unit}".strip()


def claim_rows(verdicts: list[ClaimVerdict]) -> list[dict[str, Any]]:
    """Each checked claim with its mark (right, wrong, ...) and the computed value."""
    rows = []
    for verdict in verdicts:
        mark, tone = _MARKS[verdict.verdict]
        rows.append(
            {
                **verdict.to_dict(),
                "mark": mark,
                "tone": tone,
                "computed_shown": _number(verdict.computed, verdict.unit),
            }
        )
    return rows


def _chain_strips(item: Item, chains: list[Chain], by_id: Mapping[str, Item]) -> list[ChainStrip]:
    strips = []
    for chain in chains:
        if item.id not in chain.items:
            continue
        position = chain.items.index(item.id)
        members = []
        for member_id in chain.items:
            member = by_id.get(member_id)
            members.append(
                {
                    "id": member_id,
                    "title": (member.title or untitled_heading(member)) if member else member_id,
                    "level": member.level.value if member and member.level else None,
                    "current": member_id == item.id,
                }
            )
        following = chain.items[position + 1] if position + 1 < len(chain.items) else None
        strips.append(ChainStrip(chain.id, chain.title or chain.id, members, following))
    return strips


def read_visual(vault_root: Path, item: Item) -> str | None:
    """The SVG text of the item's visual, or None when it has none or it cannot be read.

    The path must be a bare file name in ``visuals/<track>/``; anything that would
    leave that folder is not read.
    """
    visual = item.visual
    if visual is None or visual.kind != "svg" or item.track is None:
        return None
    name = Path(visual.path).name
    if name != visual.path or not name.endswith(".svg"):
        return None
    folder = (vault_root / "visuals" / item.track.value).resolve()
    path = (folder / name).resolve()
    if path.parent != folder or not path.is_file():
        return None
    if path.stat().st_size > _VISUAL_LIMIT_BYTES:
        return None
    return path.read_text(encoding="utf-8", errors="replace")


def item_view(
    item: Item,
    *,
    vault_root: Path,
    chains: list[Chain],
    by_id: Mapping[str, Item],
    source: Path | None = None,
) -> ItemView:
    """Assemble the item page: claims checked, chains located, visual read.

    Args:
        item: The item shown.
        vault_root: The vault folder (visuals live under it).
        chains: The vault's chains.
        by_id: Every item of the vault by id (for chain members' titles).
        source: The item's file, whose ignore comments keep a claim the author
            silenced from being marked wrong (None: no file, or a template's draw).
    """
    item = without_ignore_marks(item)
    math = item.details.napkin_math
    claims = claim_rows(learner_claims(math, source=source)) if math else []
    shown = session_item_view(item)
    return ItemView(
        item=item,
        claims=claims,
        chains=_chain_strips(item, chains, by_id),
        visual_svg=read_visual(vault_root, item),
        diagram=item_diagram(item),
        heading=shown.heading,
        facts=shown.facts,
    )
