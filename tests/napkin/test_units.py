"""Unit spellings, conventions, and the compiled table generated from pint."""

from __future__ import annotations

import json

import pytest

from sysdrill.napkin.units import (
    UNIT_TABLE_PATH,
    compile_unit,
    format_dims,
    get_registry,
    is_unit_spelling,
    resolve_unit,
    unit_spellings,
)


def test_unit_table_matches_pint_for_every_spelling() -> None:
    # The table is generated from pint; regenerate it with
    # `python -c "from sysdrill.napkin.units import write_unit_table; write_unit_table()"`.
    table = json.loads(UNIT_TABLE_PATH.read_text("utf-8"))
    assert set(table) == set(unit_spellings())
    for name in unit_spellings():
        spec = compile_unit(name)
        scale, dims, alt = table[name]
        assert scale == pytest.approx(spec.scale, rel=1e-12), name
        assert [tuple(d) for d in dims] == [tuple(d) for d in spec.dims], name
        assert alt == pytest.approx(spec.alt_scale, rel=1e-12), name


@pytest.mark.parametrize(
    ("spelling", "scale"),
    [
        ("GB", 1e9),
        ("GiB", 2**30),
        ("KB", 1e3),
        ("kB", 1e3),
        ("KiB", 1024),
        ("TB", 1e12),
        ("Gb", 1e9 / 8),
        ("bit", 1 / 8),
        ("B", 1),
    ],
)
def test_information_is_measured_in_bytes_with_decimal_and_binary_prefixes(
    spelling: str, scale: float
) -> None:
    spec = resolve_unit(spelling)
    assert spec.scale == pytest.approx(scale)
    assert spec.dims == (("information", 1),)


def test_gbps_is_bits_per_second_and_gb_per_s_is_bytes() -> None:
    assert resolve_unit("Gbps").scale == pytest.approx(1e9 / 8)
    assert resolve_unit("Gbps").dims == (("information", 1), ("time", -1))


def test_decimal_and_binary_prefixes_are_each_others_alternative() -> None:
    assert resolve_unit("GB").alt_scale == 2**30
    assert resolve_unit("GiB").alt_scale == 1e9
    assert resolve_unit("ms").alt_scale == resolve_unit("ms").scale


@pytest.mark.parametrize(
    ("spelling", "scale", "dims"),
    [
        ("FLOPs", 1, (("flop", 1),)),
        ("FLOPS", 1, (("flop", 1), ("time", -1))),
        ("TFLOPS", 1e12, (("flop", 1), ("time", -1))),
        ("TOPS", 1e12, (("flop", 1), ("time", -1))),
        ("MAC", 2, (("flop", 1),)),
        ("µs", 1e-6, (("time", 1),)),
        ("μs", 1e-6, (("time", 1),)),
        ("us", 1e-6, (("time", 1),)),
        ("GPU-hour", 3600, (("gpu", 1), ("time", 1))),
        ("kWh", 3.6e6, (("length", 2), ("mass", 1), ("time", -2))),
        ("mAh", 3.6, (("current", 1), ("time", 1))),
        ("$", 1, (("currency", 1),)),
        ("°C", 1, (("temperature", 1),)),
    ],
)
def test_spellings_compile_to_scale_and_dimensions(
    spelling: str, scale: float, dims: tuple[tuple[str, int], ...]
) -> None:
    spec = resolve_unit(spelling)
    assert spec.scale == pytest.approx(scale)
    assert spec.dims == dims


def test_single_letter_suffixes_are_not_units() -> None:
    assert not is_unit_spelling("K")
    assert not is_unit_spelling("M")
    assert not is_unit_spelling("T")
    assert not is_unit_spelling("N")


def test_format_dims_names_energy_power_and_rates() -> None:
    assert format_dims(resolve_unit("kWh").dims) == "J"
    assert format_dims(resolve_unit("kW").dims) == "W"
    assert format_dims(resolve_unit("Gbps").dims) == "B/s"


def test_registry_keeps_the_definitions_calculators_use() -> None:
    registry = get_registry()
    assert registry.Quantity(1, "GPU * hour").to("GPU * second").magnitude == 3600
    assert registry.Quantity(1, "MAC").to("FLOP").magnitude == 2
    assert str(registry.Quantity(3, "USD").units) == "USD"


def test_from_pint_makes_bits_and_bytes_a_dimension() -> None:
    from sysdrill.napkin.units import from_pint, get_registry

    quantity = get_registry().Quantity
    assert from_pint(quantity(100, "Gbit / s")) == (12.5e9, (("information", 1), ("time", -1)))
    assert from_pint(quantity(2.5, "USD / GPU / hour"))[1] == (
        ("currency", 1),
        ("gpu", -1),
        ("time", -1),
    )
    # pint alone calls 50 bytes/s and 50 /s the same dimension; we do not.
    assert from_pint(quantity(50, "byte / s"))[1] != from_pint(quantity(50, "1 / s"))[1]


def test_threads_asking_for_the_registry_at_once_share_one() -> None:
    import threading

    from sysdrill.napkin import units

    units._registry = None
    barrier = threading.Barrier(8)
    seen: list[object] = []

    def ask() -> None:
        barrier.wait()
        seen.append(units.get_registry())

    threads = [threading.Thread(target=ask) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(seen) == 8 and all(registry is seen[0] for registry in seen)


def test_currency_reads_on_the_installed_pint_from_a_fresh_registry(monkeypatch) -> None:
    # pint 0.26 (chosen by the lock file from Python 3.12 on) refuses a `$` alias that
    # 0.25 accepted, so the registry must be built afresh here on every pint CI runs.
    import pint

    from sysdrill.napkin import units
    from sysdrill.napkin.calculators.inputs import parse_quantity
    from sysdrill.napkin.claims import check_claims

    monkeypatch.setattr(units, "_registry", None)
    units._compile.cache_clear()
    registry = get_registry()
    assert isinstance(registry, pint.UnitRegistry)
    assert str(registry.Quantity(3, "USD").units) == "USD"
    price = parse_quantity("$2.10/GPU-hour", unit="USD / GPU / hour", name="--price")
    assert price.magnitude == pytest.approx(2.10)
    storage = parse_quantity("$0.03/GB", unit="USD / GB", name="--price")
    assert storage.to("USD / TB").magnitude == pytest.approx(30)
    # "$" compiled through pint, not read from the generated table.
    assert compile_unit("$").scale == compile_unit("USD").scale == 1.0
    verdicts = check_claims("1,000 GPU-hours × $2.10/GPU-hour = $2,100")
    assert [claim.verdict.value for claim in verdicts] == ["ok"]
