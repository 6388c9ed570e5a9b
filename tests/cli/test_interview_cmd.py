"""`sysdrill interview` in the terminal: a whole interview, its report, the endpoint, errors."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.conftest import RunCli
from tests.fake_llm_server import FakeEndpoint, closed_port_url, fake_endpoint, streamed

ANSWERS = (
    "? how many ranks are there\n"
    "Reduce-scatter leaves each rank one distinct slice of the summed result; all-gather "
    "concatenates the slices so every rank has the full sum: together an all-reduce.\n"
    '"""\n'
    "Gradients: 1e9 * 4 B = 4 GB\n"
    "ring factor 2 * (8 - 1) / 8 = 1.5, so 6 GB per GPU\n"
    '"""\n'
    "/skip\n"
)


@pytest.fixture
def endpoint() -> Iterator[FakeEndpoint]:
    with fake_endpoint() as found:
        yield found


def test_a_built_in_interview_runs_from_piped_answers_and_is_reported(run_cli: RunCli) -> None:
    result = run_cli("interview", "--chain", "ring-all-reduce-cost", "--items", "2", input=ANSWERS)
    assert result.exit_code == 0, result.stderr
    out = result.stdout
    assert "Interviewer: built in (nothing leaves this machine)." in out
    assert "Interview 1: Chain: What a ring all-reduce costs" in out
    assert "Interviewer: What do reduce-scatter and all-gather each leave on a rank" in out
    assert "Next question (L2):" in out
    assert "  Napkin check: 2 * (8 - 1) / 8 = 1.5: wrong (the napkin engine computes 1.75)" in out
    assert "  Napkin check: 1e9 * 4 B = 4 GB: right" in out
    assert "  Reviewed cloud-2000: good" in out
    assert "  Reviewed cloud-2005: again" in out
    assert "See `sysdrill interview results 1`." in out
    report = run_cli("interview", "results", "1")
    assert report.exit_code == 0, report.stderr
    assert "- cloud-2000 L1: good; " in report.stdout
    assert "- cloud-2005 L2: again; " in report.stdout and ", skipped" in report.stdout
    data = json.loads(run_cli("interview", "results", "1", "--json").stdout)
    assert data["closed"] is True and [x["rating"] for x in data["items"]] == ["good", "again"]
    listed = run_cli("interview", "list").stdout
    assert "1: Chain: What a ring all-reduce costs" in listed and "built in, done" in listed


def test_the_state_export_includes_the_interviews(run_cli: RunCli, tmp_path: Path) -> None:
    run_cli("interview", "--topic", "collectives", "--items", "1", "--seed", "2", input="/end\n")
    out = tmp_path / "state.json"
    assert run_cli("state", "export", str(out)).exit_code == 0
    data = json.loads(out.read_text("utf-8"))
    assert len(data["interviews"]) == 1
    assert data["interviews"][0]["pick"] == {"kind": "topic", "name": "collectives"}
    assert [t["role"] for t in data["interviews"][0]["turns"]] == [
        "interviewer",
        "learner",
        "interviewer",
    ]
    # The file loads back: the interviews travel with the rest of the state.
    again = run_cli("state", "import", str(out), "--replace")
    assert again.exit_code == 0, again.stderr


def test_a_state_file_with_a_malformed_interview_imports_nothing(
    run_cli: RunCli, tmp_path: Path
) -> None:
    run_cli("interview", "--chain", "ring-all-reduce-cost", "--items", "2", input=ANSWERS)
    out = tmp_path / "state.json"
    assert run_cli("state", "export", str(out)).exit_code == 0
    data = json.loads(out.read_text("utf-8"))
    assert data["reviews"], "the interview's ratings are reviews of the export"
    data["interviews"][0]["state"] = {"not": "an interview"}
    out.write_text(json.dumps(data), "utf-8")
    other = f"sqlite:///{tmp_path / 'other.sqlite3'}"
    result = run_cli("state", "import", str(out), "--db", other)
    assert result.exit_code == 1
    assert result.stderr.startswith("Error: An interview of the file is malformed")
    # All or nothing: the reviews of the file were not stored without their interviews.
    again = tmp_path / "again.json"
    assert run_cli("state", "export", str(again), "--db", other).exit_code == 0
    assert json.loads(again.read_text("utf-8"))["reviews"] == []


