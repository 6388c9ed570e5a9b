"""``sysdrill build``, ``search``, ``show`` and ``stats``: the compiled vault and the catalogue.

``build`` writes a SQLite file where you ask. ``search`` reads a compiled copy
of the vault kept in the user cache folder (``SYSDRILL_CACHE_DIR`` or the
platform's), brought up to date incrementally before every query, so it always
reflects the YAML files on disk. ``show`` and ``stats`` read the vault's
catalogue in the same folder (``app/catalogue.py``): ``show`` then reads the
item's own file, ``stats`` counts the catalogue. ``--db FILE`` reads a database
written by ``build`` instead.
"""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from sysdrill.cli.console import QuietOption, progress_display
from sysdrill.cli.int_options import MAX_RESULTS
from sysdrill.content.enums import Level, Track

if TYPE_CHECKING:
    from rich.console import Console

    from sysdrill.app.search import ShownItem
    from sysdrill.app.vault_audit import ReportedFindings
    from sysdrill.content.models import Item

__all__ = ["register"]

VaultArgument = Annotated[
    Path | None,
    typer.Argument(
        metavar="VAULT",
        help="Vault folder (holding questions/); the bundled starter vault when omitted.",
        show_default=False,
    ),
]
VaultOption = Annotated[
    Path | None,
    typer.Option(
        "--vault",
        metavar="VAULT",
        help="Vault folder to read; the bundled starter vault when omitted.",
        show_default=False,
    ),
]
DbOption = Annotated[
    Path | None,
    typer.Option(
        "--db",
        metavar="FILE",
        help="Read this database written by `sysdrill build` instead of the vault's cached copy.",
        show_default=False,
    ),
]
JsonOption = Annotated[bool, typer.Option("--json", help="Print JSON instead of a table.")]

_MARKED = re.compile(r"\*\*(.+?)\*\*", re.DOTALL)


def _one_source(vault: Path | None, db: Path | None) -> None:
    if vault is not None and db is not None:
        raise typer.BadParameter("give --vault or --db, not both", param_hint="--db")


def _database(vault: Path | None, db: Path | None, *, quiet: bool = False) -> Path:
    """The database to read: ``--db`` as given, else the vault's up-to-date cached copy.

    Bringing the copy up to date after an import reads and compiles every item
    file: a bar on a terminal says how far it is (none with ``quiet``).
    """
    from sysdrill.app.search import vault_database
    from sysdrill.content.cache import default_cache_dir
    from sysdrill.content.gc_pause import kept_until_exit
    from sysdrill.errors import UsageError

    try:
        with kept_until_exit(), progress_display(quiet=quiet) as progress:
            return vault_database(
                vault, db, now=datetime.now(UTC), cache_dir=default_cache_dir(), progress=progress
            )
    except UsageError as exc:
        raise typer.BadParameter(str(exc), param_hint="--db") from exc


def build(
    vault: VaultArgument = None,
    out: Annotated[
        Path,
        typer.Option("--out", metavar="FILE", help="Database file to write (replaced atomically)."),
    ] = Path("vault.db"),
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the build report as JSON.")
    ] = False,
    strict: Annotated[
        bool,
        typer.Option(
            "--strict", help="Refuse on any error or warning of `check`, content ones too."
        ),
    ] = False,
    quiet: QuietOption = False,
) -> None:
    """Compile a vault into a SQLite database: items, decks, chains, tags, full-text index.

    Refuses a vault with structural errors (unreadable YAML, schema, duplicate ids, broken
    references; run `sysdrill check`); content findings (style, napkin math, a topic
    missing from the taxonomy) are counted on stderr and do not stop it unless
    --strict. Files unchanged in size, mtime and hash since the last build are not parsed
    again, and the file is replaced atomically, so a failed build leaves the previous one
    intact.
    """
    from sysdrill.app.build import build_vault
    from sysdrill.content.cache import default_cache_dir
    from sysdrill.content.sample import default_vault_path

    root = vault if vault is not None else default_vault_path()
    with progress_display(quiet=quiet) as progress:
        report = build_vault(
            root,
            out,
            now=datetime.now(UTC),
            cache_dir=default_cache_dir(),
            strict=strict,
            progress=progress,
        )
    if as_json:
        data = {
            "out": str(report.out),
            "items": report.items,
            "published": report.published,
            "parsed": report.parsed,
            "reused": report.reused,
            "removed": report.removed,
            "release_hash": report.release_hash,
            "built_at": report.built_at.isoformat(),
            "up_to_date": report.up_to_date,
            "reported": [
                {"code": r.code, "severity": r.severity.value, "count": r.total}
                for r in report.reported
            ],
        }
        typer.echo(json.dumps(data, indent=2))
        return
    if quiet:
        return
    if report.up_to_date:
        typer.echo(f"{out} is up to date: {report.items} items, nothing changed.")
    else:
        typer.echo(
            f"Built {out}: {report.items} items ({report.published} published); "
            f"parsed {report.parsed} files, reused {report.reused}, removed {report.removed}."
        )
    typer.echo(f"Release hash: {report.release_hash}")
    for line in _reported_lines(report.reported, root):
        typer.echo(line, err=True)


