"""Log in, sign up, log out, change one's password; the admins' users page. JSON twins under /api/.

These pages exist for multi-user mode (``create_app(multi_user=True)``). In
single-user mode there is nobody to log in: the pages go back to the dashboard
and the API says so.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Form, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field
from starlette.responses import RedirectResponse, Response

from sysdrill.app.accounts import (
    MAX_PASSWORD_CHARS,
    MIN_PASSWORD_CHARS,
    Account,
    LoginSession,
    Role,
    SignupPolicy,
    open_accounts,
)
from sysdrill.errors import AccountError, LoginThrottled, NotLoggedIn, NotPermitted, UsageError
from sysdrill.web.auth import (
    LOCAL_USER,
    clear_session_cookie,
    client_address,
    current_account,
    request_user,
    require_admin,
    session_token,
    set_session_cookie,
)
from sysdrill.web.context import Context, WebContext
from sysdrill.web.csrf import renew_csrf_cookie
from sysdrill.web.errors import status_for
from sysdrill.web.json_api import json_route
from sysdrill.web.templating import render_page

__all__ = ["router"]

router = APIRouter()
ADMIN = [Depends(require_admin)]
_SINGLE_USER = (
    "This server runs without accounts (single-user mode); "
    "start it with `sysdrill serve --multi-user` to use them."
)


class Credentials(BaseModel):
    """A user name and password."""

    name: str = Field(max_length=200)
    password: str = Field(max_length=MAX_PASSWORD_CHARS)


class SignupBody(Credentials):
    """A new account; ``invite_code`` when sign-up is invite-only."""

    invite_code: str = Field(default="", max_length=200)


class PasswordChange(BaseModel):
    """The current password and the new one."""

    current: str = Field(max_length=MAX_PASSWORD_CHARS)
    new: str = Field(max_length=MAX_PASSWORD_CHARS)


class DisabledBody(BaseModel):
    """Whether the account is disabled."""

    disabled: bool


class RoleBody(BaseModel):
    """The account's role."""

    role: Role


class SignupPolicyBody(BaseModel):
    """Who may sign up; ``invite_code`` is needed for ``invite``."""

    policy: SignupPolicy
    invite_code: str = Field(default="", max_length=200)


def _safe_next(target: str | None) -> str:
    # Only a path on this server: never "//host" or a full URL (an open redirect).
    if not target or not target.startswith("/") or target.startswith("//") or "\\" in target:
        return "/"
    return target


def _multi_user(context: WebContext) -> None:
    if not context.multi_user:
        raise UsageError(_SINGLE_USER)


def _logged_in(
    request: Request, context: WebContext, response: Response, login: LoginSession
) -> Response:
    # The login this browser had before (another account, say) ends here.
    _logout(request, context)
    set_session_cookie(response, request, login)
    # Tokens issued before the login (perhaps to a cookie another site planted) end too.
    renew_csrf_cookie(request)
    return response


def _form_again(
    request: Request, template: str, page: dict[str, Any], exc: AccountError | UsageError
) -> Response:
    """The form again with the refusal; a client told to wait is told for how long."""
    response = render_page(request, template, page, status_code=status_for(exc))
    if isinstance(exc, LoginThrottled) and exc.retry_after_s:
        response.headers["Retry-After"] = str(exc.retry_after_s)
    return response


def _me(request: Request) -> Account:
    account = current_account(request)
    if account is None:  # require_login refuses such requests before they get here
        raise NotLoggedIn("Log in to use this page: POST /api/login or open /login.")
    return account


# -- log in and out ------------------------------------------------------------


@router.get("/login", include_in_schema=False)
def login_page(request: Request, context: Context, next: str = "/") -> Response:
    """The login form (the dashboard in single-user mode)."""
    if not context.multi_user:
        return RedirectResponse("/", status_code=303)
    with open_accounts(context.db_url) as accounts:
        signup = accounts.signup_settings()
    return render_page(
        request, "account/login.html", {"next": _safe_next(next), "signup": signup, "error": None}
    )


@router.post("/login", include_in_schema=False)
def login_form(
    request: Request,
    context: Context,
    name: Annotated[str, Form(max_length=200)],
    password: Annotated[str, Form(max_length=MAX_PASSWORD_CHARS)],
    next: Annotated[str, Form()] = "/",
) -> Response:
    """Log in from the form, then go where the learner was going."""
    _multi_user(context)
    with open_accounts(context.db_url) as accounts:
        try:
            login = accounts.login(
                name, password, address=client_address(request), now=context.now()
            )
        except AccountError as exc:
            page = {
                "next": _safe_next(next),
                "signup": accounts.signup_settings(),
                "error": str(exc),
                "name": name,
            }
            return _form_again(request, "account/login.html", page, exc)
    return _logged_in(request, context, RedirectResponse(_safe_next(next), status_code=303), login)


