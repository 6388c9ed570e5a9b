"""Every example command in README.md and docs/*.md runs, as a reader would type it.

The extractor reads fenced ``sh``, ``bash``, ``shell`` and ``console`` blocks. In a
``console`` block a line starting with ``$ `` is a command and the lines up to the
next one are what it prints; in the others every line is a command, with a ``  #``
comment after it. A block's commands run in order, in one fresh folder with one fresh
study database (so ``plan start`` then ``plan show`` works as it reads), through the
real entry point.

What a command may be: ``sysdrill ...``, ``printf '...' | sysdrill ...`` or
``cat FILE | sysdrill ...`` (the text becomes standard input), with ``> FILE`` at the
end (standard output is written there). Any other line that names sysdrill (an
install one-liner, say) must sit in a block marked not to run.

The folder holds what the examples name: ``my-vault/`` (a copy of the bundled sample
vault, a git repository on branch ``main``; ``VAULT`` and ``path/to/vault`` in an
example stand for it), ``notes.md`` and ``answer.txt`` with napkin math, a quiz text,
an Anki package and a StaffML corpus exported from the sample vault, a StaffML vault
folder, a study-state export and a StaffML browser export. Commands without
``--vault`` use the bundled starter vault, as for a new user.

Dates in examples (interview deadlines) stand for days ahead: every date is moved by
one offset so that the earliest is 30 days from today, which keeps the examples from
expiring and keeps their order.

Checks: each command exits 0, or 1 when its shown output is an ``Error:`` line; every
line a ``console`` block shows is in what the command printed (a line ending in
``...`` is matched up to the dots).

A ``text`` block after ``<!-- docs-test: answers COMMAND -->`` is an answers file:
``COMMAND --answers answers.txt`` runs with it and must exit 0.

Markers, HTML comments the rendered page hides:
``<!-- docs-test: skip REASON -->`` on the line before a fence leaves that block out
(a server, the network, a synopsis with placeholders), and
``<!-- docs-test: skip-file REASON -->`` leaves out a whole file, when another test
runs its examples; the reason is required.
"""

from __future__ import annotations

import json
import re
import shlex
import shutil
import subprocess
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import pytest
from typer.testing import CliRunner

from sysdrill.content.sample import sample_vault_path

ROOT = Path(__file__).resolve().parents[2]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
_FENCE = re.compile(r"^```(\w*)[^\n]*\n(.*?)^```", re.S | re.M)
_SKIP = re.compile(r"<!-- docs-test: skip (?P<reason>[^>]*?)\s*-->\s*$")
_SKIP_FILE = re.compile(r"<!-- docs-test: skip-file (?P<reason>[^>]*?)\s*-->")
_ANSWERS = re.compile(r"<!-- docs-test: answers (?P<command>sysdrill [^>]*?)\s*-->\s*$")
_SHELL = {"sh", "bash", "shell", "console"}
_PLACEHOLDERS = {"VAULT": "my-vault", "path/to/vault": "my-vault"}
_DATE = re.compile(r"\b\d{4}-\d{2}-\d{2}\b")
_PIPE = re.compile(
    r"^(?P<feeder>printf\s+'(?:[^'\\]|\\.)*'|cat\s+\S+)\s*\|\s*(?P<rest>sysdrill .*)$"
)


@dataclass(frozen=True)
class Example:
    command: str
    shown: tuple[str, ...] = ()
    """Output lines a console block shows after the command."""
    answers: str | None = None
    """An answers file the command reads (a ``text`` block marked as one)."""


@dataclass(frozen=True)
class Block:
    doc: str
    line: int
    examples: tuple[Example, ...]

    @property
    def id(self) -> str:
        return f"{self.doc}:{self.line}"


def _console_examples(body: str) -> list[Example]:
    found: list[Example] = []
    command: str | None = None
    shown: list[str] = []
    for line in [*body.splitlines(), "$ "]:
        if line.startswith("$ "):
            if command is not None and "sysdrill" in command:
                found.append(Example(command, tuple(s for s in shown if s.strip())))
            command, shown = line[2:].strip(), []
        else:
            shown.append(line.rstrip())
    return found


def _shell_examples(body: str) -> list[Example]:
    commands = []
    for line in body.splitlines():
        command = line.partition("  #")[0].strip()
        if "sysdrill" in command:
            commands.append(Example(command))
    return commands


