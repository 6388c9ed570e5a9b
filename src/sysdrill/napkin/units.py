"""The pint unit registry with our definitions (bytes and bits, FLOPs, tokens, GPU-hours...).

pint is imported lazily: building the registry takes a while, and most commands
never need it.
"""

from __future__ import annotations

from functools import cache
from typing import Any

__all__ = ["get_registry"]

_DEFINITIONS = """
FLOP = [flop]
FLOPs = FLOP
MAC = 2 * FLOP
param = [param] = params
token = [token] = tokens
sample = [sample] = samples
GPU = [gpu] = GPUs
request = [request] = req = requests
USD = [currency] = dollar = _ = $
"""


@cache
def get_registry() -> Any:
    """Return the shared pint ``UnitRegistry`` with sysdrill's definitions."""
    import pint

    registry: Any = pint.UnitRegistry(autoconvert_offset_to_baseunit=True)
    for line in _DEFINITIONS.strip().splitlines():
        registry.define(line)
    return registry
