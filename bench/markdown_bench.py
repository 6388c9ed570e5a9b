"""Markdown rendering for the ``.apkg`` exporter: cmark-gfm against markdown-it-py.

Generates a synthetic vault (``bench/synthetic_vault.py``, 10,000 items by
default), exports it to ``.apkg`` once while recording every field text the
exporter renders, then times rendering all of them with the exporter's
``FieldRenderer`` (cmark-gfm, what ships) and with the same renderer calling
markdown-it-py instead (CommonMark with tables, strikethrough and hard line
breaks, the nearest match to the GitHub-flavoured options). Each pass starts
with an empty memo, so every distinct field is rendered. With ``--export`` it
also times the whole ``.apkg`` export (loading and validating the vault
included) with each renderer.

markdown-it-py is not a dependency of sysdrill: ``pip install markdown-it-py``
to include it.

Usage: ``python bench/markdown_bench.py [COUNT] [--repeat R] [--export]``.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from synthetic_vault import generate_vault  # noqa: E402

import sysdrill.interop.export.apkg as apkg_module  # noqa: E402
from sysdrill.interop.export import ExportFormat, export_vault  # noqa: E402
from sysdrill.interop.export.cards import FieldRenderer  # noqa: E402

NOW = datetime(2026, 11, 21, tzinfo=UTC)


def markdown_it_renderer() -> type[FieldRenderer] | None:
    """``FieldRenderer`` with markdown-it-py in place of cmark-gfm (None if not installed)."""
    try:
        from markdown_it import MarkdownIt
    except ImportError:
        return None
    parser = MarkdownIt("commonmark", {"breaks": True, "html": False})
    parser.enable(["table", "strikethrough"])

    class MarkdownItRenderer(FieldRenderer):
        def __init__(self) -> None:
            super().__init__()
            self._to_html = lambda text, options: parser.render(text)

    return MarkdownItRenderer


def recorded_fields(vault: Path, out: Path) -> list[str]:
    """Every text the ``.apkg`` exporter renders for ``vault``, in order."""
    texts: list[str] = []

    class Recording(FieldRenderer):
        def __call__(self, text: str | None) -> str:
            if text:
                texts.append(text)
            return super().__call__(text)

    apkg_module.FieldRenderer = Recording  # type: ignore[misc]
    try:
        export_vault(vault, format=ExportFormat.APKG, out=out, now=NOW)
    finally:
        apkg_module.FieldRenderer = FieldRenderer  # type: ignore[misc]
    return texts


def time_passes(run: Callable[[], Any], repeat: int) -> tuple[list[float], float]:
    """Wall seconds of each pass, and the CPU seconds of the fastest."""
    walls: list[float] = []
    cpus: list[float] = []
    for _ in range(repeat):
        wall, cpu = time.perf_counter(), time.process_time()
        run()
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
    return walls, cpus[walls.index(min(walls))]


def main() -> None:
    """Generate the vault, record the fields, time each renderer."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("count", nargs="?", type=int, default=10_000, help="items to generate")
    parser.add_argument("--repeat", type=int, default=3, help="passes per renderer")
    parser.add_argument("--export", action="store_true", help="also time whole .apkg exports")
    args = parser.parse_args()

    renderers: dict[str, type[FieldRenderer]] = {"cmark-gfm (cmarkgfm, shipped)": FieldRenderer}
    alternative = markdown_it_renderer()
    if alternative is None:
        print("markdown-it-py: not installed (pip install markdown-it-py)")
    else:
        renderers["markdown-it-py"] = alternative

    with tempfile.TemporaryDirectory() as scratch:
        vault = Path(scratch) / "vault"
        generate_vault(vault, args.count, seed=0)
        texts = recorded_fields(vault, Path(scratch) / "record.apkg")
        print(
            f"{args.count} items: {len(texts)} fields rendered by the .apkg exporter "
            f"({len(set(texts))} distinct, {sum(map(len, texts)) / 1e6:.1f} MB of text); "
            f"{args.repeat} passes each"
        )
        for name, renderer_class in renderers.items():

            def render_all(renderer_class: type[FieldRenderer] = renderer_class) -> None:
                render = renderer_class()
                for text in texts:
                    render(text)

            walls, cpu = time_passes(render_all, args.repeat)
            print(
                f"render every field, {name}: best {min(walls):.2f} s, "
                f"median {statistics.median(walls):.2f} s, CPU {cpu:.2f} s "
                f"({min(walls) / args.count * 1e3:.3f} ms per item)"
            )
        if not args.export:
            return
        for name, renderer_class in renderers.items():

            def export(renderer_class: type[FieldRenderer] = renderer_class) -> None:
                apkg_module.FieldRenderer = renderer_class  # type: ignore[misc]
                try:
                    out = Path(scratch) / "out.apkg"
                    export_vault(vault, format=ExportFormat.APKG, out=out, now=NOW)
                finally:
                    apkg_module.FieldRenderer = FieldRenderer  # type: ignore[misc]

            walls, cpu = time_passes(export, args.repeat)
            print(
                f"whole .apkg export, {name}: best {min(walls):.2f} s, "
                f"median {statistics.median(walls):.2f} s, CPU {cpu:.2f} s"
            )


if __name__ == "__main__":
    main()