@router.post("/api/login", tags=["account"])
def login_api(request: Request, context: Context, body: Credentials) -> Response:
    """Log in; the answer sets the session cookie (HttpOnly, SameSite=Lax)."""
    _multi_user(context)
    with open_accounts(context.db_url) as accounts:
        login = accounts.login(
            body.name, body.password, address=client_address(request), now=context.now()
        )
    payload = {"account": login.account.to_dict(), "expires_at": login.expires_at.isoformat()}
    return _logged_in(request, context, JSONResponse(payload), login)


def _logout(request: Request, context: WebContext) -> None:
    token = session_token(request)
    if context.multi_user and token:
        with open_accounts(context.db_url) as accounts:
            accounts.logout(token)


@router.post("/logout", include_in_schema=False)
def logout_form(request: Request, context: Context) -> Response:
    """Log out (the login session is deleted), then show the login page."""
    _logout(request, context)
    response = RedirectResponse("/login" if context.multi_user else "/", status_code=303)
    clear_session_cookie(response, request)
    renew_csrf_cookie(request)
    return response


@router.post("/api/logout", tags=["account"])
def logout_api(request: Request, context: Context) -> Response:
    """Log out: the login session is deleted and the cookie cleared."""
    _logout(request, context)
    response = JSONResponse({"logged_out": True})
    clear_session_cookie(response, request)
    renew_csrf_cookie(request)
    return response


# -- sign up -------------------------------------------------------------------


@router.get("/signup", include_in_schema=False)
def signup_page(request: Request, context: Context) -> Response:
    """The sign-up form (says so when sign-up is closed)."""
    if not context.multi_user:
        return RedirectResponse("/", status_code=303)
    with open_accounts(context.db_url) as accounts:
        signup = accounts.signup_settings()
    page = {"signup": signup, "error": None, "min_chars": MIN_PASSWORD_CHARS}
    return render_page(request, "account/signup.html", page)


@router.post("/signup", include_in_schema=False)
def signup_form(
    request: Request,
    context: Context,
    name: Annotated[str, Form(max_length=200)],
    password: Annotated[str, Form(max_length=MAX_PASSWORD_CHARS)],
    invite_code: Annotated[str, Form(max_length=200)] = "",
) -> Response:
    """Create a learner account from the form and log it in."""
    _multi_user(context)
    with open_accounts(context.db_url) as accounts:
        try:
            account = accounts.signup(
                name,
                password,
                invite_code=invite_code,
                address=client_address(request),
                now=context.now(),
            )
        except (AccountError, UsageError) as exc:
            page = {
                "signup": accounts.signup_settings(),
                "error": str(exc),
                "name": name,
                "min_chars": MIN_PASSWORD_CHARS,
            }
            return _form_again(request, "account/signup.html", page, exc)
        login = accounts.start_session(account, now=context.now())
    return _logged_in(request, context, RedirectResponse("/", status_code=303), login)


@router.post("/api/signup", tags=["account"], status_code=201)
def signup_api(request: Request, context: Context, body: SignupBody) -> Response:
    """Create a learner account (under the server's sign-up policy) and log it in."""
    _multi_user(context)
    with open_accounts(context.db_url) as accounts:
        account = accounts.signup(
            body.name,
            body.password,
            invite_code=body.invite_code,
            address=client_address(request),
            now=context.now(),
        )
        login = accounts.start_session(account, now=context.now())
    response = JSONResponse({"account": account.to_dict()}, status_code=201)
    return _logged_in(request, context, response, login)


# -- one's own account ---------------------------------------------------------


@router.get("/account", include_in_schema=False)
def account_page(request: Request, context: Context, changed: bool = False) -> Response:
    """Who is logged in, and the form to change the password."""
    if not context.multi_user:
        return RedirectResponse("/", status_code=303)
    page = {"account": _me(request), "changed": changed, "error": None}
    return render_page(request, "account/account.html", {**page, "min_chars": MIN_PASSWORD_CHARS})


@router.post("/account/password", include_in_schema=False)
def password_form(
    request: Request,
    context: Context,
    current: Annotated[str, Form(max_length=MAX_PASSWORD_CHARS)],
    new: Annotated[str, Form(max_length=MAX_PASSWORD_CHARS)],
) -> Response:
    """Change one's password (other logins end); this browser stays logged in."""
    _multi_user(context)
    account = _me(request)
    with open_accounts(context.db_url) as accounts:
        try:
            accounts.change_password(
                account,
                current=current,
                new=new,
                keep_token=session_token(request),
                address=client_address(request),
                now=context.now(),
            )
        except (AccountError, UsageError) as exc:
            page = {"account": account, "changed": False, "error": str(exc)}
            page["min_chars"] = MIN_PASSWORD_CHARS
            return _form_again(request, "account/account.html", page, exc)
    return RedirectResponse("/account?changed=true", status_code=303)


