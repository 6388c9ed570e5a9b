"""Calculator charts: the roofline with the user's kernel, and per-GPU memory bars.

Drawn with pygal as SVG and shown as ``data:`` images, which run no script and
load nothing.
"""

from __future__ import annotations

import math

from sysdrill.web.charts import chart_config, load_pygal

__all__ = ["memory_bars", "roofline_plot"]

_INTENSITY_RANGE = (0.1, 10_000.0)
"""Arithmetic intensities the roofline spans, FLOP/byte."""


def _decades(low: float, high: float) -> list[float]:
    """Powers of ten from below ``low`` to above ``high``: the labels of a log axis."""
    first = math.floor(math.log10(low))
    last = math.ceil(math.log10(high))
    return [10.0**exponent for exponent in range(first, last + 1)]


def roofline_plot(
    *, peak_tflop_per_s: float, bandwidth_tb_per_s: float, intensity_flop_per_byte: float
) -> str:
    """The roofline of one accelerator (log-log) with the kernel marked.

    Args:
        peak_tflop_per_s: Compute roof, TFLOP/s.
        bandwidth_tb_per_s: Memory bandwidth, TB/s (the slope of the memory roof).
        intensity_flop_per_byte: The kernel's arithmetic intensity, FLOP/byte.

    Returns:
        An SVG document.
    """
    pygal = load_pygal()

    low, high = _INTENSITY_RANGE
    low = min(low, intensity_flop_per_byte / 2)
    high = max(high, intensity_flop_per_byte * 2)
    steps = 60
    ridge = peak_tflop_per_s / bandwidth_tb_per_s
    xs = sorted({low * (high / low) ** (i / steps) for i in range(steps + 1)} | {ridge})
    roof = [(x, min(peak_tflop_per_s, bandwidth_tb_per_s * x)) for x in xs]
    attained = min(peak_tflop_per_s, bandwidth_tb_per_s * intensity_flop_per_byte)
    chart = pygal.XY(
        **chart_config(
            title="Roofline (log-log): attainable TFLOP/s against FLOP/byte",
            logarithmic=True,
            x_title="arithmetic intensity (FLOP/byte)",
            y_title="TFLOP/s",
            dots_size=2,
            height=420,
            show_x_guides=False,
            show_y_guides=False,
            x_labels=_decades(low, high),
            y_labels=_decades(roof[0][1], peak_tflop_per_s),
        )
    )
    chart.xrange = (low, high)
    chart.add("roofline", roof, show_dots=False, stroke_style={"width": 3})
    chart.add(
        f"your kernel: {intensity_flop_per_byte:g} FLOP/byte, {attained:,.4g} TFLOP/s",
        [(intensity_flop_per_byte, attained)],
        stroke=False,
        dots_size=8,
    )
    chart.add(f"ridge point: {ridge:,.4g} FLOP/byte", [(ridge, peak_tflop_per_s)], stroke=False)
    return str(chart.render(is_unicode=True))


def memory_bars(parts_gb: dict[str, float], *, capacity_gb: float | None) -> str:
    """Per-GPU memory as one stacked bar beside the GPU's capacity.

    Args:
        parts_gb: Memory by part (weights, gradients, optimizer states), GB.
        capacity_gb: Memory of one GPU, GB; None when not known.

    Returns:
        An SVG document.
    """
    pygal = load_pygal()

    chart = pygal.HorizontalStackedBar(
        **chart_config(title="Memory per GPU (GB)", height=240, x_title="GB")
    )
    labels = ["needed"] + (["GPU memory"] if capacity_gb is not None else [])
    chart.x_labels = labels
    for name, value in parts_gb.items():
        chart.add(name, [value, None] if capacity_gb is not None else [value])
    if capacity_gb is not None and math.isfinite(capacity_gb):
        chart.add("capacity", [None, capacity_gb])
    return str(chart.render(is_unicode=True))
