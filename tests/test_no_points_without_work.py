"""No points without the work: trivial answers, copied releases, looked-up answers and faked
trainings earn 0 in the parts they fake, graded beside honest students who keep every point."""

import json

import pytest

from no_work import ATTENTION, TRAINING, TRAINING_EDITS, edited
from qkv.content import loader
from qkv.course import layout
from qkv.grade.batch import grade
from qkv.results import records as results
from qkv.validate import fakes, synthetic


def _class(course, assignment_id: str):
    """student -> (source, parts it fakes, or None for an honest student)."""
    assignment = course.assignment(assignment_id)
    content = loader.load(course, assignment)
    source = content.reference_source
    parts = {p.function: p.id for p in assignment.parts}
    subs = {"honest_reference": (source, None)}
    for variant, functions in content.honest_variants.items():
        subs[f"honest_{variant}"] = (synthetic._splice(source, functions), None)
    for kind, (function, trivial) in fakes.kinds(content.functions).items():
        subs[kind] = (fakes.trivial(source, function, trivial), (parts[function],))
    cases = json.loads((layout.release_dir(course, assignment) / layout.CASES_FILE).read_text())
    subs["copied_release"] = (
        fakes.copied_release(source, content.functions, cases),
        tuple(parts.values()),
    )
    written = ATTENTION if assignment_id == "attention" else TRAINING
    for name, (faked, functions) in written.items():
        subs[f"written_{name}"] = (synthetic._splice(source, functions), faked)
    if assignment_id == "training":
        for name, (faked, edits) in TRAINING_EDITS.items():
            subs[f"written_{name}"] = (edited(source, edits), faked)
    return assignment, subs


def _graded(course, tmp_path_factory, assignment_id: str):
    assignment, subs = _class(course, assignment_id)
    root = tmp_path_factory.mktemp(f"no_work_{assignment_id}")
    for student, (text, _) in subs.items():
        (root / "subs" / student).mkdir(parents=True)
        (root / "subs" / student / layout.code_file(assignment)).write_text(text)
    grade(course, root / "subs", assignment=assignment_id, out=root / "out", jobs=1, progress=False)
    read = {s: results.read(results.path_for(root / "out", s)) for s in subs}
    return assignment, subs, read


@pytest.fixture(scope="module")
def attention(course, tmp_path_factory):
    return _graded(course, tmp_path_factory, "attention")


@pytest.fixture(scope="module")
def training(course, tmp_path_factory):
    return _graded(course, tmp_path_factory, "training")


def _check(graded):
    assignment, subs, read = graded
    parts = [p.id for p in assignment.parts]
    for student, (_, faked) in subs.items():
        r = read[student]
        if faked is None:
            assert [r.part_score(p) for p in parts] == [r.part_max(p) for p in parts], student
        else:
            for part in faked:
                earned = [(t.name, t.output) for t in r.tests if t.part == part and t.score > 0]
                assert earned == [], (student, earned)


def test_fakes_earn_nothing_in_the_parts_they_fake_beside_honest_attention(attention):
    _check(attention)


def test_fakes_earn_nothing_in_the_parts_they_fake_beside_honest_training(training):
    _check(training)


def test_the_copied_release_is_told_why_its_worked_example_does_not_count(attention):
    _, _, read = attention
    example = next(
        t
        for t in read["copied_release"].tests
        if t.part == "project" and "two plus three" in t.name
    )
    assert example.score == 0
    assert "cases the release does not show" in example.output


def test_a_property_held_by_wrong_values_says_it_counts_only_with_right_values(training):
    _, _, read = training
    rows = next(
        t
        for t in read["trivial_softmax_backward_zeros"].tests
        if t.name.endswith("each row of ds sums to zero")
    )
    assert rows.score == 0
    assert "counts only with right values" in rows.output


def test_a_training_a_step_short_is_told_it_returned_a_loss_too_few(training):
    _, _, read = training
    first = next(t for t in read["written_train_a_step_fewer"].tests if t.part == "train")
    assert "399 losses for 400 steps" in first.output


@pytest.mark.parametrize("graded", ["attention", "training"])
def test_every_negated_answer_is_told_about_its_sign(graded, request):
    assignment, subs, read = request.getfixturevalue(graded)
    for student in subs:
        if student.startswith("trivial_") and student.endswith("_negated"):
            function = student.removeprefix("trivial_").removesuffix("_negated")
            part = next(p.id for p in assignment.parts if p.function == function)
            told = [t.output for t in read[student].tests if t.part == part and t.score == 0]
            assert any("sign" in text for text in told), (student, told)
