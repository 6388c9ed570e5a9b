"""A typo in a numeric answer is asked again with the form expected, never the answer (issue 29).

On the command line the re-prompt used to say "type a value such as '40 ms'", the
expected answer, and typing that back scored Correct.
"""

from __future__ import annotations

from pathlib import Path

VAULT = Path(__file__).resolve().parents[1] / "study" / "sessions" / "vault"


def test_typing_back_the_reprompt_of_a_typo_scores_wrong_in_practice(run_cli):
    result = run_cli(
        "practice", "--vault", str(VAULT), "--level", "L3", "--zone", "analyze",
        "--topic", "memory-hierarchy", input="forty-ish\n3 ms\n",
    )  # fmt: skip
    assert result.exit_code == 0, result.stderr
    out = result.stdout
    assert (
        "> forty-ish\nCould not read 'forty-ish' as a number; type a number with a unit, "
        "like 3 ms. Answer again:\n> 3 ms\nNot quite: 3 ms." in out
    )
    reprompt = out[out.index("Could not read") : out.index("Answer again:")]
    assert "40" not in reprompt
