"""The masked assignment's content in the trusted process: its example tells the causal story, its
honest variants agree with the reference, every catalogued mistake differs from it on the
content's own cases, and its quiz computes each student's answers."""

import numpy as np
import pytest
from tests.conftest import ROOT

from qkv.content import loader
from qkv.course.config import load_course
from qkv.quiz import master

ENTRY = """
  - id: masked
    title: "Scaled, masked, multi-head attention"
    source: solutions/masked/masked.py
    deadline: "2027-02-15T23:59:00+00:00"
    quiz: solutions/masked/quiz.yaml
    quiz_points: 20
    notebook: solutions/masked/notebook.md
    parts:
      - {id: scaled_score, function: scaled_score, points: 10}
      - {id: causal_mask, function: causal_mask, points: 10}
      - {id: padding_mask, function: padding_mask, points: 10}
      - {id: masked_softmax, function: masked_softmax, points: 20}
      - {id: split_heads, function: split_heads, points: 10}
      - {id: merge_heads, function: merge_heads, points: 10}
      - {id: multi_head_attend, function: multi_head_attend, points: 30}
"""


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    """The repository's course, with the masked assignment in it."""
    folder = tmp_path_factory.mktemp("course")
    (folder / "solutions").symlink_to(ROOT / "solutions")
    text = (ROOT / "course.yaml").read_text()
    if "id: masked" not in text:
        text += ENTRY
    (folder / "course.yaml").write_text(text)
    return load_course(folder / "course.yaml")


@pytest.fixture(scope="module")
def content(course):
    return loader.load(course, course.assignment("masked"))


def _copies(args):
    return [np.copy(a) if isinstance(a, np.ndarray) else a for a in args]


@pytest.fixture(scope="module")
def trusted_cases(content):
    """The public cases and five draws of mutant_inputs, by function."""
    got = {f: [a for _, a in cases] for f, cases in content.public_cases().items()}
    rng = np.random.default_rng(7)
    for _ in range(5):
        for f, args in content.module.mutant_inputs(rng).items():
            got[f].append(args)
    return got


def _same(a, b) -> bool:
    a, b = (x if isinstance(x, tuple) else (x,) for x in (a, b))
    return len(a) == len(b) and all(
        np.shape(x) == np.shape(y) and np.allclose(x, y, rtol=1e-9, atol=1e-12)
        for x, y in zip(a, b)
    )


def test_the_example_is_causal_with_a_head_for_numbers_and_one_for_the_operator(content):
    fx = content.example
    t = fx.tokens
    plus, three, equals = t.index("plus"), t.index("three"), t.index("equals")
    assert np.all(np.triu(fx.A, k=1) == 0) and fx.A_both_ways[0, plus, three] > 0.4
    assert fx.A[0, equals, t.index("two")] > 0.45 and fx.A[0, equals, three] > 0.45
    assert fx.A[1, equals, plus] > 0.9
    assert abs(fx.O[equals, 0] - 5) < 0.1 and abs(fx.O[plus, 0] - 4) < 0.1
    assert "'plus' cannot see 'three'" in fx.render()


def test_sizes_are_ints_and_masks_booleans_in_every_case(trusted_cases):
    for n in [args[0] for args in trusted_cases["causal_mask"]]:
        assert type(n) is int
    for args in trusted_cases["masked_softmax"]:
        assert args[1].dtype == bool and args[1].shape == args[0].shape
    for args in trusted_cases["multi_head_attend"]:
        assert type(args[5]) is int


def test_the_honest_variants_agree_with_the_reference(content, trusted_cases):
    ref = content.reference
    for name, variant in content.honest_variants.items():
        for function, source in variant.items():
            namespace = {"np": np, **{f: getattr(ref, f) for f in content.functions}}
            exec(source, namespace)
            for args in trusted_cases[function]:
                want = getattr(ref, function)(*_copies(args))
                assert _same(namespace[function](*_copies(args)), want), (name, function)


def test_every_catalogued_mistake_differs_from_the_reference(content, trusted_cases):
    ref = content.reference
    assert len(content.catalogue) >= 30
    for mistake in content.catalogue:
        wrong = mistake.function(ref, content.functions)
        differs = False
        for args in trusted_cases[mistake.part]:
            given = _copies(args)
            want = getattr(ref, mistake.part)(*_copies(args))
            try:
                with np.errstate(all="ignore"):
                    got = wrong(*given)
            except Exception:
                differs = True
                continue
            changed = any(
                isinstance(a, np.ndarray) and not np.array_equal(a, g, equal_nan=True)
                for a, g in zip(args, given)
            )
            differs |= changed or not _same(got, want)
        assert differs, mistake.id


def test_the_quiz_computes_answers_per_student(course):
    quiz = master.load_quiz(course, course.assignment("masked"))
    ids = [q.id for q in quiz.questions]
    assert len(ids) == 10 and "scaled-score" in ids and "causal-row" in ids