def test_a_model_endpoint_from_the_environment_streams_the_reply(
    run_cli: RunCli, endpoint: FakeEndpoint, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SYSDRILL_LLM_BASE_URL", endpoint.base_url)
    monkeypatch.setenv("SYSDRILL_LLM_MODEL", "tiny")
    endpoint.answers.append(streamed('Say more about slices.\n{"intent": "probe"}'))
    result = run_cli("interview", "--chain", "ring-all-reduce-cost", input="rs then ag\n")
    assert result.exit_code == 0, result.stderr
    assert f"Interviewer: tiny; your answers are sent to {endpoint.base_url}." in result.stdout
    assert "Interviewer: Say more about slices." in result.stdout
    assert endpoint.requests[0]["messages"][-1] == {"role": "user", "content": "rs then ag"}
    shown = run_cli("interview", "endpoint", "show")
    assert shown.stdout.strip() == f"tiny at {endpoint.base_url} (from the environment)"


def test_a_dead_endpoint_is_one_line_and_the_interview_goes_on(
    run_cli: RunCli, monkeypatch: pytest.MonkeyPatch
) -> None:
    url = closed_port_url()
    assert run_cli("interview", "endpoint", "set", url, "tiny").exit_code == 0
    result = run_cli("interview", "--chain", "ring-all-reduce-cost", input="rs and ag\n")
    assert result.exit_code == 0
    notes = [line for line in result.stderr.splitlines() if line.startswith("Note: ")]
    assert notes[0] == (
        f"Note: The model endpoint {url} is unavailable: nothing accepts connections there. "
        "The built-in interviewer goes on."
    )
    assert "A hint: " in result.stdout
    built_in = run_cli("interview", "--chain", "ring-all-reduce-cost", "--built-in", input="")
    assert "Interviewer: built in" in built_in.stdout
    assert run_cli("interview", "endpoint", "clear").exit_code == 0
    assert run_cli("interview", "endpoint", "show").stdout.startswith("No model endpoint")


def test_the_choices_list_chains_topics_and_plans(run_cli: RunCli) -> None:
    result = run_cli("interview", "choices")
    assert "  ring-all-reduce-cost: What a ring all-reduce costs" in result.stdout
    assert "Topics (--topic): " in result.stdout and "collectives" in result.stdout
    assert "refresher-1w" in result.stdout


@pytest.mark.parametrize(
    ("args", "line", "code"),
    [
        (("interview", "--chain", "nope"), "Error: No chain 'nope' with items to ask.", 1),
        (("interview", "--plan", "nope"), "Error: No plan named 'nope'.", 1),
        (("interview", "--topic", "nope"), "Error: No item of topic 'nope' to ask", 1),
        (("interview", "results", "7"), "Error: No interview 7 of yours in this vault", 1),
        (
            ("interview", "endpoint", "set", "ftp://x", "m"),
            "Error: The model endpoint must be an http:// or https:// URL",
            1,
        ),
        (
            ("interview", "endpoint", "set", "http://x/v1", "m", "--api-key-from", "NO_SUCH_VAR_X"),
            "Error: The environment variable NO_SUCH_VAR_X is empty or unset.",
            1,
        ),
    ],
)
def test_mistakes_are_one_error_line(
    run_cli: RunCli, args: tuple[str, ...], line: str, code: int
) -> None:
    result = run_cli(*args, input="")
    assert result.exit_code == code
    assert result.stderr.startswith(line), result.stderr


def test_no_pick_or_two_picks_is_a_usage_error(run_cli: RunCli) -> None:
    for args in (("interview",), ("interview", "--chain", "a", "--topic", "b")):
        result = run_cli(*args, input="")
        assert result.exit_code == 2
        assert "Give exactly one of --chain, --topic or --plan" in result.stderr


def test_a_half_configured_environment_names_the_missing_variable(
    run_cli: RunCli, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SYSDRILL_LLM_BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.delenv("SYSDRILL_LLM_MODEL", raising=False)
    result = run_cli("interview", "--chain", "ring-all-reduce-cost", input="")
    assert result.exit_code == 1
    assert result.stderr.strip() == (
        "Error: SYSDRILL_LLM_BASE_URL is set: set SYSDRILL_LLM_MODEL to a model name too."
    )
