"""``sysdrill check``: audit a vault and report every finding at once."""

from __future__ import annotations

import json
from dataclasses import replace
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from sysdrill.cli.console import QuietOption
from sysdrill.content.diagnostics import Severity

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
    show_info: Annotated[
        bool,
        typer.Option(
            "--info",
            help="Print info findings too (the napkin checker's abstentions, hints); they are "
            "hidden by default and counted in the summary. JSON and SARIF always hold them.",
        ),
    ] = False,
    quiet: QuietOption = False,
) -> None:
    """Check a vault: YAML, schema, style, graph and napkin-math rules, every finding at once.

    Prints one line per error or warning, `path:line:col: SEVERITY CODE message
    (fix: ...)`, then a summary that counts info findings too (--info prints them).
    Exits 0 when clean, 1 on errors (or warnings with --strict).
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
    _print(report, output_format, summary=not quiet, show_info=show_info)
    code = report.exit_code(strict=strict)
    if code:
        raise typer.Exit(code)


def _print(
    report: CheckReport, output_format: ReportFormat, *, summary: bool = True, show_info: bool
) -> None:
    from sysdrill.check import all_rules
    from sysdrill.check.formats import github_annotations, sarif_document

    if output_format is ReportFormat.JSON:
        typer.echo(json.dumps(report.to_dict(), indent=2, ensure_ascii=False))
        return
    if output_format is ReportFormat.SARIF:
        document = sarif_document(report, all_rules(), Path.cwd())
        typer.echo(json.dumps(document, indent=2, ensure_ascii=False))
        return
    # Info is what the checker was unsure of or merely notes: an author who sees it line by
    # line among real errors stops reading, so it is counted and shown on request.
    shown = report
    if not show_info:
        shown = replace(
            report, findings=[f for f in report.findings if f.severity is not Severity.INFO]
        )
    if output_format is ReportFormat.GITHUB:
        for line in github_annotations(shown, Path.cwd()):
            typer.echo(line)
    else:
        for finding in shown.findings:
            typer.echo(finding.render())
    if not summary:
        return
    counts = report.counts
    notes = []
    if counts["info"] and not show_info:
        notes.append("hidden; --info shows them")
    if report.suppressed:
        notes.append(f"{len(report.suppressed)} suppressed")
    aside = f" ({'; '.join(notes)})" if notes else ""
    typer.echo(
        f"Checked {_count(report.files, 'file')} ({_count(report.items, 'valid item')}): "
        f"{_count(counts['error'], 'error')}, {_count(counts['warning'], 'warning')}, "
        f"{counts['info']} info{aside}."
    )


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}{'' if number == 1 else 's'}"


def register(app: typer.Typer) -> None:
    """Add ``check`` to the app."""
    app.command("check")(check)
