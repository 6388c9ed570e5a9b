"""``sysdrill serve`` runs the web app (FastAPI under uvicorn)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from sysdrill.cli.int_options import MAX_SERVER_WORKERS

if TYPE_CHECKING:
    from fastapi import FastAPI

__all__ = ["register"]


def _run_server(
    app: FastAPI | str, *, host: str, port: int, workers: int, environ: dict[str, str]
) -> None:
    """Serve until interrupted (a seam tests replace to avoid binding a port).

    Args:
        app: The app itself (one worker), or the import string of the factory
            each worker process builds its app with.
        host: Address to listen on.
        port: TCP port.
        workers: Worker processes (with an import string only).
        environ: Settings the worker processes read (set before they start).
    """
    import os

    import uvicorn

    os.environ.update(environ)
    # Forwarded headers are the app's to trust or not (create_app's behind_proxy);
    # uvicorn would otherwise trust them from any local process. Its access log
    # prints nothing at "warning", but would still quote every path to drop it.
    if isinstance(app, str):
        uvicorn.run(
            app,
            factory=True,
            host=host,
            port=port,
            workers=workers,
            log_level="warning",
            proxy_headers=False,
            access_log=False,
        )
    else:
        uvicorn.run(
            app, host=host, port=port, log_level="warning", proxy_headers=False, access_log=False
        )


def _url(host: str, port: int) -> str:
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}/"


def serve(
    host: Annotated[
        str, typer.Option("--host", help="Address to listen on (0.0.0.0 for every interface).")
    ] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", min=1, max=65535, help="TCP port.")] = 8000,
    vault: Annotated[
        Path | None,
        typer.Option(
            "--vault",
            metavar="VAULT",
            envvar="SYSDRILL_VAULT",
            help="Vault folder to serve; the bundled starter vault when omitted.",
            show_default=False,
        ),
    ] = None,
    db: Annotated[
        str | None,
        typer.Option(
            "--db",
            metavar="URL",
            help="Study database URL (sqlite:///file or postgresql+psycopg://...); "
            "the default database when omitted.",
            show_default=False,
        ),
    ] = None,
    open_browser: Annotated[
        bool, typer.Option("--open", help="Open the app in the default web browser.")
    ] = False,
    behind_proxy: Annotated[
        bool,
        typer.Option(
            "--behind-proxy",
            envvar="SYSDRILL_BEHIND_PROXY",
            help="Trust X-Forwarded-Proto and X-Forwarded-For from a reverse proxy on this "
            "host (TLS at the proxy: cookies get Secure, clients keep their address).",
        ),
    ] = False,
    workers: Annotated[
        int,
        typer.Option(
            "--workers",
            min=1,
            max=MAX_SERVER_WORKERS,
            help="Worker processes; more than one serves requests in parallel "
            "(PostgreSQL for several users).",
        ),
    ] = 1,
    threads: Annotated[
        int,
        typer.Option(
            "--threads",
            min=1,
            max=16,
            envvar="SYSDRILL_THREADS",
            help="Requests each worker works on at once; more only help while requests "
            "wait for a database far away on the network.",
        ),
    ] = 2,
    pin_cpus: Annotated[
        bool,
        typer.Option(
            "--pin-cpus/--no-pin-cpus",
            envvar="SYSDRILL_PIN_CPUS",
            help="With several workers, keep each worker to a CPU of its own (Linux; off "
            "by default): a deployment option for a machine that runs nothing else busy.",
        ),
    ] = False,
    allowed_host: Annotated[
        list[str] | None,
        typer.Option(
            "--allowed-host",
            metavar="NAME",
            help="A host name the server answers to besides 127.0.0.1, localhost, ::1 "
            "and --host (repeatable; behind a proxy, its public name; * for any). "
            "Other names get 400, so no foreign page reaches the app through DNS "
            "rebinding. Also SYSDRILL_ALLOWED_HOSTS (comma-separated).",
            show_default=False,
        ),
    ] = None,
    multi_user: Annotated[
        bool,
        typer.Option(
            "--multi-user",
            envvar="SYSDRILL_MULTI_USER",
            help="Accounts with login, each learner's data kept apart "
            "(needs PostgreSQL with more than one worker).",
        ),
    ] = False,
) -> None:
    """Serve the web app: practise, browse and check napkin math in a browser.

    Brings the study database's schema up to date once (as `sysdrill db upgrade`
    does), prints the URL, the database and the worker count, and serves until
    Ctrl-C. Every request is answered from the database, so any worker serves
    any learner. Everything is served locally: no internet is needed.
    """
    from sysdrill.app.study import upgrade_study_database
    from sysdrill.errors import VaultNotFound
    from sysdrill.storage.engine import safe_url
    from sysdrill.storage.location import study_database_url
    from sysdrill.web.serving import (
        APP_FACTORY,
        ENV_ALLOWED_HOSTS,
        ServerSettings,
        create_served_app,
        host_names,
        refuse_unsafe_setup,
    )
    from sysdrill.web.worker_cpus import cpus_to_keep_to

    if vault is not None and not vault.is_dir():
        raise VaultNotFound(
            f"vault folder '{vault}' does not exist; give a folder holding questions/"
        )
    import os

    from sysdrill.web.request_limits import allowed_host_names

    given = host_names(" ".join(allowed_host or ()) or os.environ.get(ENV_ALLOWED_HOSTS, ""))
    settings = ServerSettings(
        db_url=study_database_url(db),
        vault=vault,
        multi_user=multi_user,
        behind_proxy=behind_proxy,
        threads=threads,
        pin_cpus=pin_cpus and workers > 1,
        allowed_hosts=allowed_host_names(host, given),
    )
    refuse_unsafe_setup(settings, workers=workers)
    upgrade_study_database(settings.db_url)
    # Built here even for several workers, which each build their own from the
    # environment: a setup error then shows once, before the URL.
    built = create_served_app(settings)
    app: FastAPI | str = built if workers == 1 else APP_FACTORY
    address = _url(host, port)
    typer.echo(f"sysdrill is serving on {address} (Ctrl-C stops it)")
    mode = "multi-user" if multi_user else "single user"
    noun = "worker" if workers == 1 else "workers"
    each = "thread" if threads == 1 else "threads"
    pinned = ", each on a CPU of its own" if settings.pin_cpus and cpus_to_keep_to() else ""
    typer.echo(
        f"database: {safe_url(settings.db_url)}; {workers} {noun} of {threads} {each}"
        f"{pinned}; {mode}"
    )
    if open_browser:
        import webbrowser

        webbrowser.open(address)
    _run_server(app, host=host, port=port, workers=workers, environ=settings.to_environment())


def register(app: typer.Typer) -> None:
    """Add ``serve`` to the CLI."""
    app.command("serve")(serve)
