"""Hidden checks for train(W_q, W_k) -> (W_q, W_k, losses): graded by what training achieves.

The student's train() runs once, from the course seed's weights (the worked example's), with its
own default steps and learning rate; every check judges that one run in the trusted process.
"""

import numpy as np
import pytest

pytestmark = pytest.mark.part("train")


def _run(expect, fx, ref, cases):
    """The student's training, made once per student and shared by the checks below."""
    value, changed = expect.call_shared("train", *fx.inputs("train"))
    if expect.recorded.get("training") is None:
        expect.record("training", cases.training_summary(ref, value, fx.W_q.shape))
    return value, changed


def _judge(expect, fx, ref, cases, value, ok: bool, message: str) -> None:
    """Fail with the catalogued mistake the run reproduces, if any, else with `message`."""
    if ok:
        return
    mistake = cases.training_mistake(ref, fx, value, expect.content.functions)
    if mistake is not None:
        expect.holds(False, mistake.message, mistake.id)
    expect.holds(False, message)


def _trained_or_fail(expect, fx, ref, cases, value):
    got = cases.trained(value, fx.W_q.shape)
    _judge(
        expect,
        fx,
        ref,
        cases,
        value,
        got is not None,
        f"train() must return (W_q, W_k, losses): two finite {fx.W_q.shape[0]} x {fx.W_q.shape[1]} arrays and "
        "the loss per step",
    )
    return got


@pytest.mark.weight(2)
def test_plus_learns_to_attend_to_the_two_numbers(expect, fx, ref, cases):
    value, _ = _run(expect, fx, ref, cases)
    W_q, W_k, _ = _trained_or_fail(expect, fx, ref, cases, value)
    _, row = ref.predict(cases.EXAMPLE, W_q, W_k)
    share = float(row[0] + row[2])
    _judge(
        expect,
        fx,
        ref,
        cases,
        value,
        share >= cases.ROW_SHARE,
        f"after training, 'plus' puts {share:.0%} of its attention on 'two' and 'three'; it should be at least "
        f"{cases.ROW_SHARE:.0%}",
    )


@pytest.mark.weight(2)
def test_two_plus_three_reads_out_five(expect, fx, ref, cases):
    value, _ = _run(expect, fx, ref, cases)
    W_q, W_k, _ = _trained_or_fail(expect, fx, ref, cases, value)
    prediction, _ = ref.predict(cases.EXAMPLE, W_q, W_k)
    _judge(
        expect,
        fx,
        ref,
        cases,
        value,
        abs(prediction - 5.0) <= cases.PREDICTION_TOLERANCE,
        f"after training, 'two plus three' reads out {prediction:.3f}; it should be 5 ± {cases.PREDICTION_TOLERANCE}",
    )


def test_sentences_it_never_saw_with_filler_words(expect, fx, ref, cases):
    value, _ = _run(expect, fx, ref, cases)
    W_q, W_k, _ = _trained_or_fail(expect, fx, ref, cases, value)
    error = cases.held_out_error(ref, W_q, W_k)
    _judge(
        expect,
        fx,
        ref,
        cases,
        value,
        error <= cases.HELD_OUT_TOLERANCE,
        f"on sentences that are not in the training set, the read-out is off by {error:.2f} on average; it "
        f"should be within {cases.HELD_OUT_TOLERANCE}",
    )


def test_the_loss_falls_from_the_starting_loss(expect, fx, ref, cases):
    value, _ = _run(expect, fx, ref, cases)
    _, _, losses = _trained_or_fail(expect, fx, ref, cases, value)
    start = ref.loss(*fx.inputs("train"))
    _judge(
        expect,
        fx,
        ref,
        cases,
        value,
        bool(np.isclose(losses[0], start, rtol=1e-6)),
        f"losses[0] is {losses[0]:.6g}, but the mean loss over the training sentences at the starting weights "
        f"is {start:.6g}: record the mean of (read-out - sum) ** 2 before each step",
    )
    _judge(
        expect,
        fx,
        ref,
        cases,
        value,
        bool(np.all(np.isfinite(losses)) and losses[-1] < cases.LOSS_DROP * start),
        f"the loss goes from {start:.4g} to {losses[-1]:.4g}; training should bring it below "
        f"{cases.LOSS_DROP:.0%} of where it started",
    )


def test_the_starting_weights_are_left_unchanged(expect, fx, ref, cases):
    _, changed = _run(expect, fx, ref, cases)
    expect.holds(not any(changed), cases.IN_PLACE.message, cases.IN_PLACE.id)
