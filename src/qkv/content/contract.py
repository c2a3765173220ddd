"""The content contract: every name the engine reads from an assignment's `content.py`, declared once.

The loader checks every name against it (present when required, of its form when given) and says
in one line what is wrong; the docs site renders this table as its reference page.
"""

from __future__ import annotations

import inspect
import types
from collections.abc import Callable
from dataclasses import dataclass

from qkv.content.mistakes import Mistake


@dataclass(frozen=True)
class Hook:
    """One name that `content.py` defines: a constant, a function or a module."""

    name: str
    form: str  # how it is written: a value's type, or a function's signature
    meaning: str
    default: str | None = None  # None: the name is required
    fits: Callable[[object], bool] = lambda value: True  # whether a given value has the form

    @property
    def required(self) -> bool:
        return self.default is None


def _names(value) -> bool:
    return isinstance(value, (tuple, list)) and all(isinstance(v, str) for v in value)


def _names_or_name(value) -> bool:
    return isinstance(value, str) or _names(value)


def _mistakes(value) -> bool:
    return isinstance(value, (tuple, list)) and all(isinstance(m, Mistake) for m in value)


def _function(*names: str) -> Callable[[object], bool]:
    """A function that takes (at least) these positional arguments."""

    def fits(value) -> bool:
        if not callable(value):
            return False
        try:
            inspect.signature(value).bind(*names)
        except TypeError:
            return False
        except ValueError:  # no signature to read (a builtin): taken as it is
            return True
        return True

    return fits


def _dict_of(keys: type, values: Callable[[object], bool]) -> Callable[[object], bool]:
    return lambda value: (
        isinstance(value, dict) and all(isinstance(k, keys) and values(v) for k, v in value.items())
    )


def _quiz_compute(value) -> bool:
    return (
        isinstance(value, (tuple, list))
        and len(value) == 2
        and _names(value[0])
        and callable(value[1])
    )


HOOKS: tuple[Hook, ...] = (
    Hook(
        "FUNCTIONS",
        "tuple[str, ...]",
        "the functions students write, in order",
        fits=lambda v: _names(v) and bool(v),
    ),
    Hook(
        "MISTAKES",
        "tuple[qkv.content.mistakes.Mistake, ...]",
        "the catalogue of mistakes",
        fits=_mistakes,
    ),
    Hook(
        "example",
        "example(reference) or example(reference, seed)",
        "the worked example, with `.as_json()`, `.render()` and `.matrices()` -> "
        "`{name: (values, rows, cols)}`; a hook that takes `seed` gets the course's seed",
        fits=lambda v: _function("reference")(v) or _function("reference", "seed")(v),
    ),
    Hook(
        "public_cases",
        "public_cases(reference, example) -> {function: [(case name, args), ...]}",
        "the fixed cases the release's public checks run",
        fits=_function("reference", "example"),
    ),
    Hook(
        "TUPLE_NAMES",
        "dict[str, tuple[str, ...]]",
        "for a function that returns a tuple, the names of its items",
        "`{}`",
        fits=_dict_of(str, _names),
    ),
    Hook(
        "CHAIN",
        "str or tuple[str, ...]",
        "the function (or functions) that call the student's own other functions; which ones "
        "is read off the reference, and a failing caller is told which of them fail on their own",
        "`()`",
        fits=_names_or_name,
    ),
    Hook(
        "cases",
        "module",
        "random case generators, given to the suites as `cases`",
        "`None`",
        fits=lambda v: isinstance(v, types.ModuleType),
    ),
    Hook(
        "HONEST_VARIANTS",
        "dict[str, dict[str, str]]",
        "correct solutions written differently, `{variant: {function: source}}`: they must keep "
        "full marks in `qkv demo`",
        "`{}`",
        fits=_dict_of(str, _dict_of(str, lambda v: isinstance(v, str))),
    ),
    Hook(
        "ENDLESS",
        "str",
        "the function the synthetic class's endless loop goes into",
        "the first of `FUNCTIONS`",
        fits=lambda v: isinstance(v, str),
    ),
    Hook(
        "QUIZ_COMPUTE",
        "dict[str, tuple[tuple[str, ...], Callable]]",
        "answers the quiz computes: `{name: (input names, fn(reference, *inputs))}`",
        "`{}`",
        fits=_dict_of(str, _quiz_compute),
    ),
    Hook(
        "feedback_section",
        "feedback_section(recorded, example, tolerance) -> qkv.content.figures.Section or None",
        "what a student's feedback page draws from the values the suites recorded",
        "`None`",
        fits=_function("recorded", "example", "tolerance"),
    ),
    Hook(
        "NOTEBOOK_SNIPPETS",
        "dict[str, str]",
        "read-only cells that `<!-- qkv: snippet NAME -->` places in the notebook's story",
        "`{}`",
        fits=_dict_of(str, lambda v: isinstance(v, str)),
    ),
    Hook(
        "mutant_inputs",
        "mutant_inputs(rng) -> {function: args}",
        "random inputs that tell `qkv validate --mutants` which mutants are equivalent to the "
        "reference",
        "the public cases only",
        fits=_function("rng"),
    ),
    Hook(
        "SYNTHETIC_QUIZ_MISTAKE",
        "str",
        'one wrong answer, `"question-id: answer"`, that the synthetic class\'s mistake kinds '
        "hand in",
        "`None`",
        fits=lambda v: isinstance(v, str) and ":" in v,
    ),
)

REQUIRED: tuple[str, ...] = tuple(hook.name for hook in HOOKS if hook.required)


def problem(module) -> str | None:
    """What is wrong with a content module against the contract, in one line, or None."""
    missing = [h for h in HOOKS if h.required and not hasattr(module, h.name)]
    if missing:
        return "lacks " + ", ".join(f"{h.name} ({h.meaning.split(',')[0]})" for h in missing)
    for hook in HOOKS:
        if hasattr(module, hook.name) and not hook.fits(value := getattr(module, hook.name)):
            return f"{hook.name} should be {hook.form}, not {_shown(value)}"
    functions = tuple(module.FUNCTIONS)
    for name in ("ENDLESS", "CHAIN"):
        given = getattr(module, name, ())
        for function in (given,) if isinstance(given, str) else given:
            if function not in functions:
                return f"{name} names {function!r}, which is not one of FUNCTIONS"
    return None


def _shown(value) -> str:
    text = repr(value) if isinstance(value, (str, int, float, tuple, list, dict)) else ""
    kind = type(value).__name__
    return f"{kind} {text[:60]}" if text else f"a {kind}"


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
