"""Who is asking: the login cookie, the login requirement, and each request's study service.

In single-user mode (the default) every request is the ``local`` learner and no
page asks for a login. In multi-user mode (``create_app(multi_user=True)``) a
request is anonymous unless its cookie carries the token of a login session in
the database; :func:`require_login` runs before every route of the app and
refuses anonymous requests except on the public paths (the login and sign-up
pages), so a route added later is private without saying so. Pages then redirect
to ``/login`` and ``/api/`` routes answer 401 (the error handler does both).

:func:`current_study` is the one way a route opens study data: the study service
of the logged-in user (or ``local``), so no route can reach another user's rows.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

from fastapi import Request
from starlette.responses import Response

from sysdrill.app.accounts import Account, LoginSession, open_accounts
from sysdrill.app.kept_logins import forget_login, keep_login, kept_login
from sysdrill.errors import LoginChanged, NotLoggedIn, NotPermitted, SysdrillError
from sysdrill.web.context import web_context
from sysdrill.web.security import set_cookie
from sysdrill.web.studied_vault import studied_vault

if TYPE_CHECKING:
    from sysdrill.app.study_vault import StudyVault
    from sysdrill.storage.login_guard import LoginGuard
    from sysdrill.study.service import StudyService

__all__ = [
    "LOCAL_USER",
    "PUBLIC_PATHS",
    "SESSION_COOKIE",
    "clear_session_cookie",
    "client_address",
    "current_account",
    "current_study",
    "forget_kept_login",
    "kept_login_route",
    "learner_vault",
    "request_user",
    "require_admin",
    "require_login",
    "run_on_kept_login",
    "session_token",
    "set_session_cookie",
]

SESSION_COOKIE = "sysdrill_session"
"""Name of the cookie that carries the login token."""
LOCAL_USER = "local"
"""The learner of single-user mode."""
PUBLIC_PATHS = frozenset(
    {
        "/login",
        "/signup",
        "/api/login",
        "/api/signup",
        # A script logs in with a POST, which needs a CSRF token first.
        "/api/csrf",
    }
)
"""Routes anyone may use in multi-user mode (``/static``, ``/docs`` and
``/openapi.json`` are not app routes and need no login either)."""

_UNSET = object()
_TRUSTS_KEPT_LOGIN = "_sysdrill_trusts_kept_login"
_R = TypeVar("_R")
_F = TypeVar("_F", bound=Callable[..., object])


def kept_login_route(endpoint: _F) -> _F:
    """Mark a route that may start from the login its worker kept.

    Only for routes that make one move of a session and run it through
    :func:`run_on_kept_login`: the move's transaction proves the login
    (:mod:`sysdrill.app.kept_logins`), where any other route looks it up.
    """
    setattr(endpoint, _TRUSTS_KEPT_LOGIN, True)
    return endpoint


def set_session_cookie(response: Response, request: Request, login: LoginSession) -> None:
    """Put a login's token in the session cookie, under the app's one cookie policy.

    HttpOnly keeps it from page scripts; SameSite=Lax keeps other sites' forms and
    frames from sending it; Secure when the browser came over TLS
    (:func:`sysdrill.web.security.set_cookie`).
    """
    set_cookie(
        response.headers, request, SESSION_COOKIE, login.token, max_age_seconds=login.max_age_s
    )


def clear_session_cookie(response: Response, request: Request) -> None:
    """Remove the session cookie from the browser."""
    set_cookie(response.headers, request, SESSION_COOKIE, "", max_age_seconds=0)


def session_token(request: Request) -> str:
    """The login token the request's cookie carries ('' for none)."""
    return request.cookies.get(SESSION_COOKIE, "")


def client_address(request: Request) -> str:
    """The client's address as the server sees it (the per-address login limit)."""
    return request.client.host if request.client is not None else "unknown"


def current_account(request: Request) -> Account | None:
    """The account logged in on this request (looked up once per request); None if anonymous.

    Always None in single-user mode.
    """
    found = getattr(request.state, "account", _UNSET)
    if found is not _UNSET:
        return found  # type: ignore[return-value]
    context = web_context(request)
    account: Account | None = None
    token = session_token(request)
    if context.multi_user and token:
        account = _trusted_account(request, token)
        if account is None:
            with open_accounts(context.db_url) as accounts:
                account = accounts.account_for_token(token, now=context.now())
            if account is not None:
                keep_login(str(context.db_url), token, account)
    request.state.account = account
    return account


