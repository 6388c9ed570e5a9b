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


def _settings(request: Request, context: WebContext) -> list[dict[str, Any]]:
    from sysdrill.app.setting_forms import shown_value
    from sysdrill.study.settings import SETTING_DOCS

    with current_study(request) as study:
        values = study.settings.to_mapping()
    return [
        {"key": key, "value": values[key], "shown": shown_value(values[key]), "meaning": meaning}
        for key, meaning in SETTING_DOCS.items()
    ]


def _fields(request: Request, context: WebContext) -> list[Any]:
    """Every setting as a form field: its name in words, its control and bounds."""
    from sysdrill.app.setting_forms import setting_fields

    with current_study(request) as study:
        return setting_fields(study.settings, now=context.now())


def _update(request: Request, context: WebContext, changes: dict[str, str]) -> None:
    """Store every changed setting, all or none.

    Raises:
        SchedulingError: For an unknown key, a value out of range or an interview
            date that has passed (nothing stored).
    """
    from sysdrill.app.progress import set_settings

    with current_study(request) as study:
        set_settings(
            study, {key: _none_if_blank(value) for key, value in changes.items()}, now=context.now()
        )


def _none_if_blank(value: str) -> str:
    return value.strip() or "none"


@router.get("/settings", include_in_schema=False)
def settings_page(request: Request, context: Context, saved: bool = False) -> Response:
    """Every setting in a form, in words, each with the control that fits it."""
    return render_page(
        request, "settings.html", {"fields": _fields(request, context), "saved": saved}
    )


def _refused(
    request: Request, context: WebContext, typed: dict[str, str]
) -> tuple[list[Any], list[str]] | None:
    """The form again with each refused value's reason by its field; None if all are fine.

    Also returns the reasons as lines naming each field as the form labels it (and
    any reason for a key the form has no field for).
    """
    from sysdrill.app.setting_forms import refused_fields, setting_form_problems

    changes = {key: _none_if_blank(value) for key, value in typed.items()}
    problems = setting_form_problems(changes, now=context.now())
    if not problems:
        return None
    fields = refused_fields(_fields(request, context), typed, problems)
    labels = {field.key: field.label for field in fields}
    lines = [f"{labels.get(key, 'This form')}: {reason}" for key, reason in problems.items()]
    return fields, lines


@router.post("/settings", include_in_schema=False)
async def settings_form(request: Request, context: Context) -> Response:
    """Store the settings sent from the form, then show them again.

    A value that is refused shows the form again (422) with what was typed and,
    beside each field in error, why; nothing is stored.
    """
    form = await request.form()
    changes = {
        key: str(value)
        for key, value in form.items()
        if isinstance(value, str) and key != FIELD_NAME  # the CSRF token is no setting
    }
    refused = await run_in_threadpool(lambda: _refused(request, context, changes))
    if refused is not None:
        fields, lines = refused
        shown = {"fields": fields, "saved": False, "problems": lines}
        return render_page(request, "settings.html", shown, status_code=422)
    # Each setting is checked on its own; none depends on another, so these pass together.
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
