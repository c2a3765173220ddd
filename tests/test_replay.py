"""A test whose every call returned exactly the reference's answer passes without running again: the
grades and pages are those of running every test, for every kind of submission."""

import time

import numpy as np

from course_content import CONTENT
from qkv.content.mistakes import inputs_key
from qkv.grade.batch import grade
from qkv.suites import calls
from qkv.suites import runner as suite_runner
from qkv.validate import synthetic


def test_passing_on_the_planning_run_changes_no_grade_and_no_page(tmp_path, course, monkeypatch):
    subs = tmp_path / "subs"
    synthetic.write_class(
        CONTENT, subs
    )  # one of each kind: honest, every catalogued mistake, broken
    replayed = []
    returned_as_planned = calls.StudentCalls.returned_as_planned

    def counted(self, start, end):
        replayed.append(returned_as_planned(self, start, end))
        return replayed[-1]

    monkeypatch.setattr(calls.StudentCalls, "returned_as_planned", counted)
    grade(course, subs, assignment="attention", out=tmp_path / "replayed", jobs=1, progress=False)
    monkeypatch.setattr(calls.StudentCalls, "returned_as_planned", lambda self, start, end: False)
    grade(course, subs, assignment="attention", out=tmp_path / "run", jobs=1, progress=False)
    assert any(replayed) and not all(replayed)
    for folder in ("results", "feedback"):
        names = sorted(p.name for p in (tmp_path / "run" / folder).iterdir())
        assert names == sorted(p.name for p in (tmp_path / "replayed" / folder).iterdir())
        for name in names:
            assert (tmp_path / "run" / folder / name).read_bytes() == (
                tmp_path / "replayed" / folder / name
            ).read_bytes()


def test_planning_a_test_that_draws_nothing_once_for_all_students_changes_no_grade_and_no_page(
    tmp_path, course, monkeypatch
):
    subs = tmp_path / "subs"
    synthetic.write_class(CONTENT, subs)
    reused = []

    class Counted(dict):
        def __getitem__(self, key):
            reused.append(key)
            return super().__getitem__(key)

    class Never(dict):
        def __setitem__(self, key, value):
            pass

    real_init = suite_runner.SuiteRun.__init__

    def init_with(kind):
        def init(self, *args, **kwargs):
            real_init(self, *args, **kwargs)
            self._same_plans = kind()

        return init

    monkeypatch.setattr(suite_runner.SuiteRun, "__init__", init_with(Counted))
    grade(course, subs, assignment="attention", out=tmp_path / "kept", jobs=1, progress=False)
    monkeypatch.setattr(suite_runner.SuiteRun, "__init__", init_with(Never))
    grade(course, subs, assignment="attention", out=tmp_path / "each", jobs=1, progress=False)
    assert reused, "the worked example's tests should have been planned once and reused"
    for folder in ("results", "feedback"):
        names = sorted(p.name for p in (tmp_path / "each" / folder).iterdir())
        assert names == sorted(p.name for p in (tmp_path / "kept" / folder).iterdir())
        for name in names:
            assert (tmp_path / "each" / folder / name).read_bytes() == (
                tmp_path / "kept" / folder / name
            ).read_bytes()


def test_identical_means_bit_for_bit_with_the_same_type():
    a = np.array([[0.5, 1.0], [2.0, 3.0]])
    assert calls.identical(a, a.copy()) and calls.identical((a, a), (a.copy(), a.copy()))
    assert not calls.identical(np.array([0.0]), np.array([-0.0]))  # equal, but not the same bits
    assert not calls.identical(a, a.astype(np.float32))
    assert not calls.identical(a, a.T.copy()) and not calls.identical(a, a.reshape(4))
    assert not calls.identical((a,), a) and not calls.identical([a], (a,))
    # any value the wire carries, type for type: a float is not the int it equals
    assert calls.identical(1.0, 1.0) and not calls.identical(1.0, 1) and calls.identical(3, 3)
    assert not calls.identical(True, 1) and calls.identical({"n": [a]}, {"n": [a.copy()]})
    # what the planning pass takes as right uncompared: identical float64 values only (inf and nan too)
    odd = np.array([np.inf, -np.inf, np.nan, -0.0])
    assert calls._identical_floats((a, odd), (a.copy(), odd.copy()))
    assert not calls._identical_floats(np.arange(3), np.arange(3)) and not calls._identical_floats(
        odd, odd[::-1].copy()
    )


def test_a_memo_key_tells_apart_inputs_that_differ_in_any_bit_or_shape():

    a = np.arange(6.0)
    keys = {
        inputs_key("softmax", [a]),
        inputs_key("softmax", [a.reshape(2, 3)]),
        inputs_key("softmax", [a.reshape(3, 2)]),
        inputs_key("score", [a]),
        inputs_key("softmax", [a[:2], a[2:]]),
        inputs_key("softmax", [a[:3], a[3:]]),
        inputs_key("softmax", [np.where(a == 0, -0.0, a)]),
        inputs_key("softmax", [a, np.zeros(0)]),
    }
    assert len(keys) == 8
    assert inputs_key("softmax", [a.reshape(2, 3)]) == inputs_key(
        "softmax", [a.copy().reshape(2, 3)]
    )


def test_the_reference_memo_answers_each_input_as_the_reference_does():
    memo = calls.ReferenceMemo(CONTENT.reference, CONTENT.functions)
    rng = np.random.default_rng(7)
    S, T = rng.normal(size=(3, 4)), rng.normal(size=(4, 3))
    for args in ((S,), (T,), (S.reshape(4, 3),), (S,)):
        assert calls.identical(
            memo.softmax(*args), CONTENT.reference.softmax(*[x.copy() for x in args])
        )


def test_the_reference_memo_keeps_a_dear_result_through_many_cheap_ones(monkeypatch):
    ran = []

    class Reference:
        @staticmethod
        def train(x):
            ran.append("train")
            time.sleep(calls.DEAR * 2)
            return x + 1

        @staticmethod
        def softmax(x):
            ran.append("softmax")
            return x * 2

    memo = calls.ReferenceMemo(Reference, ("train", "softmax"))
    example = np.ones(3)
    memo.train(example)
    for i in range(calls.CHEAP_SIZE * 3):  # a class's random cases, each asked for twice
        memo.softmax(np.full(3, float(i)))
        memo.softmax(np.full(3, float(i)))
    memo.train(example)
    memo.softmax(np.zeros(3))  # the first case: long since let go
    assert ran.count("train") == 1 and ran.count("softmax") == calls.CHEAP_SIZE * 3 + 1
