"""The constraints file pins every declared dependency, and the test run uses those pins."""

from __future__ import annotations

import re
import tomllib
from importlib import metadata
from pathlib import Path

import pytest
from packaging.markers import Marker

ROOT = Path(__file__).resolve().parents[1]
LOCKED_EXTRAS = ("dev", "test-anki", "postgres", "web")
_NAME = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)")


def _canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _declared() -> dict[str, str]:
    """Direct requirements by canonical name -> the extra naming them ("" for core)."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    declared = {}
    for extra in ("", *LOCKED_EXTRAS):
        requirements = project["optional-dependencies"][extra] if extra else project["dependencies"]
        for requirement in requirements:
            match = _NAME.match(requirement)
            assert match, requirement
            declared[_canonical(match.group(1))] = extra
    return declared


def _pins() -> dict[str, str]:
    pins = {}
    for line in (ROOT / "requirements" / "constraints.txt").read_text().splitlines():
        if "==" in line and not line.lstrip().startswith("#"):
            requirement, _, marker = line.partition(";")
            # A universal lock pins some packages per Python version.
            if marker.strip() and not Marker(marker.strip()).evaluate():
                continue
            name, _, version = requirement.partition("==")
            pins[_canonical(name.split("[")[0])] = version.strip()
    return pins


def test_every_declared_dependency_is_pinned() -> None:
    missing = sorted(set(_declared()) - set(_pins()))
    assert missing == [], f"run scripts/lock: {missing} are declared but not pinned"


@pytest.mark.parametrize("name", sorted(n for n, extra in _declared().items() if extra != "web"))
def test_installed_version_is_the_pinned_one(name: str) -> None:
    # The web extra is locked but not installed by scripts/test until the web app exists.
    assert metadata.version(name) == _pins()[name], "reinstall with scripts/test"
