"""The vault a request studies: the shared vault, plus the learner's personal decks.

Routes that show or study items ask :func:`studied_vault` instead of the app's
shared vault, so a learner's personal items appear to them and to nobody else.
In single-user mode personal decks are off (the one learner imports into the
vault itself), and this is the shared vault at no extra cost.
"""

from __future__ import annotations

from fastapi import Request

from sysdrill.app.study_vault import StudyVault
from sysdrill.web.context import web_context

__all__ = ["personal_deck_names", "studied_vault"]


def studied_vault(request: Request, *, user: str, deck_version: int | None) -> StudyVault:
    """The vault of the request's learner ``user`` (looked up once per request).

    Routes ask :func:`sysdrill.web.auth.learner_vault`, which passes ``user``
    (:func:`sysdrill.web.auth.request_user`) and ``deck_version`` (read with the
    login; None to read it here). A learner without personal decks gets the
    shared vault object itself (their deck version came with the login).
    """
    found = getattr(request.state, "studied_vault", None)
    if isinstance(found, StudyVault):
        return found
    context = web_context(request)
    vault = context.load_vault()
    if context.multi_user:
        vault = context.personal.studied_vault(
            vault, db_url=context.db_url, user=user, version=deck_version
        )
    request.state.studied_vault = vault
    return vault


def personal_deck_names(request: Request, vault: StudyVault, *, user: str) -> tuple[str, ...]:
    """The names of ``user``'s personal decks in ``vault`` (none in single-user mode)."""
    context = web_context(request)
    if not context.multi_user:
        return ()
    return context.personal.personal_deck_names(user, vault)
