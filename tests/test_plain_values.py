"""Values cross as the content makes them: an assignment of ints and boolean masks, written with no
type conversions anywhere, releases, checks, grades and validates; its public checks pass in the
released folder under plain pytest."""

import csv
import json
import subprocess
import sys

import pytest

from qkv.cli import main

COURSE_YAML = """\
name: "Masks"
seed: 3
assignments:
  - id: masks
    title: "Masks"
    source: solutions/masks/masks.py
    parts:
      - {id: causal_mask, function: causal_mask, points: 10}
      - {id: masked_scores, function: masked_scores, points: 10}
      - {id: split_heads, function: split_heads, points: 10}
"""

REFERENCE = '''\
"""Causal masks and heads."""
import numpy as np


def causal_mask(n):
    """(n, n) booleans: True where token i may attend to token j (j <= i)."""
    ### BEGIN SOLUTION
    return np.tril(np.ones((n, n), dtype=bool))
    ### END SOLUTION


def masked_scores(S, mask):
    """S with -inf wherever mask is False."""
    ### BEGIN SOLUTION
    return np.where(mask, S, -np.inf)
    ### END SOLUTION


def split_heads(X, n_heads):
    """The columns of X cut into n_heads equal blocks, as a tuple."""
    ### BEGIN SOLUTION
    return tuple(np.split(X, n_heads, axis=1))
    ### END SOLUTION
'''

# Correct code as students write it: ints used as ints, masks as masks.
HONEST = {
    "causal_mask": "    keep = np.ones((n, n), dtype=bool)\n    return np.tril(keep)\n",
    "masked_scores": "    S = S.copy()\n    S[~mask] = -np.inf\n    return S\n",
    "split_heads": (
        "    width = X.shape[1] // n_heads\n"
        "    return tuple(X[:, h * width:(h + 1) * width] for h in range(n_heads))\n"
    ),
}

CONTENT = '''\
"""Masks: three functions on ints and boolean masks."""
import numpy as np

from qkv.content.mistakes import Mistake

FUNCTIONS = ("causal_mask", "masked_scores", "split_heads")
TUPLE_NAMES = {}
MISTAKES = (
    Mistake("mask_inverted", "causal_mask", "the mask is inverted: True marks what may be seen.",
            "def causal_mask(n):\\n    return np.triu(np.ones((n, n), dtype=bool), 1)\\n"),
    Mistake("mask_kept", "masked_scores", "masked scores must be -inf, not kept.",
            "def masked_scores(S, mask):\\n    return np.where(mask, S, S)\\n"),
    Mistake("heads_rows", "split_heads", "split the columns (the features), not the rows.",
            "def split_heads(X, n_heads):\\n    return tuple(np.split(X, n_heads, axis=0))\\n"),
)


class Example:
    def __init__(self, reference):
        self.n = 3
        self.mask = reference.causal_mask(3)
        self.S = np.arange(9.0).reshape(3, 3)

    def as_json(self):
        return {"n": self.n, "mask": self.mask.tolist()}

    def render(self):
        return f"causal_mask({self.n}) = {self.mask.tolist()}"

    def matrices(self):
        return {"mask": (self.mask * 1.0, ("a", "b", "c"), ("a", "b", "c"))}


def example(reference):
    return Example(reference)


def public_cases(reference, worked):
    return {
        "causal_mask": [("three tokens", (worked.n,)), ("one token", (1,))],
        "masked_scores": [("three tokens", (worked.S, worked.mask))],
        "split_heads": [("two heads", (np.arange(12.0).reshape(3, 4), 2))],
    }
'''

SUITES = {
    "causal_mask": """\
import pytest

pytestmark = pytest.mark.part("causal_mask")


def test_sizes(expect, rng):
    for n in (2, 5, int(rng.integers(6, 9))):
        expect.same("causal_mask", n)
""",
    "masked_scores": """\
import numpy as np
import pytest

pytestmark = pytest.mark.part("masked_scores")


def test_random_masks(expect, rng, n_cases):
    for _ in range(n_cases):
        n = int(rng.integers(2, 7))
        mask = rng.random((n, n)) < 0.6
        mask[:, 0] = True
        expect.same("masked_scores", rng.normal(size=(n, n)), mask)
""",
    "split_heads": """\
import pytest

pytestmark = pytest.mark.part("split_heads")


def test_heads(expect, rng):
    for heads in (1, 2, 4):
        expect.same("split_heads", rng.normal(size=(3, 8)), heads)
""",
}


