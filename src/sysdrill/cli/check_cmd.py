"""``sysdrill check``: audit a vault and report every finding at once."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

__all__ = ["register"]


def check(
    vault: Annotated[
        Path | None,
        typer.Argument(
            metavar="VAULT",
            help="Vault folder (holding questions/); the bundled sample vault when omitted.",
            show_default=False,
        ),
    ] = None,
    as_json: Annotated[
        bool,
        typer.Option("--json", help="Print the findings and counts as one JSON document."),
    ] = False,
    strict: Annotated[
        bool, typer.Option("--strict", help="Exit 1 on warnings too, not only on errors.")
    ] = False,
    rule: Annotated[
        list[str] | None,
        typer.Option(
            "--rule",
            metavar="CODE",
            help="Report only this rule code (repeat for several); see docs/check-rules.md.",
        ),
    ] = None,
    no_cache: Annotated[
        bool,
        typer.Option(
            "--no-cache",
            help="Parse every file afresh and leave the cache (SYSDRILL_CACHE_DIR) alone.",
        ),
    ] = False,
) -> None:
    """Check a vault: YAML, schema, style, graph and napkin-math rules, every finding at once.

    Prints one line per finding, `path:line:col: SEVERITY CODE message (fix: ...)`,
    then a summary. Exits 0 when clean, 1 on errors (or warnings with --strict).
    """
    from sysdrill.check import all_rules, run_check
    from sysdrill.content.cache import default_cache_dir
    from sysdrill.content.sample import sample_vault_path

    if rule:
        unknown = sorted(set(rule) - set(all_rules()))
        if unknown:
            raise typer.BadParameter(
                f"unknown rule code {', '.join(unknown)}; see docs/check-rules.md",
                param_hint="--rule",
            )
    root = vault if vault is not None else sample_vault_path()
    report = run_check(root, codes=rule, cache_dir=None if no_cache else default_cache_dir())
    if as_json:
        typer.echo(json.dumps(report.to_dict(), indent=2, ensure_ascii=False))
    else:
        for finding in report.findings:
            typer.echo(finding.render())
        counts = report.counts
        typer.echo(
            f"Checked {_count(report.files, 'file')} ({_count(report.items, 'valid item')}): "
            f"{_count(counts['error'], 'error')}, {_count(counts['warning'], 'warning')}, "
            f"{counts['info']} info."
        )
    code = report.exit_code(strict=strict)
    if code:
        raise typer.Exit(code)


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}{'' if number == 1 else 's'}"


def register(app: typer.Typer) -> None:
    """Add ``check`` to the app."""
    app.command("check")(check)
