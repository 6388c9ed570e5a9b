"""Slowing down password guessing and sign-up floods, per client address and per account.

Nothing here locks an account: a failed login only ever delays the next attempt, with
a delay that grows with each failure (exponential backoff) and stops at a cap. Three
rules apply to a login (or a password change, which checks the current password the
same way); each counts the failures of the last :data:`THROTTLE_WINDOW`:

- **this name from this address** (:data:`PAIR_BACKOFF`): one attacker guessing one
  account from one address.
- **this name from anywhere** (:data:`ACCOUNT_BACKOFF`): many addresses guessing one
  account. It applies only to an address that has itself failed on this name within
  the window, and its delay runs from that address's own latest failure, so a third
  party hammering an account from elsewhere never delays its owner: a correct
  password from an address that has not been failing gets in, and the owner's own
  typo during an attack costs at most the cap of this rule.
- **this address, any name** (:data:`ADDRESS_BACKOFF`): one address trying many
  names. Its free allowance is high because a class behind one NAT address shares it.

A sign-up counts against its address (:data:`SIGNUP_BACKOFF`) whatever its outcome
(created, name taken, wrong invite code), so names and invite codes cannot be tried
in bulk. The events live in the database (:mod:`sysdrill.storage.accounts_store`), so
every worker applies the same limits; a refused attempt is not counted and costs no
password hash. The rules are pure functions of those counts and ``now``.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import StrEnum

from sysdrill.storage.accounts_store import EventCounts

__all__ = [
    "ACCOUNT_BACKOFF",
    "ADDRESS_BACKOFF",
    "PAIR_BACKOFF",
    "SIGNUP_BACKOFF",
    "THROTTLE_WINDOW",
    "Backoff",
    "ThrottledEvent",
    "login_wait_s",
    "signup_wait_s",
    "wait_phrase",
]


class ThrottledEvent(StrEnum):
    """What a throttle event records."""

    FAILED_LOGIN = "failed_login"
    """A wrong password (at login or at a password change), or an unknown name."""
    SIGNUP = "signup"
    """A sign-up that got past the form's checks, whatever its outcome."""


@dataclass(frozen=True, slots=True)
class Backoff:
    """A free allowance of events, then a delay doubling from one second up to a cap."""

    free: int
    """Events allowed with no delay."""
    cap: timedelta
    """The longest delay."""

    def delay(self, count: int) -> timedelta:
        """The wait after the latest of ``count`` events.

        None within the allowance, then 1 s after the ``free``-th event, 2 s after the
        next, 4 s, and so on up to :attr:`cap`.
        """
        excess = count - self.free
        if excess < 0:
            return timedelta(0)
        if excess >= int(self.cap.total_seconds()).bit_length():
            return self.cap
        return min(self.cap, timedelta(seconds=2**excess))


THROTTLE_WINDOW = timedelta(hours=24)
"""How long a failed login or a sign-up counts (older events are deleted)."""
PAIR_BACKOFF = Backoff(free=5, cap=timedelta(hours=1))
"""Failed logins of one name from one address."""
ACCOUNT_BACKOFF = Backoff(free=10, cap=timedelta(minutes=5))
"""Failed logins of one name from any address (only for addresses failing on it)."""
ADDRESS_BACKOFF = Backoff(free=20, cap=timedelta(minutes=15))
"""Failed logins from one address, whatever the name."""
SIGNUP_BACKOFF = Backoff(free=60, cap=timedelta(hours=1))
"""Sign-ups from one address (a class of up to 60 behind one NAT signs up at once)."""


def _wait(latest: datetime | None, delay: timedelta, now: datetime) -> timedelta:
    if latest is None or not delay:
        return timedelta(0)
    return max(timedelta(0), latest + delay - now)


def _whole_seconds(wait: timedelta) -> int:
    return -(-wait // timedelta(seconds=1))  # rounded up: 0 only for no wait at all


def login_wait_s(counts: EventCounts, *, now: datetime) -> int:
    """How long a login (or password check) must wait, in whole seconds (rounded up).

    Zero when it may go ahead.

    Args:
        counts: The failed logins of the window for this name and address.
        now: The current time (UTC).
    """
    pair_delay = max(PAIR_BACKOFF.delay(counts.pair), ACCOUNT_BACKOFF.delay(counts.account))
    if counts.pair == 0:
        pair_delay = timedelta(0)  # an address that has not failed on this name
    wait = max(
        _wait(counts.pair_latest, pair_delay, now),
        _wait(counts.address_latest, ADDRESS_BACKOFF.delay(counts.address), now),
    )
    return _whole_seconds(wait)


def signup_wait_s(counts: EventCounts, *, now: datetime) -> int:
    """How long a sign-up from this address must wait, in whole seconds; zero: go ahead."""
    return _whole_seconds(_wait(counts.address_latest, SIGNUP_BACKOFF.delay(counts.address), now))


def wait_phrase(wait_s: int) -> str:
    """``1 second``, ``40 seconds``, or whole minutes rounded up (``5 minutes``)."""
    if wait_s < 60:
        return f"{wait_s} second{'s' if wait_s != 1 else ''}"
    minutes = -(-wait_s // 60)
    return f"{minutes} minute{'s' if minutes != 1 else ''}"
