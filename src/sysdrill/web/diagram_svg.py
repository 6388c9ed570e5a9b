"""Diagrams as inline SVG, drawn on the server from the napkin tier's geometry.

The SVG is built as text with every word escaped, so it needs no sanitizer and no
script. It scales to its container (``viewBox``, ``width="100%"``; on a 390 px phone
the stylesheet keeps it 480 px wide in a frame that scrolls, so its words stay
readable); words and axes use ``currentColor``, so they follow the page's light or
dark colours, and the fills are mid-tone colours legible on either. A ``<title>`` and
``<desc>`` carry the text alternative (:func:`diagram_summary`), named by
``aria-labelledby``. The page's security policy allows no inline styles, so only
presentation attributes are used. It is the question side: the figures read off the
picture (bubble, totals, ridge) may be the answer, so they are not labelled here;
the page shows them with the answer.
"""

from __future__ import annotations

import math
from html import escape

from markupsafe import Markup

from sysdrill.napkin.diagram_text import diagram_summary
from sysdrill.napkin.diagrams import (
    DiagramGeometry,
    MemoryBreakdown,
    RingAllReduce,
    RooflineChart,
    TreeAllReduce,
    ring_columns,
    ring_rows,
)
from sysdrill.napkin.pipeline_schedule import PipelineSchedule

__all__ = ["diagram_svg"]

_WIDTH = 640
_LEFT = 64
_PLOT = _WIDTH - _LEFT - 8
_FILLS = {"F": "#4e79a7", "B": "#59a14f", "W": "#e08a2c"}
_ALT_FILLS = {"F": "#2f4b7c", "B": "#2e6b2a", "W": "#a65e12"}
_MAX_TIPS = 400
"""Slots above which a schedule's slots carry no tooltip (the page stays small)."""
_FONT = 'font-family="system-ui, sans-serif" font-size="14"'


def _n(value: float) -> str:
    return f"{value:.2f}".rstrip("0").rstrip(".")


def _text(
    x: float, y: float, words: str, *, anchor: str = "start", fill: str = "currentColor"
) -> str:
    return (
        f'<text x="{_n(x)}" y="{_n(y)}" text-anchor="{anchor}" fill="{fill}">{escape(words)}</text>'
    )


def _tip(words: str) -> str:
    """A tooltip (and the part's own text alternative)."""
    return f"<title>{escape(words)}</title>"


def _row(name: str, *, label_y: float, line_y: float, opacity: str) -> list[str]:
    """A row's name at the left and its faint rule across the plot."""
    return [
        _text(_LEFT - 6, label_y, name, anchor="end"),
        f'<line x1="{_LEFT}" y1="{_n(line_y)}" x2="{_LEFT + _PLOT}" y2="{_n(line_y)}" '
        f'stroke="currentColor" stroke-opacity="{opacity}"/>',
    ]


def _pipeline(g: PipelineSchedule) -> tuple[list[str], float]:
    row = 26
    scale = _PLOT / g.makespan
    parts = []
    for stage in range(g.stages):
        y = 8 + stage * row
        parts += _row(f"GPU {stage}", label_y=y + 16, line_y=y + row - 2, opacity="0.25")
    tips = len(g.slots) <= _MAX_TIPS
    for slot in g.slots:
        x = _LEFT + slot.start * scale
        y = 8 + slot.stage * row
        width = slot.duration * scale
        fill = (_FILLS if slot.chunk % 2 == 0 else _ALT_FILLS)[slot.op]
        what = f"{slot.op}{slot.microbatch + 1}" + (
            f" chunk {slot.chunk + 1}" if g.chunks > 1 else ""
        )
        parts.append(
            f'<rect class="slot" data-op="{slot.op}" x="{_n(x)}" y="{y}" '
            f'width="{_n(max(width - 0.6, 0.4))}" height="{row - 6}" fill="{fill}">'
            + (_tip(f"GPU {slot.stage}: {what}") if tips else "")
            + "</rect>"
        )
        # A number only where it fits (about 8 user units a digit at this font size).
        if width >= 8 * len(str(slot.microbatch + 1)) + 6:
            parts.append(
                _text(x + width / 2, y + 14, str(slot.microbatch + 1), anchor="middle", fill="#fff")
            )
    y = 8 + g.stages * row + 16
    legend = [("F", "forward"), ("B", "backward")]
    if any(s.op == "W" for s in g.slots):
        legend.append(("W", "weight gradient"))
    x = float(_LEFT)
    for op, words in legend:
        parts.append(f'<rect x="{_n(x)}" y="{y - 10}" width="12" height="12" fill="{_FILLS[op]}"/>')
        parts.append(_text(x + 16, y, f"{op} {words}"))
        x += 28 + 8 * len(f"{op} {words}")
    if g.chunks > 1:
        parts.append(_text(x, y, "darker: odd chunks"))
    return parts, y + 8


