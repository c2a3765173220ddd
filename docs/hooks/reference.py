"""MkDocs hook: the reference pages, generated from the code on every build, and the nav's order.

The command line comes from `qkv.cli.build_parser()`, course.yaml from the JSON Schema that
`qkv.course.schema` derives from the config's dataclasses, and the content contract from
`qkv.content.contract`. Nothing here is copied by hand, so a build cannot go stale.
"""

from __future__ import annotations

import argparse
import html
import json

from mkdocs.structure.files import File, Files
from mkdocs.structure.nav import Navigation, Section

from qkv.cli import build_parser
from qkv.content import contract
from qkv.course.schema import json_schema

# The audiences in reading order; a folder not named here comes after them, by name.
SECTIONS = ("students", "instructors", "graders", "integrations", "internals", "reference")
WIDTH = 100


def _cell(text: object) -> str:
    """Text for a table cell: one line, its pipes escaped, and no HTML read into it."""
    return html.escape(str(text), quote=False).replace("|", "\\|").replace("\n", " ")


def _code(text: object) -> str:
    """A table cell's code span (the Markdown inside backticks is not read as HTML)."""
    return "`" + str(text).replace("|", "\\|") + "`"


# ---------------------------------------------------------------------------------------------
# The command line


def _subcommands(parser: argparse.ArgumentParser):
    """(name, help, parser) for each subcommand of `parser`, in the order they were added."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            helps = {a.dest: a.help for a in action._choices_actions}
            for name, sub in action.choices.items():
                yield name, helps.get(name) or "", sub


def _usage(parser: argparse.ArgumentParser) -> str:
    formatter = argparse.HelpFormatter(parser.prog, width=WIDTH)
    formatter.add_usage(parser.usage, parser._actions, parser._mutually_exclusive_groups)
    return formatter.format_help().strip()


def _argument(action: argparse.Action) -> str:
    if action.option_strings:
        names = ", ".join(action.option_strings)
        if action.nargs != 0:
            names += " " + (action.metavar or action.dest.upper())
    else:
        names = action.metavar or action.dest
    return names


def _details(action: argparse.Action) -> str:
    text = _cell(action.help or "")
    if action.choices and not isinstance(action, argparse._SubParsersAction):
        text += " (one of: " + ", ".join(f"`{c}`" for c in action.choices) + ")"
    if action.required and action.option_strings:
        text = "Required: " + text
    return text


def _command_page(lines: list[str], parser: argparse.ArgumentParser, help_text: str, depth: int):
    subcommands = list(_subcommands(parser))
    lines += [f"{'#' * depth} `{parser.prog}`", ""]
    if help_text:
        lines += [_cell(help_text[0].upper() + help_text[1:]) + ".", ""]
    lines += ["```text", _usage(parser), "```", ""]
    arguments = [
        a
        for a in parser._actions
        if a.help != argparse.SUPPRESS
        and not isinstance(a, argparse._SubParsersAction | argparse._HelpAction)
    ]
    if arguments:
        lines += ["| argument | what it does |", "|---|---|"]
        lines += [f"| {_code(_argument(a))} | {_details(a)} |" for a in arguments]
        lines.append("")
    for _name, sub_help, sub in subcommands:
        _command_page(lines, sub, sub_help, min(depth + 1, 3))


def cli_markdown() -> str:
    parser = build_parser()
    lines = [
        "# Command line",
        "",
        "Generated from `qkv.cli.build_parser()` when the site is built. Every command reads",
        "`course.yaml` from the current folder, or from `--course PATH`; an error is one line",
        "on standard error and exit code 2. `qkv --version` prints the kit's version.",
        "",
        "| command | does |",
        "|---|---|",
    ]
    for name, help_text, sub in _subcommands(parser):
        nested = list(_subcommands(sub))
        if nested:
            lines += [f"| `qkv {name} {n}` | {_cell(h)} |" for n, h, _ in nested]
        else:
            lines.append(f"| `qkv {name}` | {_cell(help_text)} |")
    lines.append("")
    for _name, help_text, sub in _subcommands(parser):
        _command_page(lines, sub, help_text, 2)
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------------
# course.yaml


def _type(schema: dict) -> str:
    if "enum" in schema:
        return " or ".join(f"`{json.dumps(v)}`" for v in schema["enum"])
    if "anyOf" in schema:
        kinds = [_type(s) for s in schema["anyOf"] if s.get("type") != "null"]
        return " or ".join(kinds) + " (optional)"
    if schema.get("type") == "array":
        item = schema.get("items", {})
        return "list of " + ("tables" if item.get("type") == "object" else _type(item) + "s")
    return {"object": "table", "number": "number", "integer": "integer"}.get(
        schema.get("type", ""), schema.get("type", "")
    )


def _object_of(schema: dict) -> dict | None:
    """The table a key holds, directly or as the items of a list."""
    if schema.get("type") == "object":
        return schema
    if schema.get("type") == "array" and schema.get("items", {}).get("type") == "object":
        return schema["items"]
    return None


def _schema_section(lines: list[str], path: str, schema: dict) -> None:
    required = set(schema.get("required", ()))
    nested = []
    lines += [f"## `{path}`" if path else "## Top level", ""]
    if schema.get("description"):
        lines += [schema["description"], ""]
    lines += ["| key | type | default | meaning |", "|---|---|---|---|"]
    for key, prop in schema.get("properties", {}).items():
        default = "**required**" if key in required else ""
        if "default" in prop:
            default = f"`{json.dumps(prop['default'])}`"
        kind = _type(prop) + (f", at least {prop['minimum']}" if "minimum" in prop else "")
        child = _object_of(prop)
        name = f"`{key}`"
        if child is not None:
            sub = f"{path}.{key}" if path else key
            sub += "[]" if prop.get("type") == "array" else ""
            nested.append((sub, child))
            name = f"[`{key}`](#{_anchor(sub)})"
        lines.append(
            f"| {name} | {_cell(kind)} | {_cell(default)} | {_cell(prop['description'])} |"
        )
    lines.append("")
    for sub, child in nested:
        _schema_section(lines, sub, child)


def _anchor(path: str) -> str:
    """The id MkDocs' toc extension gives the heading `path` in code: its slug."""
    return "".join(c for c in path if c.isalnum() or c in "-_ ").strip().lower().replace(" ", "-")


