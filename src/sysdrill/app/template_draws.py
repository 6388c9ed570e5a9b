"""Parametric items in sessions: each session draws its templates from a seed it saves.

A session started with templates among its items saves a seed in its options
(``started_with["template_seed"]``); every process that loads the session draws
the same numbers from it (:func:`sysdrill.napkin.templates.draw_template` is pure),
shows them, and grades the typed answer against that draw's computed answer. The
numbers shown are stored in the session record's meta, which every review of the
session points to by its session id (:func:`template_draws`).
"""

from __future__ import annotations

import json
from collections.abc import Collection
from dataclasses import replace
from typing import Any

from sysdrill.app.study_vault import StudyVault
from sysdrill.content.models import Item
from sysdrill.napkin.templates import TemplateDraw, draw_seed, draw_template
from sysdrill.study.service import StudyService
from sysdrill.study.sessions.saved import SavedSession
from sysdrill.study.sessions.state_machine import SessionLineup

__all__ = [
    "TEMPLATE_DRAWS_KEY",
    "TEMPLATE_SEED_KEY",
    "drawn_vault",
    "template_draws",
    "with_template_draws",
]


TEMPLATE_SEED_KEY = "template_seed"
"""Key of ``started_with`` holding the seed a session draws its templates from."""
TEMPLATE_DRAWS_KEY = "template_draws"
"""Key of the session record's meta holding the numbers each template showed (JSON)."""


def _session_template_seed(saved: SavedSession) -> int | None:
    seed = dict(saved.options.get("started_with", {})).get(TEMPLATE_SEED_KEY)
    return None if seed is None else int(seed)


def _draws(items: Collection[Item], seed: int) -> dict[str, TemplateDraw]:
    return {
        item.id: draw_template(item, draw_seed(seed, item.id)) for item in items if item.is_template
    }


def drawn_vault(vault: StudyVault, saved: SavedSession) -> StudyVault:
    """The vault with the session's templates replaced by the items they drew.

    The draw is a pure function of the template and the seed saved at start, so
    every process that resumes the session shows (and grades) the same numbers.
    """
    seed = _session_template_seed(saved)
    if seed is None:
        return vault
    asked = [vault.by_id[i] for i in saved.item_ids if i in vault.by_id]
    draws = _draws(asked, seed)
    if not draws:
        return vault
    by_id = dict(vault.by_id)
    by_id.update({item_id: draw.item for item_id, draw in draws.items()})
    return replace(vault, by_id=by_id)


def with_template_draws(
    plan: SessionLineup, started_with: dict[str, Any], seed: int
) -> tuple[SessionLineup, dict[str, Any]]:
    """Note the seed in the options and the numbers drawn in the session record's meta."""
    draws = _draws(plan.items, seed)
    if not draws:
        return plan, started_with
    shown = {item_id: draw.to_dict() for item_id, draw in draws.items()}
    meta = {**plan.meta, TEMPLATE_DRAWS_KEY: json.dumps(shown, sort_keys=True)}
    return replace(plan, meta=meta), {**started_with, TEMPLATE_SEED_KEY: seed}


def template_draws(study: StudyService, session_id: int) -> dict[str, dict[str, Any]]:
    """The numbers each template of a session showed, by item id (empty when none).

    Reviews carry their session's id, so this is how a review log entry of a
    parametric item is traced to the numbers the learner saw.
    """
    for record in study.sessions():
        if record.session_id == session_id:
            stored = record.meta.get(TEMPLATE_DRAWS_KEY)
            if isinstance(stored, str):
                loaded: dict[str, dict[str, Any]] = json.loads(stored)
                return loaded
    return {}
