"""``sysdrill calc``: napkin-math calculators, and ``calc "EXPR"`` expression evaluation.

The subcommands are generated from the calculator descriptions in
:mod:`sysdrill.napkin.calculators.registry` (one ``Annotated`` option per input,
help naming the formula and its source), so this module only parses and prints.
When the first argument is not a calculator name it is an expression for
:func:`sysdrill.napkin.calc_expression`.
"""

from __future__ import annotations

import difflib
import inspect
import json
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Annotated, Any

import typer
from typer.core import TyperGroup

from sysdrill.cli.help_words import plain_help

if TYPE_CHECKING:
    from sysdrill.napkin.calculators.spec import Calculator, CalculatorResult

__all__ = ["CalcGroup", "register"]

_EXPRESSION = "expression"
_CALCULATOR_NAME = re.compile(r"^[a-z]+(?:-[a-z0-9]+)+$")
_GPU_HELP = "Take peak FLOP/s and memory figures from this accelerator ('sysdrill hw list')."
_LINK_HELP = "Take bandwidth and latency from this interconnect (e.g. nvlink-4, infiniband-ndr)."


class _CalcUsageError(typer.BadParameter):
    """A usage mistake shown as our own message (``Error: --bandwidth: ...``), exit 2.

    Built on ``typer.BadParameter``, Typer's public usage error, whichever Click
    (installed or vendored) the Typer version runs on.
    """

    def format_message(self) -> str:
        """The message as written, without Click's "Invalid value" prefix."""
        return self.message


def _print_result(calc: Calculator, result: CalculatorResult, *, as_json: bool) -> None:
    if as_json:
        typer.echo(json.dumps(result.to_json(), ensure_ascii=False, indent=2))
        return
    inputs, outputs = result.input_rows(), result.rows()
    width = max(len(label) for label, _ in (*inputs, *outputs))
    typer.echo(f"{calc.name}: {calc.formula}")
    typer.echo(f"  source: {calc.source}")
    typer.echo("inputs")
    for label, text in inputs:
        typer.echo(f"  {label.ljust(width)}  {text}")
    typer.echo("results")
    for label, text in outputs:
        typer.echo(f"  {label.ljust(width)}  {text}")


def _option_help(calc: Calculator) -> dict[str, str]:
    helps = {}
    for param in calc.params:
        extra = ""
        if param.choices is not None:
            extra = " One of: " + ", ".join(str(c.value) for c in param.choices) + "."
        if param.default is not None:
            extra += f" (default: {param.default})"
        elif not param.optional and param.fill is None:
            extra += " (required)"
        helps[param.name] = param.help + extra
    return helps


def _signature(calc: Calculator) -> list[inspect.Parameter]:
    from sysdrill.napkin.calculators.spec import GPU_FILLS, Fill, Kind

    helps = _option_help(calc)
    keyword = inspect.Parameter.KEYWORD_ONLY
    params = []
    for param in calc.params:
        if param.kind is Kind.FLAG:
            annotation: Any = Annotated[bool, typer.Option(param.option, help=param.help)]
            params.append(
                inspect.Parameter(param.name, keyword, default=False, annotation=annotation)
            )
        else:
            annotation = Annotated[str | None, typer.Option(param.option, help=helps[param.name])]
            params.append(
                inspect.Parameter(param.name, keyword, default=None, annotation=annotation)
            )
    if calc.fills & GPU_FILLS:
        gpu = Annotated[str | None, typer.Option("--gpu", help=_GPU_HELP)]
        params.append(inspect.Parameter("gpu", keyword, default=None, annotation=gpu))
    if Fill.PEAK_FLOPS in calc.fills:
        dtype = Annotated[
            str,
            typer.Option(
                "--dtype", help="Precision of the --gpu peak (fp32, tf32, bf16, fp8, fp4, int8)."
            ),
        ]
        params.append(inspect.Parameter("dtype", keyword, default="bf16", annotation=dtype))
    if calc.fills & {Fill.LINK_BANDWIDTH, Fill.LINK_LATENCY}:
        link = Annotated[str | None, typer.Option("--link", help=_LINK_HELP)]
        params.append(inspect.Parameter("link", keyword, default=None, annotation=link))
    as_json = Annotated[bool, typer.Option("--json", help="Print JSON with {value, unit} pairs.")]
    params.append(inspect.Parameter("as_json", keyword, default=False, annotation=as_json))
    return params