def _reported_lines(reported: tuple[ReportedFindings, ...], root: Path) -> list[str]:
    """What the audit found without stopping the build: a total, then one line per rule."""
    if not reported:
        return []
    totals = dict.fromkeys(("error", "warning", "info"), 0)
    for row in reported:
        totals[row.severity.value] += row.total
    counted = ", ".join(
        f"{n} {name if n == 1 else name + 's'}"
        for name, n in (("error", totals["error"]), ("warning", totals["warning"]))
    )
    lines = [
        f"Reported, not blocking: {counted}, {totals['info']} info; "
        f"`sysdrill check {root}` lists each one:"
    ]
    lines.extend(f"  {row.total} {row.severity.value} {row.code}" for row in reported)
    return lines


def search(
    query: Annotated[
        str,
        typer.Argument(
            metavar="QUERY",
            help="Words to find (FTS5 syntax such as `roof*` or `a OR b` works; "
            'anything else is searched as plain words). "" lists items by id.',
        ),
    ],
    vault: VaultOption = None,
    db: DbOption = None,
    track: Annotated[
        list[Track] | None,
        typer.Option(
            "--track",
            metavar="TRACK",
            help="Only this track (repeat for several).",
            show_default=False,
        ),
    ] = None,
    level: Annotated[
        list[Level] | None,
        typer.Option(
            "--level",
            metavar="LEVEL",
            help="Only this level (repeat for several).",
            show_default=False,
        ),
    ] = None,
    topic: Annotated[
        list[str] | None,
        typer.Option(
            "--topic",
            metavar="TOPIC",
            help="Only this topic (repeat for several).",
            show_default=False,
        ),
    ] = None,
    limit: Annotated[
        int,
        typer.Option("--limit", metavar="N", min=1, max=MAX_RESULTS, help="Most results to show."),
    ] = 20,
    as_json: JsonOption = False,
    quiet: QuietOption = False,
) -> None:
    """Search titles, scenarios, questions and answers, best matches first.

    The first search after the vault changed compiles it (a progress bar on a
    terminal unless --quiet).
    """
    from sysdrill.app.search import search_vault

    result = search_vault(
        _database(vault, db, quiet=quiet),
        query,
        tracks=[t.value for t in track or []],
        levels=[lv.value for lv in level or []],
        topics=topic or [],
        limit=limit,
    )
    hits = result.hits
    if as_json:
        typer.echo(json.dumps(result.to_dict()["hits"], indent=2, ensure_ascii=False))
        return
    if not hits:
        typer.echo(f"No items match {query!r}.")
        return
    from rich.markup import escape
    from rich.table import Table

    from sysdrill.cli.console import out_console

    table = Table(show_lines=False)
    for column in ("id", "level", "track", "kind", "title"):
        table.add_column(column, no_wrap=column != "title")
    if query.strip():
        table.add_column("match")
    for hit in hits:
        row = [hit.id, hit.level or "", hit.track or "", hit.kind, escape(hit.title or "")]
        if query.strip():
            row.append(_MARKED.sub(r"[bold]\1[/bold]", escape(hit.snippet)))
        table.add_row(*row)
    console = out_console()
    console.print(table)
    console.print(f"{len(hits)} result{'' if len(hits) == 1 else 's'}.")


def show(
    item_id: Annotated[str, typer.Argument(metavar="ID", help="Item id, such as cloud-0102.")],
    vault: VaultOption = None,
    db: DbOption = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the item, its path and hash as JSON.")
    ] = False,
    quiet: QuietOption = False,
) -> None:
    """Show one item: scenario, question, options, answer, common mistake and napkin math.

    The first look after the vault changed reads its item files into the
    catalogue (a progress bar on a terminal unless --quiet).
    """
    from sysdrill.app.search import show_vault_item
    from sysdrill.content.cache import default_cache_dir

    _one_source(vault, db)
    with progress_display(quiet=quiet) as progress:
        shown = show_vault_item(
            vault,
            db,
            item_id,
            now=datetime.now(UTC),
            cache_dir=default_cache_dir(),
            progress=progress,
        )
    if as_json:
        typer.echo(json.dumps(shown.to_dict(), indent=2, ensure_ascii=False))
        return
    from sysdrill.cli.console import out_console

    _render_item(out_console(), shown)


