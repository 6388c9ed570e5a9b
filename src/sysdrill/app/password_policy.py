"""The password policy: long enough, not one of the commonest passwords, not the user name.

Applied wherever a password is chosen: sign-up, changing one's password, and the
operator's ``sysdrill users add`` and ``set-password``. Each refusal is one line
that names the fix. The rules, in the order they are checked:

1. At least :data:`MIN_PASSWORD_CHARS` and at most :data:`MAX_PASSWORD_CHARS` characters.
2. Not in the bundled list of the commonest passwords (``common_passwords.txt``,
   compared without regard to case), also once digits, symbols and spaces at its
   start and end are taken off (``Password123!`` is ``password``).
3. Not containing the user name: the letters and digits of the name (3 or more of
   them), in order, anywhere in the letters and digits of the password, ignoring
   case (``Alice.Smith-2026`` contains ``alice.smith``).
"""

from __future__ import annotations

import functools
import re
from importlib import resources

from sysdrill.errors import UsageError

__all__ = [
    "MAX_PASSWORD_CHARS",
    "MIN_PASSWORD_CHARS",
    "check_password",
    "common_passwords",
]

MIN_PASSWORD_CHARS = 10
"""Shortest password accepted."""
MAX_PASSWORD_CHARS = 1024
"""Longest password accepted (a longer one only costs the server hashing time)."""
_MIN_NAME_CHARS = 3
"""A name shorter than this (in letters and digits) is not looked for in the password."""
_EDGES = re.compile(r"^[\W\d_]+|[\W\d_]+$")
_NOT_ALNUM = re.compile(r"[\W_]+")

_COMMON_MESSAGE = (
    "The password is one of the most common passwords; choose one nobody would guess first."
)
_NAME_MESSAGE = "The password contains the user name; choose one without it."


@functools.cache
def common_passwords() -> frozenset[str]:
    """The bundled list of the commonest passwords, lower case (read once; never changes)."""
    text = resources.files("sysdrill.app").joinpath("common_passwords.txt").read_text("utf-8")
    lines = (line.strip().lower() for line in text.splitlines())
    return frozenset(line for line in lines if line and not line.startswith("#"))


def _is_common(password: str) -> bool:
    lowered = password.lower()
    common = common_passwords()
    return lowered in common or _EDGES.sub("", lowered) in common


def _contains_name(password: str, user_name: str) -> bool:
    name = _NOT_ALNUM.sub("", user_name.lower())
    return len(name) >= _MIN_NAME_CHARS and name in _NOT_ALNUM.sub("", password.lower())


def check_password(password: str, *, user_name: str) -> str:
    """Return ``password`` if the policy accepts it for the account ``user_name``.

    Raises:
        UsageError: If it is too short or too long, one of the commonest passwords,
            or contains the user name (one line naming the fix).
    """
    if len(password) < MIN_PASSWORD_CHARS:
        raise UsageError(
            f"The password is too short; use at least {MIN_PASSWORD_CHARS} characters."
        )
    if len(password) > MAX_PASSWORD_CHARS:
        raise UsageError(f"The password is too long; use at most {MAX_PASSWORD_CHARS} characters.")
    if _is_common(password):
        raise UsageError(_COMMON_MESSAGE)
    if _contains_name(password, user_name):
        raise UsageError(_NAME_MESSAGE)
    return password
