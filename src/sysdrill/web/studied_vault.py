"""The vault a request studies: the shared vault, plus the learner's personal decks.

Routes that show or study items ask :func:`studied_vault` instead of the app's
shared vault, so a learner's personal items appear to them and to nobody else.
In single-user mode the one ``local`` learner has personal decks too (what the
import page makes over a bundled vault, which is never written): a learner
without any gets the shared vault itself, after one indexed read of their deck
version.
"""

from __future__ import annotations

from fastapi import Request

from sysdrill.app.study_vault import StudyVault
from sysdrill.content.models import Item
from sysdrill.web.context import web_context

__all__ = ["personal_deck_names", "personal_items", "studied_vault"]


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
    vault = context.personal.studied_vault(
        context.load_vault(), db_url=context.db_url, user=user, version=deck_version
    )
    request.state.studied_vault = vault
    return vault


def personal_deck_names(request: Request, vault: StudyVault, *, user: str) -> tuple[str, ...]:
    """The names of ``user``'s personal decks in ``vault`` (from :func:`studied_vault`)."""
    return web_context(request).personal.personal_deck_names(user, vault)


def personal_items(request: Request, vault: StudyVault) -> list[Item]:
    """The items of ``vault`` (from :func:`studied_vault`) that the shared vault lacks.

    The learner's personal items: the compiled vault's search index does not
    hold them, so the vault browser matches them by their words.
    """
    shared = web_context(request).load_vault()
    if vault is shared:
        return []
    return [item for item in vault.items if item.id not in shared.by_id]