def _render_item(console: Console, shown: ShownItem) -> None:
    """Lay out the item's view (the one sessions show) with Rich, answers included."""
    from rich.markup import escape
    from rich.rule import Rule

    from sysdrill.study.sessions.text import plain_text, terminal_markup_text
    from sysdrill.study.sessions.view import answer_sections, item_view

    record = shown.record
    item = shown.shown
    view = item_view(item)
    title = plain_text(view.heading)
    console.print(Rule(f"[bold]{escape(item.id)}[/bold]  {escape(title)}"))
    console.print("  ".join(f"[dim]{name}[/dim] {escape(value)}" for name, value in view.facts))
    if shown.draw_values is not None:
        console.print(
            "[dim]parametric: practice draws new numbers each session; shown with one "
            "example draw[/dim]"
        )

    def section(heading: str, text: str | None) -> None:
        if text and text.strip():
            console.print()
            console.print(f"[bold underline]{heading}[/bold underline]")
            # Line by line, bold kept: the markers and napkin lines are line-oriented,
            # which Markdown rendering would reflow into one paragraph.
            readable = escape(terminal_markup_text(text))
            console.print(_MARKED.sub(r"[bold]\1[/bold]", readable))

    section("Scenario", view.scenario)
    _render_diagram(console, item)
    section("Question", item.question)
    if view.options:
        console.print()
        console.print("[bold underline]Options[/bold underline]")
        for index, option in enumerate(view.options):
            mark = " [green](correct)[/green]" if index == view.correct_index else ""
            console.print(f"  {chr(65 + index)}. {escape(plain_text(option))}{mark}")
    for part in view.parts:
        answer = f"\n**Answer:** {part.answer}" if part.answer else ""
        section(f"Part {part.label}", part.text + answer)
    if view.expected_answer is not None:
        console.print()
        console.print(
            f"[bold underline]Expected answer[/bold underline] {escape(view.expected_answer)}"
        )
    for heading, text in answer_sections(item):
        section(heading, text)
    for resource in item.details.resources or []:
        console.print(f"[dim]see[/dim] {escape(resource.name)}: {escape(resource.url)}")
    console.print()
    console.print(f"[dim]{escape(record.path)}  content hash {record.content_hash}[/dim]")


def _render_diagram(console: Console, item: Item) -> None:
    """The item's diagram as text (80 columns), when it has one that can be drawn."""
    from rich.markup import escape

    from sysdrill.napkin.diagram_text import diagram_text
    from sysdrill.napkin.diagrams import item_diagram

    geometry = item_diagram(item)
    if geometry is None:
        return
    console.print()
    console.print("[bold underline]Diagram[/bold underline]")
    caption = item.diagram.caption if item.diagram is not None else None
    for line in diagram_text(geometry, results=True, caption=caption):
        console.print(escape(line), overflow="ignore", crop=False, soft_wrap=True)


def stats(
    vault: VaultOption = None,
    db: DbOption = None,
    as_json: Annotated[
        bool,
        typer.Option("--json", help="Print total and every count as one JSON document."),
    ] = False,
    quiet: QuietOption = False,
) -> None:
    """Count items: total, by track x level, zone, competency area, status and kind.

    The first count after the vault changed reads its item files into the
    catalogue (a progress bar on a terminal unless --quiet).
    """
    from sysdrill.app.search import count_items
    from sysdrill.cli.console import err_console
    from sysdrill.content.cache import default_cache_dir

    _one_source(vault, db)
    with progress_display(quiet=quiet) as progress:
        counted = count_items(
            vault, db, now=datetime.now(UTC), cache_dir=default_cache_dir(), progress=progress
        )
    if counted.broken_files:
        err_console().print(
            f"Warning: {counted.broken_files} item file(s) did not load and are not counted; "
            "run 'sysdrill check' to see why."
        )
    counts = counted.stats
    if as_json:
        data: dict[str, Any] = counts.to_dict()
        data["release_hash"] = counted.release_hash
        data["built_at"] = counted.built_at.isoformat()
        typer.echo(json.dumps(data, indent=2, ensure_ascii=False))
        return
    from rich.table import Table

    from sysdrill.cli.console import out_console

    console = out_console()
    console.print(f"[bold]{counts.total}[/bold] items  (release {counted.release_hash[:16]})")
    levels = [level.value for level in Level]
    if any("none" in row for row in counts.by_track_level.values()):
        levels.append("none")
    grid = Table(title="Track x level")
    grid.add_column("track")
    for level in levels:
        grid.add_column(level, justify="right")
    grid.add_column("total", justify="right")
    for track, row in counts.by_track_level.items():
        grid.add_row(
            track, *(str(row.get(level, 0) or "") for level in levels), str(sum(row.values()))
        )
    console.print(grid)
    for title, mapping in (
        ("Zone", counts.by_zone),
        ("Competency area", counts.by_competency_area),
        ("Status", counts.by_status),
        ("Kind", counts.by_kind),
    ):
        table = Table(title=title)
        table.add_column(title.lower())
        table.add_column("items", justify="right")
        for key, value in mapping.items():
            table.add_row(key, str(value))
        console.print(table)


def register(app: typer.Typer) -> None:
    """Add ``build``, ``search``, ``show`` and ``stats`` to the app."""
    app.command("build")(build)
    app.command("search")(search)
    app.command("show")(show)
    app.command("stats")(stats)
