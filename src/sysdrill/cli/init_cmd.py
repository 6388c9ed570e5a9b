"""``sysdrill init [PATH]``: a new vault with one example item of each kind, a deck and a chain.

It also writes ``vault.yaml`` with a new vault id, under which the vault's study
state is kept wherever the folder is later moved.

The files are written only where nothing exists yet, so ``init`` never
overwrites a vault; ``sysdrill check PATH`` passes on the result.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

__all__ = ["register"]

_RECALL = """\
schema_version: '1.0'
id: cloud-my-0001
format: quiz
track: cloud
level: L1
zone: recall
topic: data-parallelism
competency_area: parallelism
bloom_level: remember
phase: training
title: What an all-reduce leaves on every GPU
question: After an all-reduce of the gradients, what does each data-parallel rank hold?
details:
  realistic_solution: |
    The sum (or mean) of the gradients of every rank, the same on all of them.
status: published
provenance: human
deck: my-first-deck
"""

_NUMERIC = """\
schema_version: '1.0'
id: cloud-my-0002
format: quiz
track: cloud
level: L2
zone: fluency
topic: data-parallelism
competency_area: parallelism
bloom_level: apply
phase: training
title: Gradient bytes of a 7B model
question: How many bytes of fp16 gradients does a 7B-parameter model all-reduce each step?
details:
  realistic_solution: 7e9 parameters * 2 B = 14 GB per step.
  napkin_math: |
    **Assumptions & Constraints:**
    - 7e9 parameters, 2 bytes per fp16 gradient.
    **Calculations:**
    - 7e9 * 2 B = 14 GB
    **Conclusion & Interpretation:**
    - Each step moves about 14 GB per rank through the all-reduce.
status: published
provenance: human
answer_value: 14
answer_unit: GB
answer_tolerance: 0.05
deck: my-first-deck
"""

_DECKS = """\
# Decks group items for `sysdrill quiz NAME` and `--deck NAME`.
decks:
- name: my-first-deck
  title: My first deck
  items: [cloud-my-0001, cloud-my-0002]
"""

_CHAINS = """\
# Chains walk one theme from recall upwards: `sysdrill chain ID`.
chains:
- id: my-first-chain
  topic: data-parallelism
  title: From an all-reduce to its bytes
  items: [cloud-my-0001, cloud-my-0002]
"""

_FILES = {
    Path("questions") / "cloud-my-0001.yaml": _RECALL,
    Path("questions") / "cloud-my-0002.yaml": _NUMERIC,
    Path("decks.yaml"): _DECKS,
    Path("chains.yaml"): _CHAINS,
}


def init(
    path: Annotated[
        Path, typer.Argument(help="Folder of the new vault (created if missing).", file_okay=False)
    ] = Path("vault"),
) -> None:
    """Create a vault with an example item, a numeric question, a deck and a chain."""
    import secrets

    from sysdrill.content.vault_identity import VAULT_FILE, new_vault_id, vault_file_text
    from sysdrill.errors import UsageError

    # The id keeps the vault's study state when the folder moves (docs/sessions.md).
    vault_id = new_vault_id(path.resolve().name, secrets.token_hex(3))
    files = {**_FILES, Path(VAULT_FILE): vault_file_text(vault_id)}
    taken = [str(path / name) for name in files if (path / name).exists()]
    if taken:
        raise UsageError(
            f"{taken[0]} already exists; init never overwrites a vault. "
            "Pick a new folder, e.g. `sysdrill init my-vault`."
        )
    for name, text in files.items():
        target = path / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    typer.echo(
        f"Created a vault in {path}: 2 items, 1 deck (my-first-deck), 1 chain; "
        f"its id is {vault_id} (in {VAULT_FILE})."
    )
    typer.echo(f"Next: sysdrill check {path}   then   sysdrill practice --vault {path}")


def register(app: typer.Typer) -> None:
    """Add ``init`` to the app."""
    app.command("init")(init)
