"""Every calculator, described for the ``sysdrill calc NAME`` subcommands.

Each description names the pure function it runs, its inputs with units, its
formula and the publication the formula comes from (see :mod:`.spec`). The
descriptions live in ``_parallel_specs``, ``_scale_specs``, ``_cost_specs`` and
``_operations_specs``;
adapters there only rename inputs or combine two functions, the maths lives in
the family modules.
"""

from __future__ import annotations

from sysdrill.napkin.calculators._cost_specs import COST_CALCULATORS
from sysdrill.napkin.calculators._operations_specs import OPERATIONS_CALCULATORS
from sysdrill.napkin.calculators._parallel_specs import PARALLEL_CALCULATORS
from sysdrill.napkin.calculators._scale_specs import SCALE_CALCULATORS
from sysdrill.napkin.calculators.spec import Calculator

__all__ = ["CALCULATORS", "calculator_names", "get_calculator"]

CALCULATORS: tuple[Calculator, ...] = (
    *PARALLEL_CALCULATORS,
    *SCALE_CALCULATORS,
    *COST_CALCULATORS,
    *OPERATIONS_CALCULATORS,
)
"""Every calculator, in the order ``sysdrill calc --help`` lists them."""


def calculator_names() -> list[str]:
    """Return the calculator names in display order."""
    return [calc.name for calc in CALCULATORS]


def get_calculator(name: str) -> Calculator | None:
    """Return the calculator called ``name``, or None."""
    return next((calc for calc in CALCULATORS if calc.name == name), None)
