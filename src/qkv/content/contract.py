"""The content contract: every name the engine reads from an assignment's `content.py`, declared once.

The loader checks the required names; the docs site renders this table as its reference page.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Hook:
    """One name that `content.py` defines: a constant, a function or a module."""

    name: str
    form: str  # how it is written: a value's type, or a function's signature
    meaning: str
    default: str | None = None  # None: the name is required

    @property
    def required(self) -> bool:
        return self.default is None


HOOKS: tuple[Hook, ...] = (
    Hook("FUNCTIONS", "tuple[str, ...]", "the functions students write, in order"),
    Hook("MISTAKES", "tuple[qkv.content.mistakes.Mistake, ...]", "the catalogue of mistakes"),
    Hook(
        "example",
        "example(reference) or example(reference, seed)",
        "the worked example, with `.as_json()`, `.render()` and `.matrices()` -> "
        "`{name: (values, rows, cols)}`; a hook that takes `seed` gets the course's seed",
    ),
    Hook(
        "public_cases",
        "public_cases(reference, example) -> {function: [(case name, args), ...]}",
        "the fixed cases the release's public checks run",
    ),
    Hook(
        "TUPLE_NAMES",
        "dict[str, tuple[str, ...]]",
        "for a function that returns a tuple, the names of its items",
        "`{}`",
    ),
    Hook(
        "CHAIN",
        "str or tuple[str, ...]",
        "the function (or functions) that call those listed before them; their part is graded "
        "through the student's own functions",
        "`()`",
    ),
    Hook("cases", "module", "random case generators, given to the suites as `cases`", "`None`"),
    Hook(
        "HONEST_VARIANTS",
        "dict[str, dict[str, str]]",
        "correct solutions written differently, `{variant: {function: source}}`: they must keep "
        "full marks in `qkv demo`",
        "`{}`",
    ),
    Hook(
        "ENDLESS",
        "str",
        "the function the synthetic class's endless loop goes into",
        "the first of `FUNCTIONS`",
    ),
    Hook(
        "QUIZ_COMPUTE",
        "dict[str, tuple[tuple[str, ...], Callable]]",
        "answers the quiz computes: `{name: (input names, fn(reference, *inputs))}`",
        "`{}`",
    ),
    Hook(
        "feedback_section",
        "feedback_section(recorded, example, tolerance) -> qkv.content.figures.Section or None",
        "what a student's feedback page draws from the values the suites recorded",
        "`None`",
    ),
    Hook(
        "NOTEBOOK_SNIPPETS",
        "dict[str, str]",
        "read-only cells that `<!-- qkv: snippet NAME -->` places in the notebook's story",
        "`{}`",
    ),
    Hook(
        "mutant_inputs",
        "mutant_inputs(rng) -> {function: args}",
        "random inputs that tell `qkv validate --mutants` which mutants are equivalent to the "
        "reference",
        "the public cases only",
    ),
    Hook(
        "SYNTHETIC_QUIZ_MISTAKE",
        "str",
        'one wrong answer, `"question-id: answer"`, that the synthetic class\'s mistake kinds '
        "hand in",
        "`None`",
    ),
)

REQUIRED: tuple[str, ...] = tuple(hook.name for hook in HOOKS if hook.required)


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def markdown() -> str:
    """The contract as a Markdown page: the required names, then the optional ones."""
    lines = [
        "# The content contract",
        "",
        "An assignment's folder `solutions/<id>/` holds `content.py`, trusted instructor code that",
        "the engine imports as a package (its other modules are imported relatively: "
        "`from . import cases`).",
        "These are the names the engine reads from it; this page is generated from "
        "`qkv.content.contract.HOOKS`.",
        "",
    ]
    for title, hooks in (
        ("Required", [h for h in HOOKS if h.required]),
        ("Optional", [h for h in HOOKS if not h.required]),
    ):
        lines += [f"## {title}", ""]
        header = "| name | form | meaning |" + (" default |" if title == "Optional" else "")
        lines += [header, "|---" * header.count(" |") + "|"]
        for h in hooks:
            row = f"| `{h.name}` | `{_cell(h.form)}` | {_cell(h.meaning)} |"
            lines.append(row + (f" {_cell(h.default or '')} |" if not h.required else ""))
        lines.append("")
    return "\n".join(lines)
