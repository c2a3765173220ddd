"""The worked example: "two plus three" before and after training from the course seed.

The starting weights are init_weights(seed) of the reference, as when `train` is graded; the
example keeps every intermediate of one backward pass at those weights (the public cases and the
hidden suites' fixed cases use them) and what training makes of "plus"'s row and the read-out.
"""

from dataclasses import dataclass

import numpy as np

EXAMPLE = "two plus three"
FILLER_EXAMPLE = "please two plus now three"


@dataclass(frozen=True, eq=False)
class Example:
    """The example at the starting weights (every intermediate of one backward pass) and after training."""

    seed: int
    tokens: tuple[str, ...]
    W_q: np.ndarray  # (d_model, d_k) starting weights, from init_weights(seed)
    W_k: np.ndarray
    chain: dict  # name -> array: X, Q, K, V, S, A, O, dO, dA, dV, dS, dQ, dK, dW_q, dW_k, dW_v
    trained_W_q: np.ndarray
    trained_W_k: np.ndarray
    losses: np.ndarray  # (steps,)
    before: dict  # {"plus_row": [...], "prediction": x} on "two plus three"
    after: dict
    filler_before: dict  # the same on "please two plus now three"
    filler_after: dict

    def inputs(self, function: str) -> tuple:
        """The example's arguments for one function (train starts from the seed's weights)."""
        c = self.chain
        return {
            "softmax_backward": (c["A"], c["dA"]),
            "score_backward": (c["Q"], c["K"], c["dS"]),
            "aggregate_backward": (c["A"], c["V"], c["dO"]),
            "project_backward": (c["X"], c["dQ"], c["dK"], c["dV"]),
            "attend_backward": (c["X"], self.W_q, self.W_k, c["W_v"], c["dO"]),
            "train": (self.W_q, self.W_k),
        }[function]

    def as_json(self) -> dict:
        return {
            "sentence": EXAMPLE,
            "tokens": list(self.tokens),
            "seed": self.seed,
            "before": self.before,
            "after": self.after,
            "with_fillers": {
                "sentence": FILLER_EXAMPLE,
                "before": self.filler_before,
                "after": self.filler_after,
            },
            "losses": {
                "first": float(self.losses[0]),
                "last": float(self.losses[-1]),
                "steps": len(self.losses),
            },
        }

    def matrices(self) -> dict:
        """Labelled matrices the quiz may ask about: name -> (values, row labels, column labels)."""
        tokens, plus = self.tokens, ("plus",)
        return {
            "S": (self.chain["S"], tokens, tokens),
            "A": (self.chain["A"], tokens, tokens),
            "before": (np.array([self.before["plus_row"]]), plus, tokens),
            "after": (np.array([self.after["plus_row"]]), plus, tokens),
        }

    def render(self) -> str:
        """The example as text: "plus"'s row and the read-out, before and after training."""

        def share(r):
            return r["plus_row"][0] + r["plus_row"][2]

        return "\n".join(
            [
                f"Training on the arithmetic task from the course seed {self.seed} ({len(self.losses)} steps)",
                "",
                _row(
                    "Before: 'plus' attends (random W_q, W_k)", self.tokens, self.before["plus_row"]
                ),
                f"'{EXAMPLE}' reads out {self.before['prediction']:.3f} (the sum is 5); "
                f"{share(self.before):.0%} of the attention of 'plus' is on the numbers.",
                "",
                _row("After training", self.tokens, self.after["plus_row"]),
                f"'{EXAMPLE}' reads out {self.after['prediction']:.3f}; "
                f"{share(self.after):.0%} of the attention of 'plus' is on the numbers.",
                "",
                _row(
                    "With filler words, after training",
                    FILLER_EXAMPLE.split(),
                    self.filler_after["plus_row"],
                ),
                f"'{FILLER_EXAMPLE}' reads out {self.filler_after['prediction']:.3f} "
                f"(before training: {self.filler_before['prediction']:.3f}).",
                "",
                f"Mean loss over the training sentences: {self.losses[0]:.3f} before the first step, "
                f"{self.losses[-1]:.4f} before the last.",
            ]
        )


def _row(title: str, words, weights) -> str:
    cells = "".join(f"{w:>9}" for w in words)
    values = "".join(f"{x:>9.3f}" for x in weights)
    return f"{title}\n{'':<10}{cells}\n{'plus':<10}{values}"


def readout(ref, sentence: str, W_q, W_k) -> dict:
    """{"plus_row": the weights of "plus" over the sentence, "prediction": the read-out}."""
    prediction, row = ref.predict(sentence, W_q, W_k)
    return {"plus_row": [round(float(w), 6) for w in row], "prediction": round(prediction, 6)}


def _chain(ref, W_q, W_k) -> dict:
    """One forward and backward pass of the example's loss, every intermediate kept."""
    X, plus, target = ref.example(EXAMPLE)
    Q, K, V = ref.project(X, W_q, W_k, ref.value_weights())  # (3, d_k), (3, d_k), (3, 1)
    S = ref.score(Q, K)  # (3, 3)
    A = ref.softmax(S)  # (3, 3)
    O = ref.aggregate(A, V)  # (3, 1)
    dO = np.zeros_like(O)  # (3, 1): only "plus" is read out
    dO[plus] = 2 * (O[plus] @ ref.readout_weights() - target) * ref.readout_weights()
    dA, dV = ref.aggregate_backward(A, V, dO)
    dS = ref.softmax_backward(A, dA)
    dQ, dK = ref.score_backward(Q, K, dS)
    dW_q, dW_k, dW_v = ref.project_backward(X, dQ, dK, dV)
    return {
        "X": X,
        "W_v": ref.value_weights(),
        "Q": Q,
        "K": K,
        "V": V,
        "S": S,
        "A": A,
        "O": O,
        "dO": dO,
        "dA": dA,
        "dV": dV,
        "dS": dS,
        "dQ": dQ,
        "dK": dK,
        "dW_q": dW_q,
        "dW_k": dW_k,
        "dW_v": dW_v,
    }


def build(ref, seed: int) -> Example:
    """The example for this reference and course seed (trains the reference once)."""
    W_q, W_k = ref.init_weights(seed)
    trained_q, trained_k, losses = ref.train(W_q, W_k)
    return Example(
        seed,
        tuple(EXAMPLE.split()),
        W_q,
        W_k,
        _chain(ref, W_q, W_k),
        trained_q,
        trained_k,
        np.asarray(losses),
        readout(ref, EXAMPLE, W_q, W_k),
        readout(ref, EXAMPLE, trained_q, trained_k),
        readout(ref, FILLER_EXAMPLE, W_q, W_k),
        readout(ref, FILLER_EXAMPLE, trained_q, trained_k),
    )
