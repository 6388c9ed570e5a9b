"""``sysdrill serve`` runs the web app (FastAPI under uvicorn); ``reports`` lists its reports."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

if TYPE_CHECKING:
    from fastapi import FastAPI

__all__ = ["register"]


def _run_server(app: FastAPI, *, host: str, port: int) -> None:
    """Serve ``app`` until interrupted (a seam tests replace to avoid binding a port)."""
    import uvicorn

    # Forwarded headers are the app's to trust or not (create_app's behind_proxy);
    # uvicorn would otherwise trust them from any local process.
    uvicorn.run(app, host=host, port=port, log_level="warning", proxy_headers=False)


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
            help="Trust X-Forwarded-Proto and X-Forwarded-For from a reverse proxy on this "
            "host (TLS at the proxy: cookies get Secure, clients keep their address).",
        ),
    ] = False,
) -> None:
    """Serve the web app: practise, browse and check napkin math in a browser.

    Brings the study database's schema up to date once (as `sysdrill db upgrade`
    does), prints the URL, and serves until Ctrl-C. Everything is served locally:
    no internet is needed.
    """
    from sysdrill.app.study import upgrade_study_database
    from sysdrill.errors import VaultNotFound
    from sysdrill.storage.location import study_database_url
    from sysdrill.web.app import create_app

    if vault is not None and not vault.is_dir():
        raise VaultNotFound(
            f"vault folder '{vault}' does not exist; give a folder holding questions/"
        )
    url = study_database_url(db)
    upgrade_study_database(url)
    app = create_app(vault=vault, db_url=url, behind_proxy=behind_proxy)
    address = _url(host, port)
    typer.echo(f"sysdrill is serving on {address} (Ctrl-C stops it)")
    if open_browser:
        import webbrowser

        webbrowser.open(address)
    _run_server(app, host=host, port=port)


def reports(
    as_json: Annotated[bool, typer.Option("--json", help="Print the reports as JSON.")] = False,
) -> None:
    """List the problems learners reported about items in the web app, newest first.

    Reports are kept in reports.jsonl in the user data folder ($SYSDRILL_DATA_DIR).
    """
    import json

    from sysdrill.storage.location import data_dir
    from sysdrill.web.problem_reports import list_reports

    found = list_reports(data_dir())
    if as_json:
        typer.echo(json.dumps([r.to_dict() for r in found], indent=2, ensure_ascii=False))
        return
    if not found:
        typer.echo("No problem report yet.")
        return
    for report in found:
        when = report.reported_at.strftime("%Y-%m-%d %H:%M")
        message = " ".join(report.message.split())
        typer.echo(f"{when}  {report.item_id}  {report.kind.value}  {message}")


def register(app: typer.Typer) -> None:
    """Add ``serve`` and ``reports`` to the CLI."""
    app.command("serve")(serve)
    app.command("reports")(reports)
