"""Typer commands: parse arguments, call one service function, render with Rich."""
