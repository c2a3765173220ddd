"""The docs site builds strictly, and its generated reference pages cover the code they describe."""

from __future__ import annotations

import argparse
import ast
import html
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from course_content import ROOT
from qkv.cli import build_parser
from qkv.content import contract
from qkv.course.schema import json_schema
from test_layers import LAYERS


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("site")
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return out


def _text(site: Path, page: str) -> str:
    """What a reader sees of a page's article: tags dropped, entities read, spaces collapsed."""
    source = (site / page / "index.html").read_text(encoding="utf-8")
    article = source[source.index("<article") : source.index("</article>")]
    return re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", " ", article)))


def _commands(parser: argparse.ArgumentParser, prefix: str = "qkv") -> list[str]:
    """Every command line the parser accepts, groups spelled with their subcommands."""
    found = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                found += _commands(sub, f"{prefix} {name}") or [f"{prefix} {name}"]
    return found


def _options(parser: argparse.ArgumentParser) -> list[tuple[str, str]]:
    """(command, option) for every option of every command."""
    found = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                found += [
                    (sub.prog, option)
                    for a in sub._actions
                    for option in a.option_strings
                    if option.startswith("--") and option != "--help"
                ]
                found += _options(sub)
    return found


def test_the_cli_page_names_every_command_and_its_options(site):
    text = _text(site, "reference/cli")
    commands = _commands(build_parser())
    assert {"qkv grade", "qkv quiz show", "qkv nbgrader grade"} <= set(commands)
    assert [c for c in commands if c not in text] == []
    sections = re.split(r"(?=\bqkv [a-z-]+(?: [a-z-]+)* ¶)", text)
    for command, option in _options(build_parser()):
        section = next(s for s in sections if s.startswith(f"{command} ¶"))
        assert option in section, (command, option)


def test_the_course_yaml_page_names_every_key_with_its_meaning(site):
    text = _text(site, "reference/course-yaml")
    schema = json_schema()
    for key, prop in schema["properties"].items():
        assert f"{key} " in text and prop["description"] in text, key
    late = schema["properties"]["assignments"]["items"]["properties"]["late"]["items"]
    assert "assignments[].late[]" in text
    assert all(key in text for key in late["properties"])


def _hooks_the_engine_reads() -> set[str]:
    """The names read from a content module anywhere in the engine: `<x>.module.NAME` and
    `getattr(<x>.module, "NAME", ...)`."""
    names = set()
    for path in (ROOT / "src" / "qkv").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Attribute)
                and node.value.attr == "module"
            ):
                names.add(node.attr)
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id == "getattr"
                and len(node.args) >= 2
                and isinstance(node.args[0], ast.Attribute)
                and node.args[0].attr == "module"
                and isinstance(node.args[1], ast.Constant)
            ):
                names.add(node.args[1].value)
    return names - {"__file__", "__path__"}


def test_the_content_contract_declares_every_hook_the_engine_reads(site):
    declared = {hook.name for hook in contract.HOOKS}
    read = _hooks_the_engine_reads()
    assert {"FUNCTIONS", "ENDLESS", "SYNTHETIC_QUIZ_MISTAKE", "mutant_inputs"} <= read
    assert read - declared == set()
    text = _text(site, "reference/content-contract")
    assert [name for name in declared if name not in text] == []


def test_the_architecture_picture_draws_the_layers_in_the_enforced_order():
    page = (ROOT / "docs" / "internals" / "architecture.md").read_text(encoding="utf-8")
    diagram = page.split("```mermaid", 1)[1].split("```", 1)[0]
    edges = [line for line in diagram.splitlines() if "-->" in line]
    chain = [name.strip() for line in edges for name in line.split("-->")]
    drawn = [name for i, name in enumerate(chain) if i == 0 or name != chain[i - 1]]
    assert drawn == list(reversed(LAYERS))


def test_the_readme_is_a_short_front_door_whose_links_resolve():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(readme.splitlines()) <= 150
    targets = re.findall(r"\]\(([^)#\s]+)", readme)
    assert "docs/img/feedback.png" in targets
    assert [t for t in targets if not (ROOT / t).exists()] == []
    audiences = {p.parent.name for p in (ROOT / "docs").glob("*/index.md")} - {"reference"}
    assert {t.split("/")[1] for t in targets if t.startswith("docs/") and "/" in t[5:]} >= audiences
    assert "make demo" in readme and "make test" in readme
