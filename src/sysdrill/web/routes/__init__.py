"""Routers of the web app, one module per group of pages with their ``/api/`` twins.

Each module exposes ``router``; :data:`ROUTER_MODULES` lists them in order.
"""

from __future__ import annotations

__all__ = ["ROUTER_MODULES"]

ROUTER_MODULES: tuple[str, ...] = (
    # Routes are matched in this order, and a busy server's requests are mostly
    # moves in study sessions: their routes first.
    "sysdrill.web.routes.study_api",
    "sysdrill.web.routes.study",
    "sysdrill.web.routes.dashboard",
    "sysdrill.web.routes.vault",
    "sysdrill.web.routes.item_edit",
    "sysdrill.web.routes.progress",
    "sysdrill.web.routes.calculators",
    "sysdrill.web.routes.planner",
    "sysdrill.web.routes.transfer",
    "sysdrill.web.routes.settings",
    "sysdrill.web.routes.reports",
    "sysdrill.web.routes.plans",
    "sysdrill.web.routes.media",
    "sysdrill.web.routes.account",
    "sysdrill.web.routes.personal",
    "sysdrill.web.routes.interview",
)
"""Router modules; one that does not exist yet (a page in progress) is left out."""
