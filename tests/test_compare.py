"""compare.same and its shortcuts decide exactly what the full element-wise comparison decides."""

import collections
import itertools

import numpy as np
import pytest

from course_content import CATALOGUE, CONTENT
from qkv.sandbox import wire
from qkv.shipped import compare

SPECIAL = [0.0, -0.0, 1.0, 1.0 + 1e-9, 1.001, -1.0, np.inf, -np.inf, np.nan, 1e308, -1e308, 5e-324]


def test_all_close_is_close_all_for_every_pair_of_special_values():
    for (a, b), (c, d) in itertools.product(itertools.product(SPECIAL, repeat=2), repeat=2):
        x, y = np.array([a, c]), np.array([b, d])
        for rtol, atol in ((1e-6, 1e-8), (0.0, 0.0), (1e-3, 0.0)):
            with np.errstate(all="ignore"):
                assert compare._all_close(x, y, rtol, atol) == bool(
                    compare.close(x, y, rtol, atol).all()
                ), (x, y)


def test_same_is_what_problem_returns_none_for():
    rng = np.random.default_rng(7)
    base = rng.normal(size=(3, 4))
    candidates = [
        base,
        base + 1e-12,
        base * 1.01,
        base.T,
        base.tolist(),
        (base, base),
        [base, base],
        None,
        "x",
        np.where(base > 0, np.nan, base),
        np.full((3, 4), np.inf),
    ]
    for actual in candidates:
        for expected in (base, (base, base), np.where(base > 0, np.nan, base)):
            assert compare.same(actual, expected, 1e-6, 1e-8) == (
                compare.problem(actual, expected, rtol=1e-6, atol=1e-8) is None
            ), (actual, expected)


def test_all_close_first_entry_shortcut_agrees_with_close_on_random_arrays():
    """Out-of-tolerance first entries (which the shortcut settles), first entries just inside or on the
    boundary, special values anywhere, 0-d and empty arrays: the same answer as close().all()."""
    rng = np.random.default_rng(11)
    shapes = [(), (0,), (1,), (5,), (3, 4), (2, 0)]
    for trial in range(3000):
        shape = shapes[trial % len(shapes)]
        b = rng.normal(size=shape) * 10.0 ** rng.integers(-3, 4)
        scale = [0.0, 1e-12, 1e-7, 1e-6, 1e-3, 1.0][rng.integers(0, 6)]
        a = b + rng.normal(size=shape) * scale * np.abs(b)
        if a.size and rng.random() < 0.3:
            flat = a.reshape(-1)
            flat[rng.integers(0, a.size)] = rng.choice([np.nan, np.inf, -np.inf, 1e308])
        if a.size and rng.random() < 0.2:
            a.reshape(-1)[0] = (
                b.reshape(-1)[0] * (1 + 1e-6) + 1e-8
            )  # on the boundary of the tolerance
        for rtol, atol in ((1e-6, 1e-8), (0.0, 0.0), (1e-3, 1e-12)):
            with np.errstate(all="ignore"):
                assert compare._all_close(a, b, rtol, atol) == bool(
                    compare.close(a, b, rtol, atol).all()
                ), (a, b)


def _same_as_specified(a, b, rtol, atol):
    """same() as it is specified: a list of values stands for a tuple, a list or tuple of rows for the
    array it spells; tuples match item by item, arrays by shape and close(); None and strings
    exactly."""
    if b is None or isinstance(b, str):
        return type(a) is type(b) and a == b
    if isinstance(a, list) and isinstance(b, tuple):
        a = tuple(a)
    elif isinstance(a, (tuple, list)) and not isinstance(b, tuple):
        a = compare.as_array(a)
    if isinstance(a, tuple) or isinstance(b, tuple):
        return (
            isinstance(a, tuple)
            and isinstance(b, tuple)
            and len(a) == len(b)
            and all(_same_as_specified(x, y, rtol, atol) for x, y in zip(a, b))
        )
    a, b = compare.as_array(a), compare.as_array(b)
    return (
        a is not None
        and b is not None
        and a.shape == b.shape
        and bool(compare.close(a, b, rtol, atol).all())
    )


