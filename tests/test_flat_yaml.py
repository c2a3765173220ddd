"""The flat answers file read without PyYAML's scanner gives what PyYAML gives, or is left to PyYAML."""

import math
import random
from pathlib import Path

import pytest
import yaml

from course_content import ROOT
from qkv.quiz import answers, flat_yaml

# Words YAML 1.1 types in surprising ways, words with indicators, and words that are not words.
WORDS = [
    "a",
    "b",
    "C",
    "yes",
    "No",
    "on",
    "OFF",
    "null",
    "Null",
    "~",
    "true",
    "False",
    "1",
    "-1",
    "+1",
    "0.5",
    ".5",
    "-.5",
    "1e3",
    "1.0e+3",
    "1.5e-3",
    "0x1F",
    "0o17",
    "017",
    "0b101",
    "1_000",
    ".inf",
    "-.inf",
    ".NaN",
    "1:30",
    "<<",
    "=",
    "-",
    "--",
    "---",
    "...",
    ".",
    "+",
    "_",
    "a-b",
    "2001-12-14",
    "9" * 30,
    "a#b",
    "#",
    "?",
    "a b",
    "'q'",
    '"q"',
    "&x",
    "*x",
    "!!str",
    "|",
    ">",
    "%",
    "@",
    "é",
    "1,2",
    "a]",
    "[",
    "]",
    "{}",
    "-a",
    "-0",
    "0.",
    "Y",
    "1e400",
    "-0.0",
]
KEYS = ["dot-product", "q1", "yes", "null", "1", "-x", "a_b", "A", "k" * 1100, "<<", "x.y", "on"]


def _value(r: random.Random) -> str:
    if r.random() < 0.5:
        return r.choice([*WORDS, ""])
    items = [
        "[" + ", ".join(r.choice(WORDS) for _ in range(r.randint(0, 3))) + "]"
        if r.random() < 0.3
        else r.choice(WORDS)
        for _ in range(r.randint(0, 3))
    ]
    return (
        r.choice(["[", "[ "])
        + r.choice([", ", ",", " , "]).join(items)
        + r.choice(["]", " ]", ",]"])
    )


def _line(r: random.Random) -> str:
    if r.random() < 0.15:
        return r.choice(
            ["", "   ", "# comment", "  # c", "\t# tab", "# é \t x", "---", "...", "%YAML 1.1"]
        )
    return (
        r.choice(["", "", "", " "])
        + r.choice(KEYS)
        + r.choice([": ", ":", ":  ", ":\t", " : "])
        + _value(r)
        + r.choice(["", "", " # c", "  #c", "#c", " ", "\t"])
    )


def _typed(x):
    """A value with its types spelled out: 1 and 1.0 and True differ, as do 0.0 and -0.0; NaN equals NaN."""
    if isinstance(x, dict):
        return ("map", tuple((_typed(k), _typed(v)) for k, v in x.items()))
    if isinstance(x, list):
        return ("seq", tuple(_typed(v) for v in x))
    if isinstance(x, float) and math.isnan(x):
        return ("nan",)
    return (type(x).__name__, repr(x))


def _read(text: str, *, flat: bool):
    """What the answers reader makes of `text` with or without the flat path: (data, lines) or the error."""
    compose = flat_yaml.compose
    try:
        if not flat:
            flat_yaml.compose = lambda text: None
        data, lines = answers._load_yaml(text, "answers.yaml")
        return _typed(data), lines
    except answers.BadAnswer as e:
        return str(e)
    finally:
        flat_yaml.compose = compose


def test_random_flat_looking_files_read_as_pyyaml_reads_them():
    r, composed = random.Random(20261129), 0
    for _ in range(4000):
        text = r.choice(["\n", "\r\n"]).join(_line(r) for _ in range(r.randint(0, 6))) + r.choice(
            ["", "\n", "\r\n"]
        )
        composed += flat_yaml.compose(text) is not None
        assert _read(text, flat=True) == _read(text, flat=False), text
    assert composed > 400  # the flat path was taken, not only the fallback


@pytest.mark.parametrize(
    "text",
    [
        "",
        "# only a comment\n\n",
        "dot-product: 3\n",
        "dot-product:\n",
        "q: [a, c]\nq: b\n",
        "q: [[1, 2], [3, 4.5]]\n",
        "q: [ ]  # nothing\r\nr: yes\r\n",
        "no: 1\n",
        "q: " + "9" * 5000 + "\n",
        "q: -.5 #c\n",
        "q: [0.45, 0.10\n",
        "q: 'a'\n",
        "  q: a\n",
        "q: a\n  b\n",
        "- a\n",
        "q: a\x07\n",
        "q: a\u2028r: b\n",
        "\ufeffq: a\n",
        "q: 1:30\n",
    ],
)
def test_chosen_files_read_as_pyyaml_reads_them(text):
    assert _read(text, flat=True) == _read(text, flat=False)


def test_the_released_blank_sheets_take_the_flat_path():
    for sheet in sorted((ROOT / "exercises").glob("*/answers.yaml")):
        assert flat_yaml.compose(Path(sheet).read_text(encoding="utf-8")) is not None, sheet


def test_anything_not_flat_is_left_to_pyyaml():
    for text in (
        "q: 'quoted'\n",
        "q: a b\n",
        "q:\n  - a\n",
        "q: &x a\nr: *x\n",
        "q: !!str 1\n",
        "q: {a: 1}\n",
        "--- \nq: a\n",
        "q: a\rr: b\n",
        "q: [a,\n  b]\n",
    ):
        assert flat_yaml.compose(text) is None, text
    assert yaml.safe_load("q: a b\n") == {"q": "a b"}
