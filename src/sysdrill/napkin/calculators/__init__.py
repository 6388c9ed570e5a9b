"""Calculators of distributed training: pure functions over pint quantities.

One module per family: :mod:`.collectives`, :mod:`.memory`, :mod:`.pipeline`,
:mod:`.tensor_parallel`, :mod:`.compute_cost`, :mod:`.roofline`,
:mod:`.numerics`, :mod:`.scaling`, :mod:`.inference`, :mod:`.reliability`, :mod:`.moe`.
Every function takes keyword-only arguments; quantities come from
:func:`sysdrill.napkin.units.get_registry`. :mod:`.registry` describes each
calculator for the ``sysdrill calc`` command.
"""
