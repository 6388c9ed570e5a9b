"""Progress charts drawn on the server as SVG with pygal.

Pages show them as ``<img>`` (an SVG image runs no script and loads nothing), each
with a data table beside it for screen readers and for readers without images.
pygal's JavaScript tooltips are turned off (``js=[]``): the app loads nothing from
the internet.
"""

from __future__ import annotations

import base64
import sys
from collections.abc import Sequence
from datetime import date
from typing import Any

from sysdrill.study.progress import DayCount, ProgressReport

__all__ = [
    "CHART_NAMES",
    "chart_config",
    "explore_treemap",
    "load_pygal",
    "render_chart",
    "svg_data_uri",
]

CHART_NAMES = ("coverage", "reviews", "retention", "forecast")
"""The charts :func:`render_chart` draws."""
NARROW_SIZE = {"width": 380, "height": 300}
"""Pixel size of a chart drawn for a phone: at 390 px its labels keep their size."""


def load_pygal() -> Any:
    """Import pygal without the import hook it installs.

    pygal appends a ``sys.meta_path`` finder (for its ``pygal.maps`` plugins, which
    we do not use) that lacks ``find_spec``, so every later import of a missing
    module, such as a library probing for an optional extra, raises ImportWarning.
    """
    import pygal

    sys.meta_path[:] = [
        finder for finder in sys.meta_path if type(finder).__name__ != "PluginImportFixer"
    ]
    return pygal


def _style() -> Any:
    load_pygal()
    from pygal.style import Style

    # Mid-tone colours that read on the light and the dark theme alike.
    return Style(
        background="transparent",
        plot_background="transparent",
        foreground="#8a919c",
        foreground_strong="#8a919c",
        foreground_subtle="#8a919c55",
        colors=("#4c8bf5", "#2fa36b", "#e2a03f", "#d9534f", "#9b6bd6", "#3fb5c4"),
        font_family="system-ui, sans-serif",
        label_font_size=12,
        major_label_font_size=12,
        legend_font_size=12,
        title_font_size=14,
    )


def chart_config(**extra: Any) -> dict[str, Any]:
    """Pygal settings shared by every chart (no JavaScript, theme-neutral colours)."""
    return {
        "js": [],
        "style": _style(),
        "width": 720,
        "height": 320,
        "disable_xml_declaration": True,
        "show_legend": True,
        "legend_at_bottom": True,
        "print_values": False,
        **extra,
    }


def _coverage(report: ProgressReport, size: dict[str, int]) -> Any:
    pygal = load_pygal()

    tracks = sorted({cell.track for cell in report.coverage})
    areas = sorted({cell.competency_area for cell in report.coverage})
    by_cell = {(c.competency_area, c.track): c for c in report.coverage}
    chart = pygal.Dot(
        **chart_config(
            title="Coverage: items seen, by competency area and track (%)",
            x_label_rotation=0,
            show_legend=False,
            width=size.get("width", 720),
            height=max(200, 40 * len(areas) + 100),
        )
    )
    chart.x_labels = tracks
    for area in areas:
        row = []
        for track in tracks:
            cell = by_cell.get((area, track))
            row.append(round(100 * cell.seen / cell.items) if cell and cell.items else None)
        chart.add(area, row)
    return chart


def _daily_bars(days: Sequence[DayCount], series: str, **config: Any) -> Any:
    """A bar per day, labelled with the date of each Monday (``24 Nov``)."""
    pygal = load_pygal()

    # pygal cuts a label to the width of one bar ("3…") unless truncation is off.
    chart = pygal.Bar(
        **chart_config(show_legend=False, x_label_rotation=0, truncate_label=-1, **config)
    )
    chart.x_labels = [_day_label(d.day) for d in days]
    chart.x_labels_major = [_day_label(d.day) for d in days if d.day.weekday() == 0]
    chart.show_minor_x_labels = False
    chart.add(series, [d.count for d in days])
    return chart


def _day_label(day: date) -> str:
    return f"{day.day} {day:%b}"


def _reviews(report: ProgressReport, size: dict[str, int]) -> Any:
    return _daily_bars(
        report.reviews_per_day, "reviews", title="Reviews per day, last 30 days", **size
    )


def _retention(report: ProgressReport, size: dict[str, int]) -> Any:
    pygal = load_pygal()

    chart = pygal.Bar(**chart_config(title="True retention (%)", range=(0, 100), **size))
    chart.x_labels = ["all time", "last 30 days"]
    for name, all_time, recent in (
        ("young", report.retention_young, report.recent_retention_young),
        ("mature", report.retention_mature, report.recent_retention_mature),
    ):
        chart.add(
            name,
            [None if r.rate is None else round(100 * r.rate, 1) for r in (all_time, recent)],
        )
    return chart


def _forecast(report: ProgressReport, size: dict[str, int]) -> Any:
    return _daily_bars(
        report.forecast, "due", title="Reviews due, next 30 days (overdue today)", **size
    )


_DRAW = {
    "coverage": _coverage,
    "reviews": _reviews,
    "retention": _retention,
    "forecast": _forecast,
}


def render_chart(name: str, report: ProgressReport, *, narrow: bool = False) -> str:
    """One progress chart as an SVG document.

    Args:
        name: One of :data:`CHART_NAMES`.
        report: The learner's progress.
        narrow: Draw it :data:`NARROW_SIZE` (for a phone) instead of 720 by 320 px.

    Raises:
        KeyError: For an unknown chart name (routes check the name first).
    """
    chart = _DRAW[name](report, NARROW_SIZE if narrow else {})
    return str(chart.render(is_unicode=True))


def explore_treemap(tracks: list[dict[str, Any]]) -> str:
    """The vault as a treemap: one colour per track, one tile per competency area.

    Args:
        tracks: The tree of :func:`sysdrill.app.explore.explore_tree`.

    Returns:
        An SVG document; each tile's label names the area and the share seen.
    """
    pygal = load_pygal()
    chart = pygal.Treemap(
        **chart_config(title="The vault by track and competency area (tile size: items)")
    )
    for track in tracks:
        chart.add(
            track["name"],
            [
                {
                    "value": area["items"],
                    "label": f"{area['name']}: {area['seen']}/{area['items']} seen",
                }
                for area in track["children"]
            ],
        )
    return str(chart.render(is_unicode=True))


def svg_data_uri(svg: str) -> str:
    """An SVG document as a ``data:`` URI for ``<img src>``."""
    return "data:image/svg+xml;base64," + base64.b64encode(svg.encode("utf-8")).decode("ascii")
