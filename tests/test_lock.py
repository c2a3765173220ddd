"""The lock in requirements/ holds every requirement of pyproject.toml, within its range, hashed:
`make test` installs from it with --no-deps, so a requirement it misses would be missing there."""

from __future__ import annotations

import re
import tomllib

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from course_content import ROOT

PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
SELF = canonicalize_name(PROJECT["name"])


def requirements(extras: tuple[str, ...]) -> list[Requirement]:
    """The package's requirements and those of `extras`, following extras that name the package."""
    out, todo, seen = [], list(extras), set()
    out += [Requirement(r) for r in PROJECT["dependencies"]]
    while todo:
        extra = todo.pop()
        if extra in seen:
            continue
        seen.add(extra)
        for text in PROJECT["optional-dependencies"][extra]:
            r = Requirement(text)
            if canonicalize_name(r.name) == SELF:
                todo += sorted(r.extras)
            else:
                out.append(r)
    return [r for r in out if r.marker is None or r.marker.evaluate()]


def pins(name: str) -> dict[str, str]:
    text = (ROOT / "requirements" / name).read_text(encoding="utf-8")
    found = dict(re.findall(r"^([A-Za-z0-9_.-]+)==(\S+) \\$", text, re.M))
    unhashed = re.findall(r"^([A-Za-z0-9_.-]+)==\S+\s*$", text, re.M)
    assert unhashed == [], f"{name}: pinned without hashes: {unhashed}"
    return {canonicalize_name(k): v for k, v in found.items()}


@pytest.mark.parametrize("lock, extras", [("base.txt", ()), ("test.txt", ("test",))])
def test_the_lock_pins_every_requirement_of_pyproject_within_its_range(lock, extras):
    pinned = pins(lock)
    assert SELF not in pinned  # the checkout itself is installed on its own, editable
    wrong = [
        f"{r} (locked: {pinned.get(canonicalize_name(r.name), 'missing')})"
        for r in requirements(extras)
        if not r.specifier.contains(pinned.get(canonicalize_name(r.name), "0"), prereleases=True)
        or canonicalize_name(r.name) not in pinned
    ]
    assert wrong == [], f"requirements/{lock} is stale: run `make lock` and commit it"


def test_the_test_lock_agrees_with_the_base_lock():
    base, test = pins("base.txt"), pins("test.txt")
    assert {k: (v, test.get(k)) for k, v in base.items() if test.get(k) != v} == {}
