"""The app's shared state: one database engine for the app's life, a large vault kept settled."""

from __future__ import annotations

import gc
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from tests.web.conftest import make_app

from sysdrill.storage.engine import acquire_engine, release_engine
from sysdrill.web import context as context_module


def _engine_now(url: str) -> object:
    engine = acquire_engine(url)
    release_engine(url, engine)
    return engine


def test_a_running_app_keeps_one_engine_between_requests(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    url = app.state.sysdrill.db_url
    with TestClient(app) as client:
        assert client.get("/api/dashboard").status_code == 200
        first = _engine_now(url)
        assert client.get("/api/dashboard").status_code == 200
        assert _engine_now(url) is first
    # Stopped, the app lets go: the next opener gets a new engine.
    assert _engine_now(url) is not first


def test_a_large_vault_once_loaded_is_kept_out_of_full_garbage_collections(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(context_module, "SETTLE_HEAP_MIN_ITEMS", 1)
    gc.unfreeze()
    try:
        context = make_app(tmp_path).state.sysdrill
        context.load_vault()
        frozen = gc.get_freeze_count()
        assert frozen > 0
        # The same vault again: nothing to settle. (A frozen object freed meanwhile, by
        # another test's thread or a weak reference, lowers the count: only a new freeze,
        # which would add the whole heap again, raises it.)
        context.load_vault()
        assert gc.get_freeze_count() <= frozen
    finally:
        gc.unfreeze()


def test_a_small_vault_leaves_the_garbage_collector_alone(tmp_path: Path) -> None:
    gc.unfreeze()
    context = make_app(tmp_path).state.sysdrill
    assert len(context.load_vault().items) < context_module.SETTLE_HEAP_MIN_ITEMS
    assert gc.get_freeze_count() == 0
