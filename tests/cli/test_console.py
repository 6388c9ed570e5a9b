"""The progress display: a bar per long stage on a terminal, nothing otherwise."""

from __future__ import annotations

import io

from rich.console import Console

from sysdrill.cli.console import PROGRESS_MIN_STEPS, progress_display


def _terminal() -> tuple[Console, io.StringIO]:
    buffer = io.StringIO()
    return Console(file=buffer, force_terminal=True, width=100, color_system=None), buffer


def test_a_long_stage_draws_a_bar_with_its_name_and_count_on_a_terminal() -> None:
    console, buffer = _terminal()
    with progress_display(console=console) as progress:
        for done in range(1001):
            progress("Writing files", done, 1000)
    drawn = buffer.getvalue()
    assert "Writing files" in drawn
    assert "1000/1000" in drawn


def test_each_stage_gets_its_own_bar() -> None:
    console, buffer = _terminal()
    with progress_display(console=console, min_steps=10) as progress:
        progress("Preparing items", 20, 20)
        progress("Auditing items", 5, 20)
    drawn = buffer.getvalue()
    assert "Preparing items" in drawn
    assert "20/20" in drawn
    assert "Auditing items" in drawn
    assert "5/20" in drawn


def test_a_short_stage_draws_nothing() -> None:
    console, buffer = _terminal()
    with progress_display(console=console) as progress:
        progress("Writing files", 3, PROGRESS_MIN_STEPS - 1)
    assert buffer.getvalue() == ""


def test_quiet_draws_nothing_even_on_a_terminal() -> None:
    console, buffer = _terminal()
    with progress_display(quiet=True, console=console) as progress:
        progress("Writing files", 1000, 1000)
    assert buffer.getvalue() == ""


def test_output_that_is_not_a_terminal_gets_no_bar() -> None:
    buffer = io.StringIO()
    console = Console(file=buffer, force_terminal=False, width=100)
    with progress_display(console=console) as progress:
        progress("Writing files", 1000, 1000)
    assert buffer.getvalue() == ""


def test_the_bar_starts_no_thread_so_a_forking_check_keeps_its_worker() -> None:
    import threading

    console, buffer = _terminal()
    before = threading.active_count()
    with progress_display(console=console) as progress:
        progress("Writing files", 10, 1000)
        during = threading.active_count()
    assert during == before
    assert "10/1000" in buffer.getvalue()