def _calculator_command(calc: Calculator) -> Callable[..., None]:
    def command(**options: Any) -> None:
        from sysdrill.errors import NapkinError, UsageError

        as_json = bool(options.pop("as_json"))
        gpu, link = options.pop("gpu", None), options.pop("link", None)
        dtype = str(options.pop("dtype", "bf16")).lower()
        raw = {
            name: ("true" if value is True else None if value is False else value)
            for name, value in options.items()
        }
        try:
            values = calc.resolve(raw, gpu=gpu, precision=dtype, link=link)
        except (NapkinError, UsageError) as exc:
            raise _CalcUsageError(str(exc)) from exc
        _print_result(calc, calc.compute(values), as_json=as_json)

    signature = _signature(calc)
    command.__signature__ = inspect.Signature(signature)  # type: ignore[attr-defined]
    command.__annotations__ = {p.name: p.annotation for p in signature}
    command.__name__ = calc.name.replace("-", "_")
    return command


def _expression(
    words: Annotated[list[str], typer.Argument(metavar="EXPR", help="The expression.")],
    to_unit: Annotated[
        str | None, typer.Option("--to", help="Unit for the answer, e.g. ms.")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Evaluate an expression with units, e.g. "2*(8-1)/8 * 100 MB / (50 GB/s)"."""
    from sysdrill.napkin import calc_expression

    result = calc_expression(" ".join(words), to_unit=to_unit)
    if as_json:
        payload = {"value": result.magnitude, "unit": result.unit, "display": result.display}
        typer.echo(json.dumps(payload, ensure_ascii=False))
    else:
        typer.echo(result.display)


class CalcGroup(TyperGroup):
    """The ``calc`` group: one subcommand per calculator, otherwise an expression.

    Calculator subcommands are built on first use, so that running one command
    (or ``sysdrill --help``) does not pay for converting forty signatures.

    ``ctx`` is typed ``Any``: Click's ``Context`` is public only through Click
    itself, which newer Typer versions vendor privately.
    """

    def list_commands(self, ctx: Any) -> list[str]:
        """Return the calculator names in registry order (the expression command is hidden)."""
        from sysdrill.napkin.calculators.registry import calculator_names

        return [*calculator_names(), *super().list_commands(ctx)]

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        """Return the command called ``cmd_name``, building a calculator's on demand."""
        from sysdrill.napkin.calculators.registry import get_calculator

        calc = get_calculator(cmd_name)
        if calc is None:
            return super().get_command(ctx, cmd_name)
        single = typer.Typer(add_completion=False)
        help_text = (
            f"{calc.summary}\n\nFormula: {calc.formula}\n\nSource: {calc.source}\n\n"
            f"Example: sysdrill calc {calc.name} {calc.example}"
        )
        single.command(name=calc.name, help=help_text, short_help=calc.summary)(
            _calculator_command(calc)
        )
        return plain_help(typer.main.get_command(single))

    def resolve_command(self, ctx: Any, args: list[str]) -> tuple[str | None, Any, list[str]]:
        """Resolve a calculator name, or hand the arguments to the expression command."""
        from sysdrill.napkin.calculators.registry import calculator_names

        first = args[0] if args else ""
        names = calculator_names()
        if first in names or first in self.commands or first.startswith("-"):
            return super().resolve_command(ctx, args)
        if _CALCULATOR_NAME.match(first):
            close = difflib.get_close_matches(first, names, n=1)
            hint = f" Did you mean '{close[0]}'?" if close else ""
            raise _CalcUsageError(
                f"No calculator named '{first}'.{hint} Run 'sysdrill calc --help' for the list.",
                ctx,
            )
        return super().resolve_command(ctx, [_EXPRESSION, *args])


def register(app: typer.Typer) -> None:
    """Add the ``calc`` group to the app; its calculator subcommands are built lazily."""
    calc_app = typer.Typer(
        cls=CalcGroup,
        name="calc",
        no_args_is_help=True,
        help=(
            "Napkin-math calculators, or evaluate an expression with units.\n\n"
            'sysdrill calc "2*(8-1)/8 * 100 MB / (50 GB/s)" prints 3.5 ms; add --to UNIT '
            "to choose the unit. sysdrill calc NAME --help shows a calculator's formula, "
            "source and an example."
        ),
    )
    calc_app.command(name=_EXPRESSION, hidden=True)(_expression)
    app.add_typer(calc_app)
