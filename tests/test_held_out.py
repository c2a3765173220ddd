"""Wrong code the catalogue does not hold as written loses points in its part and is named there;
correct code written another way keeps full marks; `qkv check` and `qkv grade` agree on which
functions are right."""

import pytest

from course_content import CATALOGUE, CONTENT
from held_out import HELD_OUT
from qkv.check import run as check
from qkv.grade.batch import grade
from qkv.results import records as results
from qkv.validate import synthetic

PARTS = ("project", "score", "softmax", "aggregate", "attend")


STUDENTS = 5  # students handing in each variant: each draws cases of their own, and every one must be judged alike


def _ids(name: str) -> list[str]:
    return synthetic.students(name, STUDENTS)


def _sources():
    source = CONTENT.reference_source
    subs = {
        student: synthetic._splice(source, fs)
        for k, (_, fs, _) in HELD_OUT.items()
        for student in _ids(f"held_{k}")
    }
    subs.update(
        {
            student: synthetic._splice(source, fs)
            for v, fs in CONTENT.honest_variants.items()
            for student in _ids(f"honest_{v}")
        }
    )
    return subs


SOURCES = _sources()


@pytest.fixture(scope="module")
def graded(tmp_path_factory, course):
    root = tmp_path_factory.mktemp("held_out")
    for student, text in SOURCES.items():
        (root / "subs" / student).mkdir(parents=True)
        (root / "subs" / student / "attention.py").write_text(text)
    grade(course, root / "subs", assignment="attention", out=root / "out", jobs=2, progress=False)
    return lambda student: results.read(results.path_for(root / "out", student))


def _named(test, expected: str) -> bool:
    if expected in {m.id for m in CATALOGUE}:
        return test.mistake == expected and CATALOGUE.by_id(expected).message in test.output
    return expected in test.output


@pytest.mark.parametrize("held", sorted(HELD_OUT))
def test_held_out_wrong_code_loses_points_in_its_part_and_is_named(graded, held):
    """For every student who hands it in, whatever cases they draw."""
    part, _, expected = HELD_OUT[held]
    for student in _ids(f"held_{held}"):
        r = graded(student)
        assert r.part_score(part) < r.part_max(part), student
        assert any(_named(t, expected) for t in r.tests if t.part == part), (
            student,
            [t.output for t in r.tests if t.part == part],
        )
        assert all(r.part_score(p) == r.part_max(p) for p in PARTS if p not in (part, "attend")), (
            student
        )


@pytest.mark.parametrize("variant", sorted(CONTENT.honest_variants))
def test_correct_code_written_another_way_keeps_full_marks(graded, variant):
    for student in _ids(f"honest_{variant}"):
        r = graded(student)
        assert [r.part_score(p) for p in PARTS] == [r.part_max(p) for p in PARTS], (
            student,
            [t.output for t in r.tests if t.outcome != "passed"],
        )


@pytest.mark.parametrize(
    "student",
    [
        "held_min_shift_np",
        "held_global_max_np",
        "held_matmul_no_transpose",
        "honest_lists",
        "honest_loops",
        "held_axis1_sum",
    ],
)
def test_check_and_grade_agree_on_which_functions_are_right(
    tmp_path, graded, course, assignment, student
):
    path = tmp_path / "attention.py"
    path.write_text(SOURCES[student])
    passing = {
        line.function for line in check.check_file(course, assignment, path) if line.status == "ok"
    }
    r = graded(student)
    full = {p for p in PARTS if r.part_score(p) == r.part_max(p)}
    assert passing == full
