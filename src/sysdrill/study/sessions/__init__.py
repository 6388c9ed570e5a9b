"""Study sessions: practice, quiz, gauntlet, chain and daily, scripted or interactive.

Line-ups say which items a session asks (:mod:`.lineups`, :mod:`.gauntlet`); the
:class:`~.state_machine.Session` state machine asks them, grades and records each
answer; :mod:`.line_mode` drives a session from an answers script and
:mod:`sysdrill.cli.tui` from the keyboard. Running a session against the
study database (saving every move, so any process can resume it) is the
application layer's: ``sysdrill.app.sessions``.

The package re-exports nothing: importing one module (say :mod:`.saved`, which the
store needs) must not load every session module, graders and napkin engine included.
"""
