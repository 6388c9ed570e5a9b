"""Napkin math in a typed answer, checked before the learner rates it.

A free-text answer such as ``80 GB / 2 TB/s = 40 ms`` holds claims; each one
the napkin checker is sure of is marked right or wrong, so the learner rates
their recall knowing which of their numbers held. Only a certain verdict is
shown: a claim that holds, or arithmetic wrong with both sides understood (what
``check`` reports as the error ``napkin-arithmetic``). A doubt (units that seem
to differ, a prefix that fits one reading, an unsure reading) is left unmarked,
since a learner told that right working is wrong learns the wrong thing.
"""

from __future__ import annotations

from sysdrill.napkin import check_claims
from sysdrill.napkin.results import Verdict

__all__ = ["claim_lines"]

_SHOWN = {
    Verdict.OK: "right",
    Verdict.WRONG: "wrong",
}
"""The verdicts a learner sees; any other (a doubt, one the engine adds later) is not shown."""


def claim_lines(text: str) -> list[str]:
    """One line per checkable claim in ``text``: ``Your math: 8 * 4 KiB = 64 KiB: wrong (...)``.

    Claims the checker cannot evaluate (prose, symbols, ranges) or doubts of
    (units, prefixes) are left out.
    """
    lines = []
    for verdict in check_claims(text):
        shown = _SHOWN.get(verdict.verdict)
        if shown is None:
            continue
        claim = f"{verdict.lhs} {verdict.relation} {verdict.rhs}"
        why = "" if verdict.verdict is Verdict.OK else f" ({verdict.message})"
        lines.append(f"Your math: {claim}: {shown}{why}.")
    return lines
