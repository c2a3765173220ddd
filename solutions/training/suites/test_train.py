"""Hidden checks for train(W_q, W_k) -> (W_q, W_k, losses): judged by its whole trajectory.

The student's train() runs from the course seed's weights (the worked example's) and from starting
weights drawn for the student, each once, with its own default steps and learning rate. Every check
counts only when both runs follow the reference's step by step (one loss per step, each within the
course's tolerance, and the weights those steps reach): a made-up loss curve, a step fewer or W_v
trained too earns nothing, and neither does a run copied from the release.
"""

import numpy as np
import pytest

pytestmark = pytest.mark.part("train")


def _run(expect, fx, ref, cases):
    """The student's training from the seed's weights, made once per student and shared."""
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


def _trained_or_fail(expect, fx, ref, cases, rng, value):
    """(W_q, W_k, losses) of the seed's run, once both runs are found to follow the reference's."""
    got = cases.trained(value, fx.W_q.shape)
    _judge(
        expect,
        fx,
        ref,
        cases,
        value,
        got is not None,
        f"train() must return (W_q, W_k, losses): two finite {fx.W_q.shape[0]} x "
        f"{fx.W_q.shape[1]} arrays and the loss per step",
    )
    tolerance = {"rtol": expect.rtol, "atol": expect.atol}
    msg = cases.trajectory_problem(got, expect.expected("train", *fx.inputs("train")), **tolerance)
    _judge(expect, fx, ref, cases, value, msg is None, f"from the course seed's weights, {msg}")
    start = expect.drawn_once("train start", lambda: cases.other_start(rng, ref, fx.seed))
    other, _ = expect.call_shared("train", *start)
    mine = cases.trained(other, fx.W_q.shape)
    msg = (
        "train() did not return (W_q, W_k, losses)"
        if mine is None
        else cases.trajectory_problem(mine, expect.expected("train", *start), **tolerance)
    )
    expect.holds(
        msg is None,
        "from the course seed's weights your training follows the reference's, but from other "
        f"starting weights (not in the release) {msg}: train() must train whatever W_q and W_k "
        "it is given",
    )
    expect.accept("train", other, start)
    return got


@pytest.mark.weight(2)
def test_plus_learns_to_attend_to_the_two_numbers(expect, fx, ref, cases, rng):
    value, _ = _run(expect, fx, ref, cases)
    W_q, W_k, _ = _trained_or_fail(expect, fx, ref, cases, rng, value)
    _, row = ref.predict(cases.EXAMPLE, W_q, W_k)
    share = float(row[0] + row[2])
    _judge(
        expect,
        fx,
        ref,
        cases,
        value,
        share >= cases.ROW_SHARE,
        f"after training, 'plus' puts {share:.0%} of its attention on 'two' and 'three'; it "
        f"should be at least {cases.ROW_SHARE:.0%}",
    )


@pytest.mark.weight(2)
def test_two_plus_three_reads_out_five(expect, fx, ref, cases, rng):
    value, _ = _run(expect, fx, ref, cases)
    W_q, W_k, _ = _trained_or_fail(expect, fx, ref, cases, rng, value)
    prediction, _ = ref.predict(cases.EXAMPLE, W_q, W_k)
    _judge(
        expect,
        fx,
        ref,
        cases,
        value,
        abs(prediction - 5.0) <= cases.PREDICTION_TOLERANCE,
        f"after training, 'two plus three' reads out {prediction:.3f}; it should be 5 ± "
        f"{cases.PREDICTION_TOLERANCE}",
    )


def test_sentences_it_never_saw_with_filler_words(expect, fx, ref, cases, rng):
    value, _ = _run(expect, fx, ref, cases)
    W_q, W_k, _ = _trained_or_fail(expect, fx, ref, cases, rng, value)
    error = cases.held_out_error(ref, W_q, W_k)
    _judge(
        expect,
        fx,
        ref,
        cases,
        value,
        error <= cases.HELD_OUT_TOLERANCE,
        f"on sentences that are not in the training set, the read-out is off by {error:.2f} on "
        f"average; it should be within {cases.HELD_OUT_TOLERANCE}",
    )


def test_the_loss_falls_from_the_starting_loss(expect, fx, ref, cases, rng):
    value, _ = _run(expect, fx, ref, cases)
    _, _, losses = _trained_or_fail(expect, fx, ref, cases, rng, value)
    start = ref.loss(*fx.inputs("train"))
    _judge(
        expect,
        fx,
        ref,
        cases,
        value,
        bool(np.isclose(losses[0], start, rtol=1e-6)),
        f"losses[0] is {losses[0]:.6g}, but the mean loss over the training sentences at the "
        f"starting weights is {start:.6g}: record the mean of (read-out - sum) ** 2 before each "
        "step",
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


def test_the_starting_weights_are_left_unchanged(expect, fx, ref, cases, rng):
    value, changed = _run(expect, fx, ref, cases)
    expect.holds(not any(changed), cases.IN_PLACE.message, cases.IN_PLACE.id)
    _trained_or_fail(expect, fx, ref, cases, rng, value)
