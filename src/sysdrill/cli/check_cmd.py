"""``sysdrill check``: audit a vault and report every finding at once."""

from __future__ import annotations

import json
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from sysdrill.cli.console import QuietOption

if TYPE_CHECKING:
    from sysdrill.check import CheckReport

__all__ = ["ReportFormat", "register"]


class ReportFormat(StrEnum):
    """How ``check`` prints its report."""

    TEXT = "text"
    JSON = "json"
    GITHUB = "github"
    SARIF = "sarif"


def check(
    paths: Annotated[
        list[Path] | None,
        typer.Argument(
            metavar="PATH",
            help="A vault folder (holding questions/), or files inside one vault (their "
            "vault is found by walking up); the bundled starter vault when omitted.",
            show_default=False,
        ),
    ] = None,
    output_format: Annotated[
        ReportFormat,
        typer.Option(
            "--format",
            case_sensitive=False,
            help="text: one line per finding; json: one document; github: workflow "
            "annotations; sarif: SARIF 2.1.0 for code scanning.",
        ),
    ] = ReportFormat.TEXT,
    as_json: Annotated[
        bool,
        typer.Option("--json", help="Same as --format json."),
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
    changed_since: Annotated[
        str | None,
        typer.Option(
            "--changed-since",
            metavar="REF",
            help="Report only on files changed since this git ref (and untracked ones), "
            "plus the chains and decks that name them.",
            show_default=False,
        ),
    ] = None,
    no_cache: Annotated[
        bool,
        typer.Option(
            "--no-cache",
            help="Parse every file afresh and leave the cache (SYSDRILL_CACHE_DIR) alone.",
        ),
    ] = False,
    quiet: QuietOption = False,
) -> None:
    """Check a vault: YAML, schema, style, graph and napkin-math rules, every finding at once.

    Prints one line per finding, `path:line:col: SEVERITY CODE message (fix: ...)`,
    then a summary. Exits 0 when clean, 1 on errors (or warnings with --strict).
    `# sysdrill: ignore[CODE]` on a line silences that content finding there.
    --quiet prints the findings without the summary line or a progress bar.
    """
    from sysdrill.check import all_rules
    from sysdrill.check.service import check_paths
    from sysdrill.cli.console import progress_display
    from sysdrill.content.cache import default_cache_dir
    from sysdrill.content.sample import default_vault_path

    if as_json:
        if output_format not in (ReportFormat.TEXT, ReportFormat.JSON):
            raise typer.BadParameter(
                f"--json and --format {output_format.value} disagree; give one",
                param_hint="--json",
            )
        output_format = ReportFormat.JSON
    if rule:
        unknown = sorted(set(rule) - set(all_rules()))
        if unknown:
            raise typer.BadParameter(
                f"unknown rule code {', '.join(unknown)}; see docs/check-rules.md",
                param_hint="--rule",
            )
    if changed_since is not None and paths and any(path.is_file() for path in paths):
        raise typer.BadParameter(
            "give a vault folder, not files, with --changed-since", param_hint="--changed-since"
        )
    with progress_display(quiet=quiet) as progress:
        report = check_paths(
            paths or [default_vault_path()],
            changed_since=changed_since,
            codes=rule,
            cache_dir=None if no_cache else default_cache_dir(),
            progress=progress,
        )
    _print(report, output_format, summary=not quiet)
    code = report.exit_code(strict=strict)
    if code:
        raise typer.Exit(code)


def _print(report: CheckReport, output_format: ReportFormat, *, summary: bool = True) -> None:
    from sysdrill.check import all_rules
    from sysdrill.check.formats import github_annotations, sarif_document

    if output_format is ReportFormat.JSON:
        typer.echo(json.dumps(report.to_dict(), indent=2, ensure_ascii=False))
        return
    if output_format is ReportFormat.SARIF:
        document = sarif_document(report, all_rules(), Path.cwd())
        typer.echo(json.dumps(document, indent=2, ensure_ascii=False))
        return
    if output_format is ReportFormat.GITHUB:
        for line in github_annotations(report, Path.cwd()):
            typer.echo(line)
    else:
        for finding in report.findings:
            typer.echo(finding.render())
    if not summary:
        return
    counts = report.counts
    silenced = f" ({len(report.suppressed)} suppressed)" if report.suppressed else ""
    typer.echo(
        f"Checked {_count(report.files, 'file')} ({_count(report.items, 'valid item')}): "
        f"{_count(counts['error'], 'error')}, {_count(counts['warning'], 'warning')}, "
        f"{counts['info']} info{silenced}."
    )


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}{'' if number == 1 else 's'}"


def register(app: typer.Typer) -> None:
    """Add ``check`` to the app."""
    app.command("check")(check)
