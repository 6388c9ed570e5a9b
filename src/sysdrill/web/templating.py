"""Jinja2 templates: one environment whose filters all go through :mod:`sysdrill.web.render`."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

from fastapi import Request
from fastapi.templating import Jinja2Templates
from starlette.responses import Response

from sysdrill import __version__
from sysdrill.napkin.diagram_text import diagram_results
from sysdrill.web.diagram_svg import diagram_svg
from sysdrill.web.render import render_inline, render_markdown, render_svg

__all__ = ["NAV", "TEMPLATES_DIR", "render_page", "templates"]

TEMPLATES_DIR = Path(__file__).parent / "templates"

NAV: tuple[tuple[str, str], ...] = (
    ("/", "Dashboard"),
    ("/practice", "Practice"),
    ("/vault", "Vault"),
    ("/explore", "Explore"),
    ("/progress", "Progress"),
    ("/plans", "Plans"),
    ("/calculators", "Calculators"),
    ("/import", "Import"),
    ("/export", "Export"),
    ("/settings", "Settings"),
)
"""Links of the top navigation, in order."""


@functools.cache
def templates() -> Jinja2Templates:
    """The app's templates (autoescaped; Markdown only through the ``md`` filters)."""
    found = Jinja2Templates(directory=str(TEMPLATES_DIR))
    env = found.env
    env.filters["md"] = render_markdown
    env.filters["md_inline"] = render_inline
    env.filters["svg"] = render_svg
    env.filters["diagram_svg"] = diagram_svg
    env.filters["diagram_results"] = diagram_results
    env.globals["nav"] = NAV
    env.globals["version"] = __version__
    env.trim_blocks = True
    env.lstrip_blocks = True
    return found


def render_page(
    request: Request, name: str, context: dict[str, Any], *, status_code: int = 200
) -> Response:
    """Render template ``name`` with ``context`` for ``request``."""
    return templates().TemplateResponse(request, name, context, status_code=status_code)