@router.get("/api/account", tags=["account"])
@json_route()
def account_api(request: Request, context: Context) -> dict[str, Any]:
    """The logged-in account (``local``, an admin, in single-user mode)."""
    if not context.multi_user:
        return {"name": LOCAL_USER, "role": Role.ADMIN.value, "multi_user": False}
    return {**_me(request).to_dict(), "multi_user": True}


@router.post("/api/account/password", tags=["account"])
@json_route()
def password_api(request: Request, context: Context, body: PasswordChange) -> dict[str, Any]:
    """Change one's password, giving the current one; other logins end."""
    _multi_user(context)
    account = _me(request)
    with open_accounts(context.db_url) as accounts:
        accounts.change_password(
            account,
            current=body.current,
            new=body.new,
            keep_token=session_token(request),
            address=client_address(request),
            now=context.now(),
        )
    return {"changed": True}


# -- the admins' users page ----------------------------------------------------


def _users_view(context: WebContext) -> dict[str, Any]:
    with open_accounts(context.db_url) as accounts:
        return {
            "accounts": [a.to_dict() for a in accounts.list_accounts()],
            "signup": accounts.signup_settings().to_dict(),
        }


def _not_self(request: Request, name: str) -> None:
    # An admin who disables or demotes themself could leave the server without one.
    if request_user(request) == name.strip().lower():
        raise NotPermitted(
            "You cannot disable or demote your own account here; ask another admin "
            "or use `sysdrill users` on the server."
        )


@router.get("/admin/users", include_in_schema=False, dependencies=ADMIN)
def users_page(request: Request, context: Context, saved: bool = False) -> Response:
    """Every account, with buttons to disable it or make it an admin, and the sign-up policy."""
    page = {**_users_view(context), "saved": saved, "multi_user": context.multi_user}
    page["me"] = request_user(request)
    return render_page(request, "account/users.html", page)


@router.get("/api/admin/users", tags=["admin"], dependencies=ADMIN)
@json_route()
def users_api(context: Context) -> dict[str, Any]:
    """Every account and the sign-up policy."""
    return _users_view(context)


def _set_disabled(request: Request, context: WebContext, name: str, disabled: bool) -> Account:
    _multi_user(context)
    if disabled:
        _not_self(request, name)
    with open_accounts(context.db_url) as accounts:
        return accounts.set_disabled(name, disabled)


def _set_role(request: Request, context: WebContext, name: str, role: Role) -> Account:
    _multi_user(context)
    if role is not Role.ADMIN:
        _not_self(request, name)
    with open_accounts(context.db_url) as accounts:
        return accounts.set_role(name, role)


@router.post("/admin/users/{name}/disabled", include_in_schema=False, dependencies=ADMIN)
def disabled_form(
    request: Request, context: Context, name: str, disabled: Annotated[bool, Form()]
) -> Response:
    """Disable or enable an account from the users page."""
    _set_disabled(request, context, name, disabled)
    return RedirectResponse("/admin/users?saved=true", status_code=303)


@router.post("/api/admin/users/{name}/disabled", tags=["admin"], dependencies=ADMIN)
@json_route()
def disabled_api(
    request: Request, context: Context, name: str, body: DisabledBody
) -> dict[str, Any]:
    """Disable (logging it out) or enable an account."""
    return _set_disabled(request, context, name, body.disabled).to_dict()


@router.post("/admin/users/{name}/role", include_in_schema=False, dependencies=ADMIN)
def role_form(
    request: Request, context: Context, name: str, role: Annotated[Role, Form()]
) -> Response:
    """Give an account a role from the users page."""
    _set_role(request, context, name, role)
    return RedirectResponse("/admin/users?saved=true", status_code=303)


@router.post("/api/admin/users/{name}/role", tags=["admin"], dependencies=ADMIN)
@json_route()
def role_api(request: Request, context: Context, name: str, body: RoleBody) -> dict[str, Any]:
    """Give an account the learner or admin role."""
    return _set_role(request, context, name, body.role).to_dict()


def _set_signup(context: WebContext, policy: SignupPolicy, invite_code: str) -> dict[str, Any]:
    _multi_user(context)
    with open_accounts(context.db_url) as accounts:
        return accounts.set_signup_policy(policy, invite_code=invite_code).to_dict()


@router.post("/admin/signup", include_in_schema=False, dependencies=ADMIN)
def signup_policy_form(
    context: Context,
    policy: Annotated[SignupPolicy, Form()],
    invite_code: Annotated[str, Form(max_length=200)] = "",
) -> Response:
    """Open, close or invite-only sign-up from the users page."""
    _set_signup(context, policy, invite_code)
    return RedirectResponse("/admin/users?saved=true", status_code=303)


@router.put("/api/admin/signup", tags=["admin"], dependencies=ADMIN)
@json_route()
def signup_policy_api(context: Context, body: SignupPolicyBody) -> dict[str, Any]:
    """Set who may sign up (``invite`` needs an invite code of 8 or more characters)."""
    return _set_signup(context, body.policy, body.invite_code)
