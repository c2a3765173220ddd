"""The "two plus three" example reproduces the table the course teaches."""

import json

import numpy as np

from course_content import fixture
from qkv.cli import main


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
    assert "'plus' puts 90% of its attention on the two numbers; its output 2.25" in out
    assert "bidirectional" in out and "causal mask" in out


def _cos(a, b):
    return float(a @ b / np.linalg.norm(a) / np.linalg.norm(b))


def test_plus_ignores_itself_because_its_key_says_operator_not_because_it_is_short(ref):
    fx = fixture.build(ref)
    Q, K, _ = ref.project(*fx.inputs())
    two, plus, three = (fixture.TOKENS.index(t) for t in ("two", "plus", "three"))
    assert abs(_cos(Q[plus], K[plus])) < 0.15  # its Query and its own Key point different ways
    assert min(_cos(Q[plus], K[two]), _cos(Q[plus], K[three])) > 0.6  # and it points at the numbers
    lengths = np.linalg.norm(K, axis=1)
    assert lengths[plus] > 0.75 * min(lengths[two], lengths[three])  # its Key is not short
    assert K[plus, fixture.KEY_FEATURES.index("operator")] == np.abs(K[plus]).max()


def test_the_values_carry_the_numbers_so_plus_visibly_mixes_two_and_three(ref):
    fx = fixture.build(ref)
    _, _, V = ref.project(*fx.inputs())
    np.testing.assert_allclose(V[:, 0], [2.0, 0.0, 3.0])
    assert abs(fx.O[fixture.TOKENS.index("plus"), 0] - (0.45 * 2 + 0.45 * 3)) < 0.01


def test_features_describe_tokens_not_positions():
    assert not {"first", "second", "position", "operand"} & {
        w for f in fixture.FEATURES for w in f.split()
    }
    assert len(fixture.FEATURES) == fixture.X.shape[1]