def _ring(g: RingAllReduce) -> tuple[list[str], float]:
    row = 22
    shown = ring_columns(g, most=22)
    rows = ring_rows(g, most=10)
    cell = _PLOT / len(shown)
    half = len(shown) / 2
    parts = [
        _text(_LEFT + cell * half / 2, 14, "reduce-scatter", anchor="middle"),
        _text(_LEFT + cell * half * 1.5, 14, "all-gather", anchor="middle"),
    ]
    for position, rank in enumerate(rows):
        y = 22 + position * row
        if rank is None:
            parts.append(_text(_LEFT - 6, y + 15, "…", anchor="end"))
            continue
        parts.append(_text(_LEFT - 6, y + 15, f"rank {rank}", anchor="end"))
        for index, column in enumerate(shown):
            if column is None:
                parts.append(_text(_LEFT + (index + 0.5) * cell, y + 15, "…", anchor="middle"))
                continue
            step = g.steps[column]
            fill = _FILLS["F"] if step.phase == "reduce-scatter" else _FILLS["B"]
            chunk = step.chunks_sent[rank]
            parts.append(
                f'<rect class="slot" x="{_n(_LEFT + index * cell)}" y="{y}" '
                f'width="{_n(cell - 1)}" height="{row - 2}" fill="{fill}">'
                + _tip(f"step {step.step}: rank {rank} sends chunk {chunk}")
                + "</rect>"
            )
            if cell >= 8 * len(str(chunk)) + 6:
                parts.append(
                    _text(
                        _LEFT + (index + 0.5) * cell,
                        y + 15,
                        str(chunk),
                        anchor="middle",
                        fill="#fff",
                    )
                )
    y = 22 + len(rows) * row + 16
    parts.append(_text(_LEFT, y, f"cell: chunk sent to the next rank; {len(g.steps)} steps"))
    return parts, y + 8


def _tree(g: TreeAllReduce) -> tuple[list[str], float]:
    row = 20
    columns = len(g.steps) + 1
    cell = _PLOT / columns
    parts = []
    for rank in range(g.ranks):
        y = 16 + rank * row
        parts += _row(f"rank {rank}", label_y=y + 4, line_y=y, opacity="0.2")
    for index, step in enumerate(g.steps):
        x = _LEFT + (index + 1) * cell
        colour = _FILLS["F"] if step.phase == "reduce" else _FILLS["B"]
        for sender, receiver in step.edges:
            parts.append(
                f'<line class="slot" x1="{_n(x - cell * 0.8)}" y1="{16 + sender * row}" '
                f'x2="{_n(x)}" y2="{16 + receiver * row}" stroke="{colour}" stroke-width="2.5">'
                + _tip(f"step {step.step} {step.phase}: {sender} to {receiver}")
                + "</line>"
            )
            parts.append(
                f'<circle cx="{_n(x)}" cy="{16 + receiver * row}" r="3.5" fill="{colour}"/>'
            )
    y = 16 + g.ranks * row + 8
    parts.append(_text(_LEFT, y, "blue: reduce toward rank 0; green: broadcast back"))
    return parts, y + 8


def _memory(g: MemoryBreakdown) -> tuple[list[str], float]:
    left = 130
    plot = _WIDTH - left - 90
    rows = [(p.label, p.gb) for p in g.parts] + [("total", g.total_gb)]
    if g.capacity_gb is not None:
        rows.append(("GPU memory", g.capacity_gb))
    largest = max(gb for _, gb in rows) or 1.0
    colours = ["#4e79a7", "#59a14f", "#e08a2c", "#b07aa1", "#76787b", "#9c755f"]
    parts = []
    for index, (label, gb) in enumerate(rows):
        y = 8 + index * 28
        parts.append(_text(left - 8, y + 15, label, anchor="end"))
        parts.append(
            f'<rect class="slot" x="{left}" y="{y}" width="{_n(max(gb / largest * plot, 0.5))}" '
            f'height="20" fill="{colours[index % len(colours)]}">' + _tip(label) + "</rect>"
        )
    return parts, 8 + len(rows) * 28


