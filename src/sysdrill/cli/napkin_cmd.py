"""``sysdrill napkin check FILE|-``: verify every ``=`` / ``≈`` / ``~`` claim in a document."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated

import typer

from sysdrill.errors import UsageError

napkin_app = typer.Typer(
    name="napkin",
    help="Verify napkin math: recompute every claim, with units.",
    no_args_is_help=True,
)

_MARKS = {
    "ok": "ok",
    "wrong": "WRONG",
    "unit-mismatch": "UNITS",
    "prefix-ambiguous": "note",
    "skipped": "skip",
}


@napkin_app.command("check")
def check_command(
    source: Annotated[
        str,
        typer.Argument(
            help="A text, Markdown or vault item YAML file, or '-' for standard input.",
            metavar="FILE|-",
        ),
    ],
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the verdicts as JSON for machines.")
    ] = False,
    problems: Annotated[
        bool,
        typer.Option(
            "--problems", help="Print only wrong, unit-mismatch and prefix-ambiguous claims."
        ),
    ] = False,
    text: Annotated[
        bool,
        typer.Option("--text", help="Read a .yaml file as plain text instead of a vault item."),
    ] = False,
) -> None:
    """Recompute each claim in FILE and print its verdict with its line number.

    Verdicts: ok, wrong (with the computed value and a corrected line),
    unit-mismatch, prefix-ambiguous (a note) and skipped (symbolic, a range, a
    comparison or prose). Exits 1 when any claim is wrong or mixes units.
    """
    from sysdrill.napkin.filecheck import check_document

    if source == "-":
        document = sys.stdin.read()
    else:
        path = Path(source)
        if not path.is_file():
            raise UsageError(f"{source}: no such file; give a text or YAML file, or '-' for stdin")
        try:
            document = path.read_bytes().decode("utf-8")
        except UnicodeDecodeError:
            raise UsageError(f"{source}: not UTF-8 text; save it as UTF-8") from None
    result = check_document(document, source=source, as_yaml=False if text else None)
    shown = [
        v
        for v in result.verdicts
        if not problems or v.verdict.verdict.value not in ("ok", "skipped")
    ]
    if as_json:
        data = result.to_dict()
        if problems:
            data["claims"] = [{"field": v.field, **v.verdict.to_dict()} for v in shown]
        typer.echo(json.dumps(data, ensure_ascii=False, indent=2))
    else:
        for item in shown:
            verdict = item.verdict
            where = f" [{item.field}]" if item.field else ""
            line = f"{source}:{verdict.line}: {_MARKS[verdict.verdict.value]:<5} {verdict.claim}"
            detail = verdict.message
            if verdict.suggestion:
                detail += f"; write: {verdict.suggestion}"
            typer.echo(f"{line}{where}  ({detail})")
        counts = result.counts
        summary = ", ".join(f"{n} {kind}" for kind, n in counts.items() if n)
        typer.echo(f"{len(result.verdicts)} claims: {summary or 'none found'}")
    if result.has_errors:
        raise typer.Exit(1)


def register(app: typer.Typer) -> None:
    """Add the ``napkin`` command group to the app."""
    app.add_typer(napkin_app)
