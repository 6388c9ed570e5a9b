"""Gauntlets: timed mock interviews, their formats and how questions are picked.

A gauntlet opens with a warm-up from a lower level, then spreads its picks
across zones (recall, analyze, design, ...) the way an interviewer moves from
one kind of thinking to another, and runs under one countdown. Picks are
random but reproducible: the same seed gives the same gauntlet.
"""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import timedelta
from enum import StrEnum

from sysdrill.content.enums import ItemKind, Level, Track, Zone
from sysdrill.content.models import Item
from sysdrill.errors import UsageError
from sysdrill.study.ratings import GradedBy
from sysdrill.study.sessions.selection import studyable
from sysdrill.study.sessions.state_machine import (
    AnswerMode,
    SessionKind,
    SessionLineup,
    answer_mode,
)

__all__ = [
    "DESIGN_ZONES",
    "FORMATS",
    "FormatSpec",
    "GauntletFormat",
    "GauntletPick",
    "expected_minutes",
    "gauntlet_plan",
    "pick_gauntlet",
]


class GauntletFormat(StrEnum):
    """The gauntlet formats."""

    QUICK = "quick"
    STANDARD = "standard"
    FULL = "full"
    DESIGN = "design"


@dataclass(frozen=True, slots=True)
class FormatSpec:
    """Size and time of one format."""

    questions: int
    """Questions asked, the warm-up included."""
    minutes: int
    """Length of the countdown, in minutes."""
    warmup: bool
    """Whether the first question is a warm-up from a lower level."""


FORMATS: dict[GauntletFormat, FormatSpec] = {
    GauntletFormat.QUICK: FormatSpec(questions=5, minutes=10, warmup=True),
    GauntletFormat.STANDARD: FormatSpec(questions=10, minutes=20, warmup=True),
    GauntletFormat.FULL: FormatSpec(questions=15, minutes=35, warmup=True),
    GauntletFormat.DESIGN: FormatSpec(questions=1, minutes=15, warmup=False),
}
"""Every format: quick 5 in 10 min, standard 10 in 20, full 15 in 35, design 1 in 15."""

DESIGN_ZONES: tuple[Zone, ...] = (Zone.DESIGN, Zone.REALIZATION, Zone.SPECIFICATION)
"""Zones a design gauntlet draws from, most wanted first."""


@dataclass(frozen=True, slots=True)
class GauntletPick:
    """The questions of one gauntlet."""

    items: tuple[Item, ...]
    """Warm-up first, then the main questions from lower to higher level."""
    warmup_id: str | None
    note: str | None = None
    """Why the gauntlet is shorter than its format, or lacks a warm-up."""


def _scorable(item: Item) -> bool:
    """Whether a gauntlet can score the item (a flashcard is no interview question)."""
    if item.kind is ItemKind.FLASHCARD:
        return False
    return answer_mode(item) is not AnswerMode.FREE_TEXT or bool(item.details.realistic_solution)


def _rank(item: Item) -> int:
    return item.level.rank if item.level is not None else 0


def _zone(item: Item) -> str:
    return item.zone.value if item.zone else ""


def _spread(
    pool: Sequence[Item], count: int, rng: random.Random, used: Sequence[Item] = ()
) -> list[Item]:
    """Pick ``count`` items taking one zone after another, so zones are spread evenly.

    Zones of ``used`` (items already in the gauntlet) come after the others.
    """
    by_zone: dict[str, list[Item]] = defaultdict(list)
    for item in pool:
        by_zone[_zone(item)].append(item)
    taken = {_zone(item) for item in used}
    fresh = sorted(zone for zone in by_zone if zone not in taken)
    stale = sorted(zone for zone in by_zone if zone in taken)
    rng.shuffle(fresh)
    rng.shuffle(stale)
    zones = fresh + stale
    for zone in zones:
        rng.shuffle(by_zone[zone])
    picked: list[Item] = []
    while len(picked) < count and any(by_zone.values()):
        for zone in zones:
            if by_zone[zone] and len(picked) < count:
                picked.append(by_zone[zone].pop())
    return picked


def expected_minutes(item: Item, spec: FormatSpec) -> float:
    """Minutes the item is expected to take: its own estimate, else the format's share."""
    if item.expected_time_minutes is not None and item.expected_time_minutes > 0:
        return float(item.expected_time_minutes)
    return spec.minutes / spec.questions


def _fit_time(
    main: list[Item],
    pool: Sequence[Item],
    spec: FormatSpec,
    fixed: Sequence[Item],
    rng: random.Random,
) -> list[Item]:
    """Swap or drop main questions until the gauntlet's expected time fits its countdown.

    The longest question goes first: it is swapped for an unused one that brings
    the total within the limit, chosen at random among those of the same level and
    zone (else the nearest match); failing that, for the shortest unused one when
    it is shorter; failing that, it is dropped. ``fixed`` (the warm-up) counts
    towards the time but stays.
    """

    def minutes(item: Item) -> float:
        return expected_minutes(item, spec)

    picked = list(main)
    used = {item.id for item in (*picked, *fixed)}
    spare = [item for item in pool if item.id not in used]
    total = sum(minutes(item) for item in (*picked, *fixed))
    while picked and total > spec.minutes + 1e-9:
        longest = max(picked, key=lambda item: (minutes(item), item.id))
        over = total - spec.minutes
        fitting = [c for c in spare if minutes(c) <= minutes(longest) - over]
        swap: Item | None = None
        if fitting:

            def likeness(c: Item, like: Item = longest) -> tuple[bool, bool]:
                return (c.level == like.level, c.zone == like.zone)

            best = max(map(likeness, fitting))
            swap = rng.choice([c for c in fitting if likeness(c) == best])
        else:
            shortest = min(spare, key=lambda c: (minutes(c), c.id), default=None)
            if shortest is not None and minutes(shortest) < minutes(longest):
                swap = shortest
        picked.remove(longest)
        total -= minutes(longest)
        if swap is not None:
            picked.append(swap)
            spare.remove(swap)
            total += minutes(swap)
    return picked


