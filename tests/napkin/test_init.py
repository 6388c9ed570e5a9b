"""The public napkin API: its names, and that importing and checking stay light."""

from __future__ import annotations

import subprocess
import sys

import sysdrill.napkin as napkin


def test_public_names_are_exported() -> None:
    assert set(napkin.__all__) == {
        "CalcResult",
        "ClaimVerdict",
        "NumericGrade",
        "Verdict",
        "calc_expression",
        "check_claims",
        "grade_numeric_answer",
    }
    for name in napkin.__all__:
        assert getattr(napkin, name) is not None


def test_importing_and_checking_claims_never_loads_pint() -> None:
    code = (
        "import sys, sysdrill.napkin as n\n"
        "assert 'pint' not in sys.modules\n"
        "assert n.check_claims('2 * 100 MB / (50 GB/s) = 4 ms')[0].verdict.value == 'ok'\n"
        "assert n.calc_expression('1 GiB', to_unit='MiB').magnitude == 1024\n"
        "assert 'pint' not in sys.modules\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)