def test_problem_names_the_same_variant_whatever_the_values_shape():
    """problem() compares the student's value with each variant through one _Against, which must decide
    as same() is specified, asked once or many times: arrays, lists of numbers, tuples, lists of
    arrays, named tuples, None, strings and odd shapes."""
    rng = np.random.default_rng(5)
    base = rng.normal(size=(3, 4))
    pair = collections.namedtuple("pair", "O A")
    values = [
        base,
        base + 1e-12,
        base * 2,
        base.T,
        base.tolist(),
        (base, base),
        [base, base],
        (base,),
        None,
        "x",
        np.float32(1.0),
        base.astype(np.float32),
        base[None],
        (base, base * 2),
        [base.tolist(), base],
        np.where(base > 0, np.nan, base),
        (base, (base, base)),
        np.array(3.0),
        [],
        pair(base, base),
    ]
    for actual in values:
        against = compare._Against(actual, 1e-6, 1e-8)
        for other in values:
            with np.errstate(all="ignore"):
                expected = _same_as_specified(actual, other, 1e-6, 1e-8)
            assert against.same(other) == expected, (actual, other)
            assert compare.same(actual, other, 1e-6, 1e-8) == expected, (actual, other)


def test_an_object_that_crossed_from_a_sandbox_is_named_by_its_type():
    """Only a returned object's type name leaves the sandbox: the message names that type."""

    expected = (np.zeros(2), np.zeros(2), np.zeros(2))
    crossed, _ = wire.decode_value(wire.encode_value(map(abs, []), []), b"")
    assert compare.problem(crossed, expected, rtol=1e-6, atol=1e-8, names=("Q", "K", "V")) == (
        "returned map, expected a tuple (Q, K, V)"
    )
    assert compare.problem(map(abs, []), expected, rtol=1e-6, atol=1e-8, names=("Q", "K", "V")) == (
        "returned map, expected a tuple (Q, K, V)"
    )


def test_a_list_that_spells_no_array_is_told_as_a_list_not_as_none():
    expected = np.zeros((2, 2))
    deep = wire.decode_value(wire.encode_value([[[[[[[[[[1.0]]]]]]]]]], []), b"")[0]
    for odd in ([["a", "b"], ["c", "d"]], [[0.0], [0.0, 1.0]], deep):
        assert compare.problem(odd, expected, rtol=1e-6, atol=1e-8) == (
            "the result is list, expected an array of shape (2, 2)"
        )


