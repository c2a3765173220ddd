"""The "two plus three" example reproduces the table the course teaches."""
import json

import numpy as np

from course_content import fixture
from autograder.cli import main


def test_attention_matrix_matches_the_teaching_table_within_001(ref):
    fx = fixture.build(ref)
    assert np.abs(fx.A - fixture.TEACHING_TABLE).max() <= 0.01


def test_rows_of_the_attention_matrix_sum_to_one(ref):
    np.testing.assert_allclose(fixture.build(ref).A.sum(axis=1), 1.0)


def test_plus_attends_mostly_to_the_two_numbers_and_evenly(ref):
    A = fixture.build(ref).A
    plus = fixture.TOKENS.index("plus")
    assert A[plus, 0] + A[plus, 2] > 0.85
    assert abs(A[plus, 0] - A[plus, 2]) < 0.02
    assert A[plus, 1] < min(A[plus, 0], A[plus, 2])


def test_embeddings_start_with_the_seed_components():
    np.testing.assert_array_equal(fixture.X[:, :2], [[0.8, 0.1], [0.1, 0.9], [0.7, 0.2]])


def test_the_seed_scores_give_048_008_044_not_the_table(ref):
    w = ref.softmax(np.array([2.1, 0.3, 2.0]))
    np.testing.assert_allclose(w, [0.48, 0.08, 0.44], atol=0.006)


def test_fixture_json_has_every_matrix(capsys, course):
    assert main(["fixture", "--json", "--course", str(course.root)]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["tokens"] == ["two", "plus", "three"]
    for key in ("X", "W_q", "W_k", "W_v", "S", "A", "O"):
        assert np.array(data[key]).ndim == 2
    np.testing.assert_allclose(np.array(data["A"]).sum(axis=1), 1.0)


def test_fixture_table_names_the_tokens(capsys, course):
    assert main(["fixture", "--course", str(course.root)]) == 0
    out = capsys.readouterr().out
    assert "A = softmax(S)" in out and "plus" in out
    assert "'plus' puts 90% of its attention on the two numbers." in out