def _blocks() -> tuple[list[Block], list[tuple[str, str]]]:
    """The blocks to run, and the (place, reason) of every block or file left out."""
    runs: list[Block] = []
    skipped: list[tuple[str, str]] = []
    for path in DOCS:
        text = path.read_text("utf-8")
        name = str(path.relative_to(ROOT))
        whole = _SKIP_FILE.search(text)
        if whole is not None:
            skipped.append((name, whole["reason"]))
            continue
        for fence in _FENCE.finditer(text):
            language, body = fence[1], fence[2]
            line = text.count("\n", 0, fence.start()) + 1
            before = text[: fence.start()].rstrip("\n").rsplit("\n", 1)[-1]
            script = _ANSWERS.search(before)
            if script is not None:
                command = f"{script['command']} --answers answers.txt"
                runs.append(Block(name, line, (Example(command, answers=body),)))
                continue
            if language not in _SHELL:
                continue
            marker = _SKIP.search(before)
            if marker is not None:
                skipped.append((f"{name}:{line}", marker["reason"]))
                continue
            examples = _console_examples(body) if language == "console" else _shell_examples(body)
            if examples:
                runs.append(Block(name, line, tuple(examples)))
    return runs, skipped


BLOCKS, SKIPPED = _blocks()


SOON = datetime.now(UTC).date() + timedelta(days=30)
"""The earliest date an example may show once moved: fixed when the module loads, so a
run that crosses midnight UTC judges the dates by the same day it moved them by."""


def _date_shift() -> timedelta:
    shown = [
        date.fromisoformat(found)
        for block in BLOCKS
        for example in block.examples
        for found in _DATE.findall(example.command)
    ]
    return max(timedelta(0), SOON - min(shown, default=SOON))


DATE_SHIFT = _date_shift()


def _ahead(command: str) -> str:
    """The command with its dates moved by :data:`DATE_SHIFT`."""
    return _DATE.sub(lambda m: (date.fromisoformat(m[0]) + DATE_SHIFT).isoformat(), command)


def test_the_docs_have_examples_to_run_and_say_why_others_do_not_run() -> None:
    assert sum(len(block.examples) for block in BLOCKS) >= 60
    assert {block.doc for block in BLOCKS} >= {"README.md", "docs/sessions.md", "docs/content.md"}
    assert any(e.answers for block in BLOCKS for e in block.examples)
    for place, reason in SKIPPED:
        assert len(reason.split()) >= 2, f"{place}: say why the example does not run"
        for test_file in re.findall(r"tests/\S+\.py", reason):
            assert (ROOT / test_file).is_file(), f"{place}: {test_file} does not exist"


def _staffml_export() -> str:
    attempts = [
        {"questionId": "cloud-0101", "timestamp": "2026-11-01T10:00:00Z", "selfRating": 4},
        {"questionId": "cloud-0102", "timestamp": "2026-11-02T10:00:00Z", "correct": True},
    ]
    return json.dumps({"attempts": attempts, "cards": {}})


_QUIZ_TEXT = """Chapter 26: Quiz
Question 1
What does a ring all-reduce send from each of P ranks, for a buffer of N bytes?
Answer
2(P-1)/P times N bytes.
Question 2
Which precision keeps FP32's exponent range in 16 bits?
Answer
BF16.
"""


