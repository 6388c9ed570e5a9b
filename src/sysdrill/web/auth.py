"""Who is asking: the login cookie, the login requirement, and each request's study service.

In single-user mode (the default) every request is the ``local`` learner and no
page asks for a login. In multi-user mode (``create_app(multi_user=True)``) a
request is anonymous unless its cookie carries the token of a login session in
the database; :func:`require_login` runs before every route of the app and
refuses anonymous requests except on the public paths (the login and sign-up
pages), so a route added later is private without saying so. Pages then redirect
to ``/login`` and ``/api/`` routes answer 401 (the error handler does both).

The login is looked up in the database once per request, never on the event loop
(it would stall every other connection of the worker for a round trip): a route
marked :func:`login_in_thread` looks it up first thing in the thread it runs in
anyway; for any other route :func:`require_login` looks it up in a worker thread.

:func:`current_study` is the one way a route opens study data: the study service
of the logged-in user (or ``local``), so no route can reach another user's rows.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import TYPE_CHECKING, ParamSpec, TypeVar

from fastapi import Request
from starlette.concurrency import run_in_threadpool
from starlette.responses import Response

from sysdrill.app.accounts import Account, LoginSession, open_accounts
from sysdrill.errors import NotLoggedIn, NotPermitted
from sysdrill.web.context import web_context
from sysdrill.web.security import set_cookie
from sysdrill.web.studied_vault import studied_vault

if TYPE_CHECKING:
    from sysdrill.app.study_vault import StudyVault
    from sysdrill.study.service import StudyService

__all__ = [
    "LOCAL_USER",
    "PUBLIC_PATHS",
    "SESSION_COOKIE",
    "clear_session_cookie",
    "client_address",
    "current_account",
    "current_study",
    "learner_vault",
    "login_in_thread",
    "request_user",
    "require_admin",
    "require_login",
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
_NOT_LOGGED_IN = "Log in to use this page: POST /api/login or open /login."
_P = ParamSpec("_P")
_R = TypeVar("_R")


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

    Always None in single-user mode. Blocks on the database the first time: call it
    from a route's thread, never on the event loop.
    """
    found = getattr(request.state, "account", _UNSET)
    if found is not _UNSET:
        return found  # type: ignore[return-value]
    context = web_context(request)
    account: Account | None = None
    token = session_token(request)
    if context.multi_user and token:
        with open_accounts(context.db_url) as accounts:
            account = accounts.account_for_token(token, now=context.now())
    request.state.account = account
    return account


def _private(request: Request) -> bool:
    return request.scope["path"] not in PUBLIC_PATHS


def login_in_thread(endpoint: Callable[_P, _R]) -> Callable[_P, _R]:
    """Mark a plain route that looks its login up first thing in its own thread.

    :func:`require_login` then only refuses a request without a login cookie on the
    event loop, and the route, before anything else, looks the cookie's login up
    (:func:`current_account`) in the thread FastAPI runs it in: one hand-off to a
    thread per request instead of two. The route must take ``request: Request``.
    """

    @functools.wraps(endpoint)
    def looked_up(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        request = kwargs["request"]
        assert isinstance(request, Request)
        context = web_context(request)
        if context.multi_user and current_account(request) is None and _private(request):
            raise NotLoggedIn(_NOT_LOGGED_IN)
        return endpoint(*args, **kwargs)

    # FastAPI reads the parameters from here (the route's annotations evaluated).
    looked_up.__signature__ = inspect.signature(endpoint, eval_str=True)  # type: ignore[attr-defined]
    looked_up.login_in_thread = True  # type: ignore[attr-defined]
    return looked_up


async def require_login(request: Request) -> None:
    """Dependency of every route: refuse anonymous requests to private routes.

    A request without a login cookie is refused at once; one with a cookie has its
    login looked up in a worker thread (or, for a route marked
    :func:`login_in_thread`, in the route's own thread), never on the event loop.

    Raises:
        NotLoggedIn: In multi-user mode, for a private route without a valid login.
    """
    if not web_context(request).multi_user:
        return
    if not session_token(request):
        request.state.account = None
        if _private(request):
            raise NotLoggedIn(_NOT_LOGGED_IN)
        return
    if getattr(request.scope.get("endpoint"), "login_in_thread", False):
        return
    account = await run_in_threadpool(current_account, request)
    if account is None and _private(request):
        raise NotLoggedIn(_NOT_LOGGED_IN)


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
        raise NotLoggedIn(_NOT_LOGGED_IN)
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
        raise NotLoggedIn(_NOT_LOGGED_IN)
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


def current_study(request: Request, *, adopt: bool = True) -> StudyService:
    """Open the study service of the request's user in the served vault (a ``with`` block).

    ``adopt=False`` for a move in a session in progress: the vault's earlier state
    (:func:`sysdrill.app.study.adopt_earlier_state`) was adopted when the session
    started, so the move skips asking again.
    """
    from sysdrill.app.study import open_study

    context = web_context(request)
    user = request_user(request)
    vault = learner_vault(request)
    account = current_account(request)
    return open_study(
        context.db_url,
        vault=vault if adopt else vault.identity,
        user=user,
        user_id=None if account is None else account.user_id,
        settings_version=None if account is None else account.settings_version,
        memory=context.memory,
    )