def _trusted_account(request: Request, token: str) -> Account | None:
    """The kept login, on a route marked by :func:`kept_login_route`; else None."""
    endpoint = getattr(request.scope.get("route"), "endpoint", None)
    if not getattr(endpoint, _TRUSTS_KEPT_LOGIN, False):
        return None
    context = web_context(request)
    found = kept_login(str(context.db_url), token, now=context.now())
    if found is None:
        return None
    account, request.state.login_guard = found
    return account


def _login_guard(request: Request) -> LoginGuard | None:
    guard: LoginGuard | None = getattr(request.state, "login_guard", None)
    return guard


def forget_kept_login(request: Request) -> None:
    """Drop the request's login from this worker's memory (logging out)."""
    token = session_token(request)
    if token:
        forget_login(str(web_context(request).db_url), token)


def _look_up_again(request: Request) -> None:
    """Replace a kept login with the database's answer; raise if there is none."""
    forget_kept_login(request)
    request.state.login_guard = None
    request.state.account = _UNSET
    if current_account(request) is None:
        raise NotLoggedIn("Log in to use this page: POST /api/login or open /login.")


def run_on_kept_login(request: Request, move: Callable[[], _R]) -> _R:
    """Run ``move`` (one move of a session); on a kept login, show nothing it did not prove.

    A move's transaction proves a kept login before it commits. A move that read
    without writing, or failed, is shown only once the login was looked up; a
    login found changed (settings, decks, or ended) is looked up again and, if
    it stands, the move is made once more on it.

    Raises:
        NotLoggedIn: If the kept login no longer stands.
    """
    guard = _login_guard(request)
    if guard is None:
        return move()
    try:
        made = move()
    except LoginChanged:
        _look_up_again(request)
        return move()
    except SysdrillError:
        if not guard.confirmed:
            _look_up_again(request)
        raise
    if not guard.confirmed:
        _look_up_again(request)
    return made


async def require_login(request: Request) -> None:
    """Dependency of every route: refuse anonymous requests to private routes.

    A coroutine, run on the event loop: its one indexed read of the login costs
    less than handing every request to a worker thread and back.

    Raises:
        NotLoggedIn: In multi-user mode, for a private route without a valid login.
    """
    if not web_context(request).multi_user:
        return
    if request.url.path in PUBLIC_PATHS:
        current_account(request)
        return
    if current_account(request) is None:
        raise NotLoggedIn("Log in to use this page: POST /api/login or open /login.")


async def require_admin(request: Request) -> None:
    """Dependency of the admins' routes (imports, users, problem reports).

    Raises:
        NotLoggedIn: If nobody is logged in (multi-user mode).
        NotPermitted: If the account is not an admin.
    """
    if not web_context(request).multi_user:
        return
    account = current_account(request)
    if account is None:
        raise NotLoggedIn("Log in to use this page: POST /api/login or open /login.")
    if not account.is_admin:
        raise NotPermitted("This page is for admins; ask an admin of this server.")


def request_user(request: Request) -> str:
    """The learner whose study data this request reads and writes.

    Raises:
        NotLoggedIn: In multi-user mode without a login (routes never get here
            without one: :func:`require_login` runs first).
    """
    if not web_context(request).multi_user:
        return LOCAL_USER
    account = current_account(request)
    if account is None:
        raise NotLoggedIn("Log in to use this page: POST /api/login or open /login.")
    return account.name


def learner_vault(request: Request) -> StudyVault:
    """The vault the request's learner studies: the shared one with their personal decks.

    Their personal deck version came with the login's lookup: no second query.
    """
    account = current_account(request)
    return studied_vault(
        request,
        user=request_user(request),
        deck_version=None if account is None else account.deck_version,
    )


def current_study(request: Request, *, claim: bool = True) -> StudyService:
    """Open the study service of the request's user in the served vault (a ``with`` block).

    ``claim=False`` for a move in a session in progress: the vault's earlier state
    (:func:`sysdrill.app.study.claim_earlier_state`) was claimed when the session
    started, so the move skips asking again.
    """
    from sysdrill.app.study import open_study

    context = web_context(request)
    user = request_user(request)
    vault = learner_vault(request)
    account = current_account(request)
    return open_study(
        context.db_url,
        vault=vault if claim else vault.identity,
        user=user,
        user_id=None if account is None else account.user_id,
        settings_version=None if account is None else account.settings_version,
        login_guard=_login_guard(request),
    )
