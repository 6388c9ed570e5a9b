"""The Python versions sysdrill promises are exactly the ones CI tests (issue 26)."""

from __future__ import annotations

import re
import runpy
import sys
import tomllib
from pathlib import Path

from packaging.specifiers import SpecifierSet

ROOT = Path(__file__).resolve().parents[1]


def _project() -> dict[str, object]:
    return tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["project"]


def _classified() -> list[str]:
    classifiers = _project()["classifiers"]
    assert isinstance(classifiers, list)
    prefix = "Programming Language :: Python :: "
    return [c.removeprefix(prefix) for c in classifiers if re.fullmatch(r".*:: 3\.\d+", c)]


def test_requires_python_admits_exactly_the_classified_versions() -> None:
    allowed = SpecifierSet(str(_project()["requires-python"]))
    admitted = [f"3.{minor}" for minor in range(6, 30) if f"3.{minor}.0" in allowed]
    assert admitted == _classified() == ["3.11", "3.12", "3.13"]


def test_ci_smoke_tests_every_supported_version_and_runs_the_suite_on_the_newest() -> None:
    ci = (ROOT / ".ci" / "run").read_text("utf-8")
    loop = re.search(r"for version in ([\d. ]+); do", ci)
    assert loop is not None, ".ci/run lost its smoke-test loop"
    assert loop.group(1).split() == _classified()
    newest = _classified()[-1]
    assert f"scripts/find-python {newest})" in ci
    assert 'SYSDRILL_PYTHON="$newest"' in ci and "bash scripts/test" in ci


def _smoke() -> dict[str, object]:
    return runpy.run_path(str(ROOT / "scripts" / "smoke.py"))


def test_readme_names_the_supported_versions_and_the_smoke_scripts_install() -> None:
    readme = (ROOT / "README.md").read_text("utf-8")
    versions = _classified()
    assert f"Python {', '.join(versions[:-1])} or {versions[-1]}" in readme
    # The smoke test installs with the README's own command, so it tests what users run.
    assert _smoke()["INSTALL"] in readme


def test_smoke_installs_with_its_interpreter_into_its_own_folder(tmp_path) -> None:
    install_command = _smoke()["_install_command"]
    assert callable(install_command)
    command = install_command(tmp_path / "venv")
    assert command.startswith(f"{sys.executable} -m venv {tmp_path / 'venv'} && ")
    assert f"{tmp_path / 'venv'}/bin/pip install -q -c requirements/constraints.txt -e ." in command
    assert " .venv" not in command and "&& .venv" not in command


def test_this_interpreter_is_a_supported_one() -> None:
    assert f"{sys.version_info.major}.{sys.version_info.minor}" in _classified()