def course_markdown() -> str:
    lines = [
        "# course.yaml",
        "",
        "Generated from the JSON Schema that `qkv.course.schema` derives from the course's",
        "dataclasses (`make schema` writes it to `course.schema.json`, for editors). Unknown keys",
        "are refused, with one line naming the path and the nearest known key.",
        "",
    ]
    _schema_section(lines, "", json_schema())
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------------
# MkDocs events

PAGES = {
    "reference/cli.md": cli_markdown,
    "reference/course-yaml.md": course_markdown,
    "reference/content-contract.md": contract.markdown,
}


def on_files(files: Files, config) -> Files:
    for path, render in PAGES.items():
        files.append(File.generated(config, path, content=render()))
    return files


def _folder(item) -> str:
    """The top folder of docs/ that a nav item comes from."""
    if isinstance(item, Section):
        return _folder(item.children[0]) if item.children else ""
    file = getattr(item, "file", None)
    return file.src_uri.split("/")[0] if file else ""


def _order(item) -> tuple[int, str]:
    name = _folder(item)
    return (SECTIONS.index(name) if name in SECTIONS else len(SECTIONS), name)


def on_nav(nav: Navigation, config, files) -> Navigation:
    """The home page first, then the audiences in reading order (MkDocs would sort by name)."""
    home = [item for item in nav.items if not isinstance(item, Section)]
    sections = sorted((item for item in nav.items if isinstance(item, Section)), key=_order)
    nav.items[:] = home + sections
    return nav
