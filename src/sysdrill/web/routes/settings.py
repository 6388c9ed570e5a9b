"""Settings: desired retention, deadline, daily limits and the rest of the study settings."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from starlette.concurrency import run_in_threadpool
from starlette.responses import RedirectResponse, Response

from sysdrill.web.auth import current_study
from sysdrill.web.context import Context, WebContext
from sysdrill.web.csrf import FIELD_NAME
from sysdrill.web.json_api import json_route
from sysdrill.web.templating import render_page

__all__ = ["router"]

router = APIRouter()


def _shown(value: Any) -> str:
    """A setting's value as typed in a form (``0.9``, ``1,10``, empty for none)."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return ",".join(f"{v:g}" if isinstance(v, float) else str(v) for v in value)
    return str(value)


def _settings(request: Request, context: WebContext) -> list[dict[str, Any]]:
    from sysdrill.study.settings import SETTING_DOCS

    with current_study(request) as study:
        values = study.settings.to_mapping()
    return [
        {"key": key, "value": values[key], "shown": _shown(values[key]), "meaning": meaning}
        for key, meaning in SETTING_DOCS.items()
    ]


def _update(request: Request, context: WebContext, changes: dict[str, str]) -> None:
    """Store every changed setting, all or none.

    Raises:
        SchedulingError: For an unknown key or a value out of range (nothing stored).
    """
    from sysdrill.study.settings import StudySettings, parse_setting

    # Every value is read first (an unknown key raises here), then all are stored at once.
    parsed = {key: parse_setting(key, _none_if_blank(value)) for key, value in changes.items()}
    with current_study(request) as study:
        mapping = study.settings.to_mapping()
        changed = {key: value for key, value in parsed.items() if mapping.get(key) != value}
        if changed:
            typed = StudySettings.from_mapping({**mapping, **changed})
            study.update_settings(**{key: getattr(typed, key) for key in changed})


def _none_if_blank(value: str) -> str:
    return value.strip() or "none"


@router.get("/settings", include_in_schema=False)
def settings_page(request: Request, context: Context, saved: bool = False) -> Response:
    """Every setting in a form, with what it means."""
    return render_page(
        request, "settings.html", {"settings": _settings(request, context), "saved": saved}
    )


@router.post("/settings", include_in_schema=False)
async def settings_form(request: Request, context: Context) -> Response:
    """Store the settings sent from the form, then show them again."""
    form = await request.form()
    changes = {
        key: str(value)
        for key, value in form.items()
        if isinstance(value, str) and key != FIELD_NAME  # the CSRF token is no setting
    }
    await run_in_threadpool(lambda: _update(request, context, changes))
    return RedirectResponse("/settings?saved=true", status_code=303)


@router.get("/api/settings", tags=["settings"])
@json_route()
def settings_api(request: Request, context: Context) -> dict[str, Any]:
    """Every setting with its value and meaning."""
    return {"settings": _settings(request, context)}


@router.put("/api/settings", tags=["settings"])
@json_route()
def settings_put_api(request: Request, context: Context, changes: dict[str, str]) -> dict[str, Any]:
    """Change settings, values as typed (``"0.85"``, ``"2027-01-15"``, ``"none"``)."""
    _update(request, context, changes)
    return {"settings": _settings(request, context)}
