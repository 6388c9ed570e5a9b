"""First-use smoke test on one Python: the README's install command, then a new user's commands.

Run it with the interpreter to test (CI runs it on every supported version):

    python3.12 scripts/smoke.py

It makes a fresh virtual environment in a temporary folder with the README's own
install command (``python3 -m venv .venv && .venv/bin/pip install -q -c
requirements/constraints.txt -e .``, with the interpreter and the folder swapped), then
runs ``sysdrill --version``, ``check``, ``stats``, ``practice`` with piped answers and
``serve`` until ``/`` answers, each with empty data and cache folders of its own. Any
import-time or first-use crash fails it: exit 1 with the step, its command and its output.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

INSTALL = "python3 -m venv .venv && .venv/bin/pip install -q -c requirements/constraints.txt -e ."
"""The README's install command, word for word (tests/test_supported_pythons.py checks)."""

PRACTICE_ANSWERS = "good\ny\n7 GB\n"
"""The README's scripted practice: rate a flashcard Good, take the chain's next item, answer it."""

SERVE_WAIT_S = 60.0
"""How long ``serve`` may take to answer its first request."""


class SmokeFailed(Exception):
    """A step of the smoke test failed; the message holds its command and output."""


def _run(step: str, command: list[str], env: dict[str, str], stdin: str = "") -> str:
    print(f"smoke: {step}: {' '.join(command)}", flush=True)
    done = subprocess.run(
        command, input=stdin, capture_output=True, text=True, env=env, cwd=ROOT, timeout=900
    )
    if done.returncode != 0:
        raise SmokeFailed(
            f"{step} exited {done.returncode}: {' '.join(command)}\n{done.stdout}{done.stderr}"
        )
    return done.stdout


def _install_command(venv: Path) -> str:
    """The README's command with this interpreter and a temporary folder for ``.venv``."""
    return INSTALL.replace("python3 -m venv .venv", f"{sys.executable} -m venv {venv}").replace(
        ".venv/bin/pip", f"{venv}/bin/pip"
    )


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _serve_answers_home(sysdrill: Path, env: dict[str, str]) -> None:
    port = _free_port()
    command = [str(sysdrill), "serve", "--port", str(port)]
    print(f"smoke: serve: {' '.join(command)}", flush=True)
    server = subprocess.Popen(
        command, env=env, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    try:
        deadline = time.monotonic() + SERVE_WAIT_S
        while True:
            if server.poll() is not None:
                output = server.stdout.read() if server.stdout else ""
                raise SmokeFailed(f"serve exited {server.returncode} before answering\n{output}")
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=5) as reply:
                    if reply.status != 200 or b"sysdrill" not in reply.read().lower():
                        raise SmokeFailed(f"serve answered / with {reply.status}")
                    return
            except (urllib.error.URLError, ConnectionError):
                if time.monotonic() > deadline:
                    raise SmokeFailed(
                        f"serve did not answer / within {SERVE_WAIT_S:.0f} s"
                    ) from None
                time.sleep(0.25)
    finally:
        server.terminate()
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


def smoke(work: Path) -> None:
    """Install into ``work``/venv and run a new user's first commands; raise SmokeFailed."""
    venv = work / "venv"
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("SYSDRILL_", "VIRTUAL_ENV", "PYTHON"))
    }
    _run("install", ["sh", "-c", _install_command(venv)], env)
    home = work / "home"
    home.mkdir()
    env |= {
        "HOME": str(home),
        "XDG_DATA_HOME": str(home / "data"),
        "XDG_CACHE_HOME": str(home / "cache"),
        "XDG_CONFIG_HOME": str(home / "config"),
    }
    sysdrill = venv / "bin" / "sysdrill"
    version = _run("version", [str(sysdrill), "--version"], env)
    if not version.startswith("sysdrill "):
        raise SmokeFailed(f"--version printed {version!r}")
    _run("check", [str(sysdrill), "check"], env)
    _run("stats", [str(sysdrill), "stats"], env)
    practice = _run(
        "practice", [str(sysdrill), "practice", "--limit", "2"], env, stdin=PRACTICE_ANSWERS
    )
    if "Correct" not in practice:
        raise SmokeFailed(f"practice did not grade the scripted answer right:\n{practice}")
    _serve_answers_home(sysdrill, env)


def main() -> int:
    """Run the smoke test in a temporary folder; 0 when every step passed."""
    label = f"Python {sys.version.split()[0]}"
    work = Path(tempfile.mkdtemp(prefix="sysdrill-smoke-"))
    try:
        smoke(work)
    except (SmokeFailed, subprocess.TimeoutExpired) as exc:
        print(f"smoke: FAILED on {label}: {exc}", file=sys.stderr)
        return 1
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"smoke: passed on {label}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