def test_an_array_past_the_values_cap_crosses_as_its_name_without_being_copied():
    """A broadcast of 10^9 entries takes no memory until its bytes are taken: refused before."""
    arrays: list = []
    lazy = np.broadcast_to(True, (10**9,))
    tree = wire.encode_value(lazy, arrays)
    assert tree == ["o", "bool array of 954 MiB (too large to send)"] and arrays == []
    tree = wire.encode_value(np.broadcast_to(1.0, (10**9,)), arrays)
    assert tree == ["o", "float64 array of 7629 MiB (too large to send)"] and arrays == []
    each = np.zeros(wire.MAX_VALUES // 8 // 3)  # three fit in the cap, a fourth does not
    tree = wire.encode_value((each, each, each, each), arrays)
    assert [type(t) for t in tree[1:4]] == [list] * 3 and tree[4][0] == "o" and len(arrays) == 3
    crossed, _ = wire.decode_value(wire.encode_value(lazy, []), b"")
    assert compare.problem(crossed, np.ones((2, 2), bool), rtol=1e-6, atol=1e-8) == (
        "the result is bool array of 954 MiB (too large to send), expected an array of "
        "booleans (dtype bool) of shape (2, 2)"
    )
    with pytest.raises(TypeError, match="too large to send"):
        wire.encode_value(np.broadcast_to(0.0, (10**8,)), [], strict=True)


@pytest.mark.parametrize(
    "function, wrong, args",
    [
        # (n_q=2, n_k=3), (n_k=3, d_v=4): both fail in matmul, with other sizes than A.T @ V
        ("aggregate", lambda A, V: V @ A, (np.full((2, 3), 1 / 3), np.ones((3, 4)))),
        # (n_q=2, d_k=4), (n_k=3, d_k=4): Q.T @ K fails, but not as Q @ K does
        ("score", lambda Q, K: Q.T @ K, (np.ones((2, 4)), np.ones((3, 4)))),
    ],
)
def test_an_error_is_named_only_by_the_mistake_that_raises_exactly_it(function, wrong, args):
    try:
        wrong(*args)
    except ValueError as e:
        said = f"raised ValueError: {e} (line 2 in {function})"
    crashes = CATALOGUE.crashes(CONTENT.reference, function, args)
    assert crashes, "some catalogued mistake raises on these inputs"
    assert compare.crash_problem(said, crashes) is None
    signature = crashes[0][1]
    assert compare.crash_problem(f"raised {signature} (line 2)", crashes[:1]) == crashes[0][0]
    assert compare.crash_problem(f"raised {signature}", [crashes[0], ("other", signature)]) is None


MASK = np.tril(np.ones((3, 3), dtype=bool))


@pytest.mark.parametrize(
    "actual, expected, wanted",
    [
        (MASK.copy(), MASK, None),
        (MASK.astype(float), MASK, "is an array of float64, expected an array of booleans"),
        (~MASK, MASK, "differ"),
        (MASK.T, MASK, "differ"),
        (MASK.tolist(), MASK, None),
        (np.arange(4), np.arange(4), None),
        (np.arange(4).astype(np.int32), np.arange(4), None),
        (np.arange(4) + 0.0, np.arange(4), "expected an array of integers"),
        (np.arange(4) + 1, np.arange(4), "differ"),
        (3, 3, None),
        (np.int64(3), 3, None),
        (3.0, 3, "is float, expected an int"),
        (True, 3, "is bool, expected an int"),
        (4, 3, "is 4"),
        (True, True, None),
        (np.bool_(False), False, None),
        (1, True, "expected a bool"),
        (None, None, None),
        ("x", "x", None),
        ("y", "x", "'y'"),
        ({"n": 2, "mask": MASK}, {"n": 2, "mask": MASK}, None),
        ({"n": 2}, {"n": 2, "mask": MASK}, "lacks the key 'mask'"),
        (
            {"n": 2, "mask": ~MASK},
            {"n": 2, "mask": MASK},
            "the result['mask'][0, 0] is False, expected True",
        ),
        ([1, [True]], [1, [True]], None),
        ((MASK, 2), (MASK, 2), None),
        ((MASK, 2.0), (MASK, 2), "item 1 is float, expected an int"),
        (0.5 + 1e-12, 0.5, None),
    ],
)
def test_exact_values_compare_exactly_and_floats_within_tolerance(actual, expected, wanted):
    """Bool and int arrays, ints, bools, None and strings compare exactly (a mask must be a mask);
    floats within the tolerance; containers item by item. With the message saying what differs."""
    msg = compare.problem(actual, expected, rtol=1e-6, atol=1e-9)
    assert (msg is None) == (wanted is None), msg
    if wanted:
        assert wanted in msg, msg
    assert compare.same(actual, expected, 1e-6, 1e-9) == (wanted is None)


def test_copies_and_identity_keep_types():
    value = {"mask": MASK, "n": 2, "rows": [np.arange(3), (1.5, None)]}
    copied = compare.copy_value(value)
    assert compare.identical(copied, value)
    copied["rows"][0][0] = 7
    assert not compare.identical(copied, value) and value["rows"][0][0] == 0
    assert not compare.identical(1, 1.0) and not compare.identical(MASK, MASK.astype(np.uint8))
    assert compare.identical(float("nan"), float("nan"))


def test_close_agrees_with_numpy_isclose_on_every_pair_of_special_values():
    """An infinity is close only to itself: -1e9 where -inf is expected is a wrong value."""
    a, b = np.array(SPECIAL)[:, None], np.array(SPECIAL)[None, :]
    a, b = np.broadcast_arrays(a, b)
    with np.errstate(all="ignore"):
        assert np.array_equal(
            compare.close(a, b, 1e-6, 1e-8), np.isclose(a, b, 1e-6, 1e-8, equal_nan=True)
        )
    assert compare.problem(np.array([-1e9, 0.0]), np.array([-np.inf, 0.0]), rtol=1e-6, atol=1e-9)


def _softmax_shifted_by(shift):
    def softmax(S):
        with np.errstate(all="ignore"):
            e = np.exp(S - shift(S))
            return e / e.sum(axis=-1, keepdims=True)

    return softmax


@pytest.mark.parametrize("seed", range(20))
def test_a_shift_is_named_only_when_its_rows_fail_as_the_named_mistakes_do(seed):
    """Shifting each row by its largest |score| underflows the rows near -1000 as the whole
    matrix's maximum does, but not the ordinary rows: it must not be told it used the whole matrix,
    while the whole matrix's maximum itself still is."""
    S = CONTENT.cases.large_scores(np.random.default_rng(seed))
    expected = CONTENT.reference.softmax(S)
    variants = list(CATALOGUE.variants(CONTENT.reference, "softmax", (S,)))
    global_max = next(m for m in CATALOGUE.for_part("softmax") if m.id == "softmax_global_max")

    def told(softmax):
        return compare.problem(softmax(S), expected, rtol=1e-6, atol=1e-8, variants=variants)

    assert told(_softmax_shifted_by(lambda S: S.max())).startswith(global_max.message)
    said = told(_softmax_shifted_by(lambda S: np.abs(S).max(axis=-1, keepdims=True)))
    assert said is not None and CATALOGUE.id_of("softmax", said) is None, said