@pytest.fixture
def masks(tmp_path):
    folder = tmp_path / "solutions" / "masks"
    (folder / "suites").mkdir(parents=True)
    (tmp_path / "course.yaml").write_text(COURSE_YAML)
    (folder / "masks.py").write_text(REFERENCE)
    (folder / "content.py").write_text(CONTENT)
    (folder / "README.md").write_text("# {title}\n\nDue: {deadline}.\n")
    for part, suite in SUITES.items():
        (folder / "suites" / f"test_{part}.py").write_text(suite)
    return tmp_path


def student_file(**bodies) -> str:
    """The reference with some functions' bodies replaced."""
    text = REFERENCE
    for function, body in bodies.items():
        start = text.index(f"def {function}(")
        begin = text.index("    ### BEGIN SOLUTION\n", start) + len("    ### BEGIN SOLUTION\n")
        end = text.index("    ### END SOLUTION", begin)
        text = text[:begin] + body + text[end:]
    return text


def run(capsys, *argv):
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_release_keeps_ints_and_masks_and_its_checks_pass_under_plain_pytest(masks, capsys):
    code, _, err = run(capsys, "release", "--course", str(masks))
    assert code == 0, err
    folder = masks / "exercises" / "masks"
    cases = json.loads((folder / "public_cases.json").read_text())
    first = cases["functions"]["causal_mask"][0]
    assert first["args"] == [3] and first["expected"]["dtype"] == "bool"
    assert cases["functions"]["split_heads"][0]["args"][1] == 2
    (folder / "masks.py").write_text(student_file(**HONEST))
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"],
        cwd=folder,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0 and "3 passed" in done.stdout, done.stdout + done.stderr


def test_check_passes_honest_code_and_names_the_inverted_mask(masks, tmp_path, capsys):
    mine = tmp_path / "mine" / "masks.py"
    mine.parent.mkdir()
    mine.write_text(student_file(**HONEST))
    code, out, _ = run(capsys, "check", str(mine), "--course", str(masks))
    assert code == 0 and "3 of 3 functions pass" in out, out
    mine.write_text(student_file(causal_mask="    return ~np.tril(np.ones((n, n), dtype=bool))\n"))
    code, out, _ = run(capsys, "check", str(mine), "--course", str(masks))
    assert code == 1 and "FAIL  causal_mask" in out and "PASS  split_heads" in out


def test_grade_gives_honest_code_full_marks_and_each_mistake_loses_its_part(
    masks, tmp_path, capsys
):
    subs = tmp_path / "subs"
    files = {
        "ada": student_file(**HONEST),
        "bob": student_file(**{**HONEST, "causal_mask": "    return np.tril(np.ones((n, n)))\n"}),
        "cy": student_file(
            **{**HONEST, "split_heads": "    return tuple(np.split(X, n_heads, axis=0))\n"}
        ),
    }
    for student, text in files.items():
        (subs / student).mkdir(parents=True)
        (subs / student / "masks.py").write_text(text)
    out = tmp_path / "out"
    code, _, err = run(
        capsys, "grade", str(subs), "--out", str(out), "--course", str(masks), "--jobs", "1",
        "--quiet",
    )  # fmt: skip
    assert code == 0, err
    rows = {r["student"]: r for r in csv.DictReader((out / "gradebook.csv").open())}
    assert [rows["ada"][p] for p in SUITES] == ["10", "10", "10"]
    assert [rows["bob"][p] for p in SUITES] == ["0", "10", "10"]
    assert [rows["cy"][p] for p in SUITES] == ["10", "10", "0"]
    page = (out / "feedback" / "bob.html").read_text()
    assert "expected an array of booleans" in page


def test_validate_holds_for_an_assignment_of_ints_and_masks(masks, capsys):
    code, out, _ = run(capsys, "validate", "--course", str(masks), "--jobs", "1")
    assert code == 0, out
    assert "mistake mask_inverted: causal_mask 0/10, named in feedback" in out


def test_release_refuses_a_reference_that_fails_its_own_public_checks(masks, capsys):
    reference = masks / "solutions" / "masks" / "masks.py"
    reference.write_text(
        REFERENCE.replace(
            "    return np.where(mask, S, -np.inf)\n", "    S[~mask] = -np.inf\n    return S\n"
        )
    )
    code, _, err = run(capsys, "release", "--course", str(masks))
    assert code == 2 and err.count("\n") == 1
    assert "fails its own public check of masked_scores(): on three tokens:" in err
    assert "changed an input" in err
    assert not (masks / "exercises" / "masks" / "public_cases.json").exists()
