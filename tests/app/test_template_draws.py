"""Sessions show a fresh, reproducible draw of each template and grade against it."""

from __future__ import annotations

import shutil
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from sysdrill.app import sessions as app
from sysdrill.app.sessions import StartOptions
from sysdrill.app.study_vault import StudyVault
from sysdrill.content.loader import load_vault
from sysdrill.napkin.grading import example_answer
from sysdrill.napkin.templates import draw_seed, draw_template
from sysdrill.storage.memory import MemoryStudyStore
from sysdrill.study.filters import ItemFilter
from sysdrill.study.service import StudyService
from sysdrill.study.sessions.state_machine import SessionKind
from sysdrill.study.user_state import VaultId

STARTER = Path(__file__).resolve().parents[2] / "src/sysdrill/content/starter_vault"
TEMPLATE = "cloud-4000"
T0 = datetime(2026, 11, 21, 9, 0, tzinfo=UTC)


@pytest.fixture(scope="module")
def vault(tmp_path_factory: pytest.TempPathFactory) -> StudyVault:
    root = tmp_path_factory.mktemp("vault")
    shutil.copy(STARTER / "taxonomy.yaml", root / "taxonomy.yaml")
    (root / "questions" / "cloud").mkdir(parents=True)
    shutil.copy(STARTER / f"questions/cloud/{TEMPLATE}.yaml", root / "questions" / "cloud")
    return StudyVault.of(load_vault(root))


def _start(study: StudyService, vault: StudyVault, seed: int) -> app.SessionView:
    options = StartOptions(SessionKind.PRACTICE, ItemFilter(), seed=seed)
    return app.start_session(study, vault, options, now=T0)


def test_a_session_shows_the_draw_of_its_seed_and_grades_against_it(vault):
    study = StudyService(MemoryStudyStore(), vault_id=VaultId("test"), now=T0)
    view = _start(study, vault, seed=7)
    draw = draw_template(vault.by_id[TEMPLATE], draw_seed(7, TEMPLATE))
    assert view.item is not None and view.item.mode == "numeric"
    assert view.item.scenario == draw.item.scenario
    assert "{" not in (view.item.scenario or "")
    assert view.session_id is not None
    typed = example_answer(draw.answer_value, "ms")
    answered = app.answer(study, vault, view.session_id, typed, now=T0 + timedelta(seconds=9))
    assert answered.feedback is not None and answered.feedback.correct is True
    shown = app.template_draws(study, view.session_id)
    assert shown[TEMPLATE]["values"] == draw.values
    assert shown[TEMPLATE]["answer_value"] == draw.answer_value


def test_two_sessions_with_other_seeds_show_other_numbers(vault):
    scenarios = set()
    for seed in range(1, 6):
        study = StudyService(MemoryStudyStore(), vault_id=VaultId("test"), now=T0)
        view = _start(study, vault, seed=seed)
        assert view.item is not None
        scenarios.add(view.item.scenario)
    assert len(scenarios) > 1


def test_the_previous_draws_answer_is_marked_wrong_on_a_new_draw(vault):
    template = vault.by_id[TEMPLATE]
    first = draw_template(template, draw_seed(1, TEMPLATE))
    seed = next(
        s
        for s in range(2, 50)
        if abs(
            draw_template(template, draw_seed(s, TEMPLATE)).answer_value / first.answer_value - 1
        )
        > 0.2
    )
    study = StudyService(MemoryStudyStore(), vault_id=VaultId("test"), now=T0)
    view = _start(study, vault, seed=seed)
    assert view.session_id is not None
    typed = example_answer(first.answer_value, "ms")
    answered = app.answer(study, vault, view.session_id, typed, now=T0 + timedelta(seconds=9))
    assert answered.feedback is not None and answered.feedback.correct is False


def test_undoing_a_template_review_asks_the_same_numbers_again(vault):
    study = StudyService(MemoryStudyStore(), vault_id=VaultId("test"), now=T0)
    view = _start(study, vault, seed=11)
    assert view.session_id is not None and view.item is not None
    shown = view.item.scenario
    app.answer(study, vault, view.session_id, "1 ms", now=T0 + timedelta(seconds=5))
    undone = app.undo_last_rating(study, vault, view.session_id, now=T0 + timedelta(seconds=9))
    assert undone.item is not None and undone.item.scenario == shown
