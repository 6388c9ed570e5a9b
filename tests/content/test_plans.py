"""Plans as vault data: reading plans.yaml, and the starter vault's plans."""

from __future__ import annotations

from pathlib import Path

import pytest

from sysdrill.content.loader import load_vault
from sysdrill.content.plans import load_plans, load_prerequisites
from sysdrill.content.sample import starter_vault_path
from sysdrill.errors import ContentInvalid
from sysdrill.study.plans import order_plan_items


def test_the_starter_vault_plans_fit_their_days() -> None:
    starter = load_vault(starter_vault_path())
    prerequisites = load_prerequisites(starter_vault_path())
    plans = load_plans(starter_vault_path())
    assert [(p.name, p.days) for p in plans] == [
        ("refresher-1w", 7),
        ("interview-2w", 14),
        ("interview-4w", 28),
        ("stability-and-post-training-1w", 7),
        ("frontier-lab-2w", 14),
    ]
    for plan in plans:
        ordered = order_plan_items(plan, starter.items, starter.decks, prerequisites)
        # Every item of the plan is introduced by its last day, and none is left idle.
        assert plan.budget - plan.new_per_day < len(ordered) <= plan.budget, plan.name


def test_a_vault_without_plans_has_none(tmp_path: Path) -> None:
    assert load_plans(tmp_path) == []


def test_malformed_plans_file_names_every_problem(tmp_path: Path) -> None:
    (tmp_path / "plans.yaml").write_text(
        "plans:\n- name: a\n  title: A\n  days: 0\n  new_per_day: 5\n  order: random\n"
        "- name: a\n  title: B\n  days: 2\n  new_per_day: 1\n",
        encoding="utf-8",
    )
    with pytest.raises(ContentInvalid) as caught:
        load_plans(tmp_path)
    message = str(caught.value)
    assert "plans[0].days must be a whole number of 1 or more" in message
    assert "plans[0].order must be one of prerequisites, level" in message
    assert message.startswith(f"{tmp_path / 'plans.yaml'}: ")
