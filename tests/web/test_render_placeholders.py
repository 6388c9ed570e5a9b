"""Item text that looks like the renderer's own placeholders renders as text, never a crash."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from hypothesis import given, settings
from hypothesis import strategies as st

from sysdrill.web.render import render_inline, render_markdown

from .conftest import make_app

OLD_PLACEHOLDERS = [
    "SYSDRILLMATH0Z",
    "SYSDRILLMATH7Z and $x$",
    "$x$ then SYSDRILLMATH1Z",
    "SYSDRILLSOUND0Z",
    "[sound:media/a.mp3] SYSDRILLSOUND4Z",
    "SYSDRILLMATH99999999999999999999Z",
    "$\\text{SYSDRILLSOUND0Z}$",
]


@pytest.mark.parametrize("text", OLD_PLACEHOLDERS)
def test_text_holding_a_placeholder_word_renders_it_as_text(text: str) -> None:
    for rendered in (str(render_markdown(text)), str(render_inline(text))):
        assert "SYSDRILL" in rendered


def test_formulas_and_sounds_still_render_beside_placeholder_words() -> None:
    rendered = str(render_markdown("$x$ SYSDRILLMATH0Z [sound:media/a.mp3] SYSDRILLSOUND0Z"))
    assert rendered.count("<math") == 1
    assert '<audio controls="" src="/media/a.mp3"></audio>' in rendered
    assert "SYSDRILLMATH0Z" in rendered and "SYSDRILLSOUND0Z" in rendered


PLACEHOLDER_LIKE = st.builds(
    "SYSDRILL{}{}Z".format, st.sampled_from(["MATH", "SOUND"]), st.integers(0, 10**25)
)
PIECES = st.sampled_from(["$x$", "$$y$$", "\\(z\\)", "`code`", "[sound:media/a.mp3]", " ", "\n"])


@settings(max_examples=200, deadline=None)
@given(st.lists(PLACEHOLDER_LIKE | PIECES | st.text(max_size=8), max_size=10).map("".join))
def test_any_text_renders(text: str) -> None:
    render_markdown(text)
    render_inline(text)


HOSTILE = """\
schema_version: '1.0'
id: cloud-0198
format: flashcard
track: cloud
level: L1
zone: recall
topic: data-parallelism
competency_area: parallelism
title: 'Placeholder SYSDRILLMATH0Z title'
question: 'What is SYSDRILLMATH3Z, SYSDRILLSOUND0Z and $x$?'
details:
  realistic_solution: 'SYSDRILLMATH0Z'
status: published
provenance: human
"""


def test_an_item_holding_placeholder_words_has_a_page(tmp_path: Path) -> None:
    import shutil

    from sysdrill.content.sample import sample_vault_path

    vault = tmp_path / "vault"
    shutil.copytree(sample_vault_path(), vault)
    (vault / "questions" / "cloud" / "cloud-0198.yaml").write_text(HOSTILE, encoding="utf-8")
    with TestClient(make_app(tmp_path / "web", vault=vault)) as client:
        page = client.get("/items/cloud-0198")
        assert page.status_code == 200
        assert "SYSDRILLMATH3Z" in page.text
        assert client.get("/api/items/cloud-0198").status_code == 200
        assert client.get("/vault").status_code == 200