def _pick_design(pool: Sequence[Item], level: Level | None, rng: random.Random) -> list[Item]:
    for zone in DESIGN_ZONES:
        zoned = [item for item in pool if item.zone is zone]
        at_level = [item for item in zoned if level is None or item.level is level]
        for group in (at_level, zoned):
            if group:
                return [rng.choice(sorted(group, key=lambda item: item.id))]
    return []


def pick_gauntlet(
    items: Sequence[Item],
    *,
    fmt: GauntletFormat,
    track: Track | None = None,
    level: Level | None = None,
    seed: int = 0,
) -> GauntletPick:
    """Pick the questions of a gauntlet.

    With ``level``, the main questions come from that level (filled from the
    nearest levels when it has too few) and the warm-up from the closest lower
    level; without it, the warm-up is one of the lowest-level questions and the
    main questions come from all levels.

    Args:
        items: The vault's items.
        fmt: The format.
        track: Only questions of this track.
        level: The level the gauntlet aims at.
        seed: Seed of the random picks (same seed, same gauntlet).

    Returns:
        The picks, warm-up first.

    Raises:
        UsageError: If no question matches the track and level.
    """
    spec = FORMATS[fmt]
    rng = random.Random(seed)
    pool = sorted(
        (
            item
            for item in studyable(items)
            if _scorable(item) and (track is None or item.track is track)
        ),
        key=lambda item: item.id,
    )
    where = " and ".join(
        part
        for part in (f"track {track}" if track else "", f"level {level}" if level else "")
        if part
    )
    if fmt is GauntletFormat.DESIGN:
        picked = _pick_design(pool, level, rng)
        if not picked:
            zones = "/".join(zone.value for zone in DESIGN_ZONES)
            raise UsageError(
                f"No design question ({zones} zone){' for ' + where if where else ''}. "
                "Try another track, or the quick format."
            )
        return GauntletPick(tuple(picked), None)
    leveled = [item for item in pool if item.level is not None]
    target_rank = level.rank if level is not None else None
    warmup: Item | None = None
    if spec.warmup:
        if target_rank is not None:
            lower = [item for item in leveled if _rank(item) < target_rank]
        else:
            lowest = min((_rank(item) for item in leveled), default=0)
            lower = [item for item in leveled if _rank(item) == lowest]
        if lower:
            closest = max(_rank(item) for item in lower)
            nearest = [item for item in lower if _rank(item) == closest]
            # A warm-up is short: one within its share of the countdown when there is one.
            share = spec.minutes / spec.questions
            brief = [item for item in nearest if expected_minutes(item, spec) <= share]
            warmup = rng.choice(brief or nearest)
    rest = [item for item in pool if item is not warmup]
    wanted = spec.questions - (1 if warmup else 0)
    if target_rank is not None:
        main: list[Item] = []
        # Nearest levels first: the target, then one away (above before below), ...
        for distance in range(6):
            for rank in (target_rank + distance, target_rank - distance):
                band = [item for item in rest if _rank(item) == rank and item not in main]
                before = [*main, *([warmup] if warmup else [])]
                main.extend(_spread(band, wanted - len(main), rng, before))
            if len(main) >= wanted:
                break
    else:
        main = _spread(rest, wanted, rng, [warmup] if warmup else [])
    before_fit = len(main)
    main = _fit_time(main, rest, spec, [warmup] if warmup else [], rng)
    cut = before_fit - len(main)
    if not main and warmup is None:
        raise UsageError(
            f"No gauntlet questions{' for ' + where if where else ''}. "
            "Choose no track or level, or add questions with model answers."
        )
    main.sort(key=_rank)
    picked = ([warmup] if warmup else []) + main
    notes = []
    if spec.warmup and warmup is None:
        notes.append("no lower-level question for a warm-up")
    if len(picked) < spec.questions:
        if cut:
            notes.append(
                f"{len(picked)} of {spec.questions} questions: {cut} left out so the "
                f"expected time fits {spec.minutes} minutes"
            )
        else:
            notes.append(f"only {len(picked)} of {spec.questions} questions available")
    return GauntletPick(tuple(picked), warmup.id if warmup else None, "; ".join(notes) or None)


def gauntlet_plan(pick: GauntletPick, fmt: GauntletFormat) -> SessionLineup:
    """The session plan of a picked gauntlet: one countdown, rubric scoring."""
    spec = FORMATS[fmt]
    return SessionLineup(
        kind=SessionKind.GAUNTLET,
        title=f"Gauntlet ({fmt.value}): {len(pick.items)} questions in {spec.minutes} minutes",
        items=pick.items,
        time_limit=timedelta(minutes=spec.minutes),
        rubric_scoring=True,
        graded_by=GradedBy.GAUNTLET,
        warmup_ids=frozenset({pick.warmup_id}) if pick.warmup_id else frozenset(),
        meta={"format": fmt.value},
    )
