"""The FastAPI application: ``create_app`` wires the routers, templates and error handler.

Pages are server-rendered Jinja2 and work without JavaScript; each page has a JSON
twin under ``/api/`` (OpenAPI at ``/docs``). Every asset is served from
``web/static``: no CDN, so the app works with no internet.
"""

from __future__ import annotations

import importlib
from collections.abc import AsyncIterator, Callable, Iterable
from contextlib import asynccontextmanager
from datetime import UTC, datetime
from pathlib import Path

from fastapi import Depends, FastAPI
from fastapi.staticfiles import StaticFiles

from sysdrill import __version__
from sysdrill.web.auth import require_login
from sysdrill.web.context import WebContext
from sysdrill.web.csrf import install_csrf
from sysdrill.web.errors import install_error_handler, install_same_origin_guard
from sysdrill.web.request_limits import LOOPBACK_HOSTS, install_request_limits
from sysdrill.web.routes import ROUTER_MODULES
from sysdrill.web.security import install_security

__all__ = ["STATIC_DIR", "create_app"]

STATIC_DIR = Path(__file__).parent / "static"
ROUTES_DIR = Path(__file__).parent / "routes"


def _utc_now() -> datetime:
    return datetime.now(UTC)


def create_app(
    *,
    vault: Path | None = None,
    db_url: str | None = None,
    cache_dir: Path | None = None,
    data_dir: Path | None = None,
    clock: Callable[[], datetime] = _utc_now,
    multi_user: bool = False,
    behind_proxy: bool = False,
    threads: int = 2,
    allowed_hosts: Iterable[str] = LOOPBACK_HOSTS,
) -> FastAPI:
    """Create the web app for one vault and one study database.

    Args:
        vault: Vault folder; the bundled starter vault when None.
        db_url: Study database URL (already migrated: ``sysdrill serve`` runs
            ``db upgrade`` once at start); None for the default database.
        cache_dir: Folder for the compiled vault copy; the user cache folder when None.
        data_dir: Folder for user files (a personal vault of imports); the user data folder
            when None.
        clock: Returns the current time, timezone-aware UTC.
        multi_user: Learners log in and each sees only their own study data
            (accounts in the study database; see docs/accounts.md). Otherwise one
            learner, ``local``, and no login.
        behind_proxy: Trust the ``X-Forwarded-Proto`` and ``X-Forwarded-For`` headers
            of a reverse proxy on this host (TLS there: cookies get Secure; the
            client address is the forwarded one). Off, they are ignored.
        threads: Requests worked on at once (the routes that read the database run
            in a thread each). A process runs one thread at a time, so more only
            helps while requests wait for the database; a few keep one slow request
            (an export, a login's password hash) from holding up the others.
        allowed_hosts: Host names the app answers to besides the loopback ones
            (the address served, a proxy's public name; ``*`` for any); any other
            ``Host`` is refused (:mod:`sysdrill.web.request_limits`).

    Returns:
        The ASGI application.
    """
    from sysdrill.content.cache import default_cache_dir
    from sysdrill.content.sample import default_vault_path
    from sysdrill.storage.location import data_dir as default_data_dir

    context = WebContext(
        vault=vault if vault is not None else default_vault_path(),
        db_url=db_url,
        cache_dir=cache_dir if cache_dir is not None else default_cache_dir(),
        data_dir=data_dir if data_dir is not None else default_data_dir(),
        clock=clock,
        multi_user=multi_user,
    )

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        from sysdrill.web.charts import load_pygal
        from sysdrill.web.templating import templates

        # Importing the chart library and compiling the templates take a few hundred
        # milliseconds: paid at start-up, not by the first learner to open each page.
        load_pygal()
        environment = templates().env
        for name in environment.list_templates(extensions=["html"]):
            environment.get_template(name)
        import anyio.to_thread

        anyio.to_thread.current_default_thread_limiter().total_tokens = threads
        # One engine (pool, checked schema, SQLAlchemy's statement cache) for the process's life.
        with context.database_held():
            yield

    app = FastAPI(
        title="sysdrill",
        version=__version__,
        description="Drill ML-systems interview questions in the browser.",
        lifespan=lifespan,
        # Every route requires a login in multi-user mode unless it is public.
        dependencies=[Depends(require_login)],
    )
    app.state.sysdrill = context
    install_error_handler(app)
    app.mount("/static", StaticFiles(directory=STATIC_DIR), name="static")
    # The routers as included, so tests can walk every route (FastAPI may wrap them).
    app.state.routers = []
    for name in ROUTER_MODULES:
        # A page group still being written has no module yet; its file tells, without
        # asking the import system (a missing module would be an ImportWarning there).
        if not (ROUTES_DIR / f"{name.rsplit('.', 1)[1]}.py").is_file():
            continue
        router = importlib.import_module(name).router
        app.include_router(router)
        app.state.routers.append(router)
    # In this order: a request meets the proxy's headers, then the security headers,
    # the host, size and text limits, the same-origin check and the CSRF check (the
    # middleware added last runs first).
    install_csrf(app)
    install_same_origin_guard(app)
    install_request_limits(app, allowed_hosts=allowed_hosts)
    install_security(app, behind_proxy=behind_proxy)
    return app
