"""Gauntlet formats and picks: warm-up from a lower level, zones spread, seeds repeat."""

from __future__ import annotations

from datetime import timedelta

import pytest

from sysdrill.content.enums import Level, Track, Zone
from sysdrill.errors import UsageError
from sysdrill.study.ratings import GradedBy
from sysdrill.study.sessions.gauntlet import (
    FORMATS,
    GauntletFormat,
    expected_minutes,
    gauntlet_plan,
    pick_gauntlet,
)


def test_formats_have_the_documented_sizes_and_times():
    sizes = {fmt.value: (spec.questions, spec.minutes) for fmt, spec in FORMATS.items()}
    assert sizes == {"quick": (5, 10), "standard": (10, 20), "full": (15, 35), "design": (1, 15)}


def test_quick_gauntlet_opens_with_a_lower_level_warmup(vault):
    pick = pick_gauntlet(vault.items, fmt=GauntletFormat.QUICK, level=Level.L4, seed=1)
    assert len(pick.items) == 5
    warmup, *main = pick.items
    assert pick.warmup_id == warmup.id
    assert warmup.level is Level.L3
    assert all(item.level.rank >= Level.L4.rank - 1 for item in main)
    assert [item.level.rank for item in main] == sorted(item.level.rank for item in main)
    assert sum(item.level is Level.L4 for item in main) == 2


def test_picks_spread_across_zones(vault):
    for seed in range(10):
        pick = pick_gauntlet(vault.items, fmt=GauntletFormat.QUICK, seed=seed)
        zones = [item.zone for item in pick.items]
        assert len(set(zones)) == len(zones), zones


def test_without_level_the_warmup_is_from_the_lowest_level(vault):
    pick = pick_gauntlet(vault.items, fmt=GauntletFormat.QUICK, track=Track.CLOUD, seed=4)
    assert pick.items[0].level is Level.L1
    assert all(item.track is Track.CLOUD for item in pick.items)


def test_same_seed_same_gauntlet_other_seed_other_gauntlet(vault):
    def ids(seed):
        return [i.id for i in pick_gauntlet(vault.items, fmt=GauntletFormat.QUICK, seed=seed).items]

    assert ids(7) == ids(7)
    assert len({tuple(ids(seed)) for seed in range(20)}) > 1


def test_gauntlet_never_asks_flashcards(vault):
    pick = pick_gauntlet(vault.items, fmt=GauntletFormat.FULL, seed=0)
    assert all(not item.id.startswith("fc-") for item in pick.items)
    assert pick.note == "only 14 of 15 questions available"


def test_design_format_is_one_design_question_without_warmup(vault):
    pick = pick_gauntlet(vault.items, fmt=GauntletFormat.DESIGN, seed=0)
    assert [item.id for item in pick.items] == ["c-l5-design"]
    assert pick.warmup_id is None
    edge = pick_gauntlet(vault.items, fmt=GauntletFormat.DESIGN, track=Track.EDGE, seed=0)
    assert edge.items[0].zone is Zone.SPECIFICATION


def test_no_lower_level_means_no_warmup_and_a_note(vault):
    pick = pick_gauntlet(
        vault.items, fmt=GauntletFormat.QUICK, track=Track.EDGE, level=Level.L1, seed=0
    )
    assert pick.warmup_id is None
    assert pick.note == "no lower-level question for a warm-up; only 2 of 5 questions available"


def test_nothing_to_ask_is_a_usage_error(vault):
    with pytest.raises(UsageError) as caught:
        pick_gauntlet(vault.items, fmt=GauntletFormat.DESIGN, track=Track.TINYML)
    assert str(caught.value) == (
        "No design question (design/realization/specification zone) for track tinyml. "
        "Try another track, or the quick format."
    )
    with pytest.raises(UsageError, match="No gauntlet questions for track mobile"):
        pick_gauntlet(vault.items, fmt=GauntletFormat.QUICK, track=Track.MOBILE)


def test_plan_has_one_countdown_and_gauntlet_grading(vault):
    pick = pick_gauntlet(vault.items, fmt=GauntletFormat.STANDARD, seed=2)
    plan = gauntlet_plan(pick, GauntletFormat.STANDARD)
    assert plan.time_limit == timedelta(minutes=20)
    assert plan.graded_by is GradedBy.GAUNTLET
    assert plan.rubric_scoring
    assert plan.warmup_ids == {pick.warmup_id}
    assert plan.title == "Gauntlet (standard): 10 questions in 20 minutes"


@pytest.mark.parametrize("fmt", [GauntletFormat.QUICK, GauntletFormat.STANDARD])
def test_expected_time_of_a_gauntlet_fits_its_countdown_on_the_starter_vault(fmt):
    from sysdrill.content.loader import load_vault
    from sysdrill.content.sample import starter_vault_path

    items = load_vault(starter_vault_path()).items
    spec = FORMATS[fmt]
    for seed in range(40):
        pick = pick_gauntlet(items, fmt=fmt, seed=seed)
        minutes = sum(expected_minutes(item, spec) for item in pick.items)
        assert minutes <= spec.minutes, (seed, [i.id for i in pick.items])
        assert len(pick.items) == spec.questions and pick.note is None


def test_a_question_without_an_estimate_counts_its_share_of_the_countdown(vault):
    spec = FORMATS[GauntletFormat.QUICK]
    item = next(i for i in vault.items if i.expected_time_minutes is None)
    assert expected_minutes(item, spec) == 2.0