def _roofline(g: RooflineChart) -> tuple[list[str], float]:
    height = 220
    top, bottom = 10.0, 190.0
    intensity = g.intensity_flop_per_byte or g.ridge_flop_per_byte
    lo_x = math.log10(min(g.ridge_flop_per_byte, intensity)) - 1
    hi_x = math.log10(max(g.ridge_flop_per_byte, intensity)) + 1
    hi_y = math.log10(g.peak_tflops) + 0.3
    lo_y = math.log10(g.bandwidth_gb_per_s * 10**lo_x / 1e3) - 0.3

    def x(intensity: float) -> float:
        return _LEFT + (math.log10(intensity) - lo_x) / (hi_x - lo_x) * _PLOT

    def y(tflops: float) -> float:
        return bottom - (math.log10(tflops) - lo_y) / (hi_y - lo_y) * (bottom - top)

    start = 10**lo_x
    end = 10**hi_x
    roof = (
        f"{_n(x(start))},{_n(y(g.bandwidth_gb_per_s * start / 1e3))} "
        f"{_n(x(g.ridge_flop_per_byte))},{_n(y(g.peak_tflops))} {_n(x(end))},{_n(y(g.peak_tflops))}"
    )
    rx = x(g.ridge_flop_per_byte)
    parts = [
        f'<line x1="{_LEFT}" y1="{bottom}" x2="{_LEFT + _PLOT}" y2="{bottom}" '
        'stroke="currentColor"/>',
        f'<line x1="{_LEFT}" y1="{top}" x2="{_LEFT}" y2="{bottom}" stroke="currentColor"/>',
        f'<polyline class="roof" points="{roof}" fill="none" stroke="{_FILLS["F"]}" '
        'stroke-width="3"/>',
        f'<line x1="{_n(rx)}" y1="{_n(y(g.peak_tflops))}" x2="{_n(rx)}" y2="{bottom}" '
        'stroke="currentColor" stroke-dasharray="4 3" stroke-opacity="0.6"/>',
        _text(rx + 4, bottom - 6, "ridge"),
        _text(
            _LEFT + _PLOT, y(g.peak_tflops) - 6, f"peak {g.peak_tflops:.4g} TFLOP/s", anchor="end"
        ),
        _text(
            _LEFT + _PLOT / 2, height - 8, "arithmetic intensity (FLOP/byte, log)", anchor="middle"
        ),
        _text(_LEFT - 6, top + 10, "TFLOP/s", anchor="end"),
    ]
    if g.intensity_flop_per_byte is not None and g.attainable_tflops is not None:
        kx, ky = x(g.intensity_flop_per_byte), y(g.attainable_tflops)
        right = kx > _LEFT + _PLOT * 0.7
        words = g.label
        parts.append(
            f'<circle class="slot" cx="{_n(kx)}" cy="{_n(ky)}" r="6" fill="{_FILLS["W"]}">'
            + _tip(words)
            + "</circle>"
        )
        parts.append(
            _text(kx + (-8 if right else 8), ky + 18, words, anchor="end" if right else "start")
        )
    return parts, float(height)


def diagram_svg(geometry: DiagramGeometry, *, element_id: str = "diagram") -> Markup:
    """The diagram as an inline ``<svg>`` element, safe to put in a page as it is.

    Args:
        geometry: What :func:`sysdrill.napkin.diagrams.build_diagram` computed.
        element_id: Prefix of the ids of its ``<title>`` and ``<desc>`` (unique per page).
    """
    if isinstance(geometry, PipelineSchedule):
        parts, height = _pipeline(geometry)
    elif isinstance(geometry, RingAllReduce):
        parts, height = _ring(geometry)
    elif isinstance(geometry, TreeAllReduce):
        parts, height = _tree(geometry)
    elif isinstance(geometry, MemoryBreakdown):
        parts, height = _memory(geometry)
    else:
        parts, height = _roofline(geometry)
    summary = escape(diagram_summary(geometry))
    ident = escape(element_id)
    head = (
        f'<svg xmlns="http://www.w3.org/2000/svg" class="diagram" viewBox="0 0 {_WIDTH} '
        f'{_n(height)}" width="100%" role="img" aria-labelledby="{ident}-title {ident}-desc" '
        f'{_FONT}><title id="{ident}-title">{summary}</title>'
        f'<desc id="{ident}-desc">Drawn from the numbers of this item.</desc>'
    )
    return Markup(head + "".join(parts) + "</svg>")  # every word above is escaped