@pytest.fixture(scope="module")
def workspace_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The files the examples name, made once; each block gets a copy."""
    from sysdrill.cli.app import main

    root = tmp_path_factory.mktemp("docs-workspace")
    vault = root / "my-vault"
    shutil.copytree(sample_vault_path(), vault)
    git = ["git", "-C", str(vault), "-c", "user.name=docs", "-c", "user.email=docs@example.org"]
    subprocess.run([*git, "init", "-q", "-b", "main"], check=True)
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "vault"], check=True)
    (root / "notes.md").write_text("100 MB / (50 GB/s) = 2 ms\n", "utf-8")
    (root / "answer.txt").write_text("8 * 4 KiB = 32 KiB\n", "utf-8")
    (root / "chapter26-quiz.txt").write_text(_QUIZ_TEXT, "utf-8")
    (root / "staffml-export.json").write_text(_staffml_export(), "utf-8")
    shutil.copytree(ROOT / "tests" / "data" / "staffml_vault", root / "staffml")
    env = {"SYSDRILL_DATA_DIR": str(root / ".data"), "SYSDRILL_CACHE_DIR": str(root / ".cache")}
    with pytest.MonkeyPatch.context() as patch:
        for key, value in env.items():
            patch.setenv(key, value)
        for args in (
            ["export", str(vault), "--out", str(root / "deck.apkg")],
            ["export", str(vault), "--out", str(root / "corpus.json")],
            ["state", "export", str(root / "my-study.json")],
        ):
            with CliRunner().isolation():
                assert main(args) == 0, args
    shutil.rmtree(root / ".data", ignore_errors=True)
    shutil.rmtree(root / ".cache", ignore_errors=True)
    return root


def _words(command: str) -> tuple[list[str], str | None, str | None, Path | None]:
    """The sysdrill arguments, standard input, redirect target, and a file read as input."""
    for placeholder, real in _PLACEHOLDERS.items():
        command = command.replace(placeholder, real)
    command = _ahead(command)
    stdin: str | None = None
    fed: Path | None = None
    piped = _PIPE.match(command)
    if piped is not None:
        feeder = shlex.split(piped["feeder"])
        if feeder[0] == "printf":
            stdin = feeder[1].encode().decode("unicode_escape")
        else:
            fed = Path(feeder[1])
        command = piped["rest"]
    words = shlex.split(command)
    assert words[0] == "sysdrill", (
        f"{command!r} cannot run here: mark its block <!-- docs-test: skip REASON -->"
    )
    target = None
    if ">" in words:
        at = words.index(">")
        target, words = words[at + 1], words[:at]
    return words[1:], stdin, target, fed


@pytest.mark.parametrize("block", BLOCKS, ids=lambda b: b.id)
def test_documented_examples_run(block: Block, run_cli, workspace_template, tmp_path, monkeypatch):
    workspace = tmp_path / "work"
    shutil.copytree(workspace_template, workspace)
    if any(e.command.startswith("sysdrill init my-vault") for e in block.examples):
        shutil.rmtree(workspace / "my-vault")
    monkeypatch.chdir(workspace)
    for example in block.examples:
        if example.answers is not None:
            (workspace / "answers.txt").write_text(example.answers, "utf-8")
        args, stdin, target, fed = _words(example.command)
        if fed is not None:
            stdin = (workspace / fed).read_text("utf-8")
        result = run_cli(*args, input="" if stdin is None else stdin)
        printed = result.stdout + result.stderr
        failing = any(line.startswith("Error:") for line in example.shown)
        where = f"{block.id}: {example.command}\n{printed}"
        assert result.exit_code == (1 if failing else 0), where
        if target is not None:
            Path(target).write_text(result.stdout, "utf-8")
        for line in example.shown:
            expected = line.removesuffix("...").rstrip()
            assert expected in printed, f"{where}\nmissing: {expected}"


def _named(option: str) -> list[tuple[str, str, bool]]:
    """(example, name, on my-vault) for each deck or chain an example studies or exports."""
    found = []
    for block in BLOCKS:
        for example in block.examples:
            args, *_ = _words(example.command)
            if args[:1] == ["import"]:
                continue  # an import names the deck it creates
            names = []
            if option in args:
                names.append(args[args.index(option) + 1])
            if option == "--deck" and args[:1] == ["quiz"]:
                names.append(args[1])
            if option == "--chain" and args[:1] == ["chain"]:
                names.append(args[1])
            mine = "my-vault" in example.command.replace("VAULT", "my-vault")
            found += [(example.command, name, mine) for name in names]
    return found


def test_decks_and_chains_named_in_examples_exist_in_the_vault_used() -> None:
    from sysdrill.content.loader import load_vault
    from sysdrill.content.sample import starter_vault_path

    vaults = {
        mine: load_vault(path)
        for mine, path in ((True, sample_vault_path()), (False, starter_vault_path()))
    }
    decks = _named("--deck")
    chains = _named("--chain")
    assert {name for _, name, _ in decks} >= {"numerics", "sample-chapter-quiz"}
    assert chains
    for command, name, mine in decks:
        vault = vaults[mine]
        known = {d.name for d in vault.decks} | {i.deck for i in vault.items if i.deck}
        # `quiz gpu` shows the error for an unknown deck on purpose.
        assert name in known or command == "sysdrill quiz gpu", (command, name)
    for command, name, mine in chains:
        assert name in {c.id for c in vaults[mine].chains}, (command, name)


def test_example_dates_are_moved_ahead_in_order() -> None:
    shown = sorted(
        {d for block in BLOCKS for e in block.examples for d in _DATE.findall(e.command)}
    )
    assert len(shown) >= 2  # the deadline examples
    moved = [_ahead(d) for d in shown]
    assert moved == sorted(moved)
    assert date.fromisoformat(moved[0]) >= SOON
