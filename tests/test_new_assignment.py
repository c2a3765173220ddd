"""Adding an assignment is adding content: a tiny one (one function, one suite, one mistake) in a
temporary course is released, checked, graded and validated with no engine change."""

import csv

import pytest

from qkv.cli import main

COURSE_YAML = """\
name: "A tiny course"
seed: 7
assignments:
  - id: doubling
    title: "Doubling"
    source: solutions/doubling/doubling.py
    parts:
      - {id: double, function: double, points: 10}
"""

REFERENCE = '''\
"""Doubling every entry of an array."""
import numpy as np


def double(x):
    """Twice x, entry by entry.

    Args:
        x: (n,) numbers.
    """
    ### BEGIN SOLUTION
    return 2.0 * x  # (n,)
    ### END SOLUTION
'''

CONTENT = '''\
"""The doubling assignment: one function, one mistake, a one-line worked example."""
import numpy as np

from qkv.content.mistakes import Mistake

FUNCTIONS = ("double",)
MISTAKES = (Mistake("double_squares", "double", "x * x squares each entry: doubling is 2 * x.",
                    "def double(x):\\n    return x * x\\n"),)


class Example:
    def __init__(self, reference):
        self.x = np.array([1.0, 3.0, 4.0])
        self.y = reference.double(self.x)

    def as_json(self):
        return {"x": self.x.tolist(), "y": self.y.tolist()}

    def render(self):
        return f"double({self.x.tolist()}) = {self.y.tolist()}"

    def matrices(self):
        return {"y": (self.y[None, :], ("y",), ("a", "b", "c"))}


def example(reference):
    return Example(reference)


def public_cases(reference, worked):
    return {"double": [("the worked example", (worked.x,))]}
'''

SUITE = """\
import pytest

pytestmark = pytest.mark.part("double")


def test_the_worked_example(expect, fx):
    expect.same("double", fx.x, hidden=False)


def test_random_vectors(expect, rng, n_cases):
    for _ in range(n_cases):
        expect.same("double", rng.normal(size=int(rng.integers(2, 9))))
"""


@pytest.fixture
def tiny(tmp_path):
    folder = tmp_path / "solutions" / "doubling"
    (folder / "suites").mkdir(parents=True)
    (tmp_path / "course.yaml").write_text(COURSE_YAML)
    (folder / "doubling.py").write_text(REFERENCE)
    (folder / "content.py").write_text(CONTENT)
    (folder / "README.md").write_text("# {title}\n\nWrite double(x). Due: {deadline}.\n")
    (folder / "suites" / "test_double.py").write_text(SUITE)
    return tmp_path


def run(capsys, *argv):
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_release_writes_the_stub_and_the_public_checks(tiny, capsys):
    code, _, err = run(capsys, "release", "--course", str(tiny))
    assert code == 0, err
    release = tiny / "exercises" / "doubling"
    stub = (release / "doubling.py").read_text()
    assert "raise NotImplementedError()" in stub and "2.0 * x" not in stub
    assert {
        "public_checks.py",
        "compare.py",
        "public_cases.json",
        "test_doubling.py",
        "README.md",
    } <= {p.name for p in release.iterdir()}
    assert "test_double.py" not in {p.name for p in release.rglob("*")}


def test_check_passes_the_reference_and_names_the_mistake(tiny, tmp_path, capsys):
    code, out, _ = run(
        capsys, "check", str(tiny / "solutions" / "doubling" / "doubling.py"), "--course", str(tiny)
    )
    assert code == 0 and "PASS  double" in out and "1 of 1 functions pass" in out
    wrong = tmp_path / "mine" / "doubling.py"
    wrong.parent.mkdir()
    wrong.write_text(REFERENCE.replace("return 2.0 * x", "return x * x"))
    code, out, _ = run(capsys, "check", str(wrong), "--course", str(tiny))
    assert code == 1 and "FAIL  double: on the worked example: x * x squares each entry" in out


def test_grade_gives_the_reference_full_marks_and_the_mistake_none(tiny, tmp_path, capsys):
    subs = tmp_path / "subs"
    for student, body in (("ada", "return 2.0 * x"), ("bob", "return x * x")):
        (subs / student).mkdir(parents=True)
        (subs / student / "doubling.py").write_text(REFERENCE.replace("return 2.0 * x", body))
    code, _, err = run(
        capsys,
        "grade",
        str(subs),
        "--out",
        str(tmp_path / "out"),
        "--course",
        str(tiny),
        "--jobs",
        "1",
        "--quiet",
    )
    assert code == 0, err
    rows = {r["student"]: r for r in csv.DictReader((tmp_path / "out" / "gradebook.csv").open())}
    assert list(next(iter(rows.values()))) == [
        "student",
        "double",
        "total",
        "submitted_at",
        "credit",
        "final",
        "status",
    ]
    assert rows["ada"]["double"] == "10" and rows["bob"]["double"] == "0"
    page = (tmp_path / "out" / "feedback" / "bob.html").read_text()
    assert "x * x squares each entry" in page


def test_validate_holds_for_the_tiny_assignment(tiny, capsys):
    code, out, _ = run(capsys, "validate", "--course", str(tiny), "--jobs", "1")
    assert code == 0
    assert "mistake double_squares: double 0/10, named in feedback" in out
    assert "ok    trivial double negated: double 0/10" in out
    assert "ok    copied release: 0 / 10" in out
    assert "9 of 9 validations hold." in out  # with the five trivial answers and the copy


def test_fixture_prints_the_contents_own_example(tiny, capsys):
    code, out, _ = run(capsys, "fixture", "--course", str(tiny))
    assert code == 0 and out.strip() == "double([1.0, 3.0, 4.0]) = [2.0, 6.0, 8.0]"


def test_a_part_naming_a_function_the_content_lacks_is_one_line(tiny, capsys):
    text = (tiny / "course.yaml").read_text().replace("function: double", "function: dubble")
    (tiny / "course.yaml").write_text(text)
    code, _, err = run(capsys, "fixture", "--course", str(tiny))
    assert (
        code == 2 and "part function 'dubble' is not one of double (did you mean 'double'?)" in err
    )
    assert err.count("\n") == 1


def test_an_assignment_folder_without_content_py_is_one_line(tiny, capsys):
    (tiny / "solutions" / "doubling" / "content.py").unlink()
    code, _, err = run(capsys, "fixture", "--course", str(tiny))
    assert code == 2 and "content.py: not found" in err and err.count("\n") == 1
