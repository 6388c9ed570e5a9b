"""Unit-aware napkin-math parser and claim checker, calculators and hardware data.

Importing this package is cheap: pint is loaded only when a unit is first resolved.

Public API:
    calc_expression: evaluate ``"2*(8-1)/8 * 100 MB / (50 GB/s)"`` to ``3.5 ms``.
    check_claims: verdicts on every ``lhs = rhs`` / ``≈`` / ``~`` link in a text.
    grade_numeric_answer: grade a typed answer such as ``"3600 us"`` against 3.6 ms.
"""

from __future__ import annotations

from sysdrill.napkin.claims import check_claims
from sysdrill.napkin.grading import grade_numeric_answer
from sysdrill.napkin.quantity import calc_expression
from sysdrill.napkin.results import CalcResult, ClaimVerdict, NumericGrade, Verdict

__all__ = [
    "CalcResult",
    "ClaimVerdict",
    "NumericGrade",
    "Verdict",
    "calc_expression",
    "check_claims",
    "grade_numeric_answer",
]
