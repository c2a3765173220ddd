"""How long one student's train() takes in the sandbox: the reference's training, from the course seed.

Loads solutions/training/training.py (or the training.py given) as a submission in a sandbox with
the course's limits, calls train() from the course seed's weights (as the hidden suite does) several
times, and prints the wall time of each call and the limit of one call of train() (the train part's
timeout_s in course.yaml): what to weigh when setting it.

    OPENBLAS_NUM_THREADS=1 python scripts/time_training.py [--repeat N] [training.py]
"""

from __future__ import annotations

import argparse
import importlib.util
import statistics
import time
from pathlib import Path

from qkv.course.config import load_course
from qkv.sandbox.host import Sandbox, layers

ROOT = Path(__file__).resolve().parent.parent
SOURCE = ROOT / "solutions" / "training" / "training.py"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument(
        "source",
        nargs="?",
        type=Path,
        default=SOURCE,
        help="a training.py to time (the reference's)",
    )
    args = parser.parse_args()
    course = load_course(ROOT / "course.yaml")
    timeouts = course.assignment("training").call_timeouts()
    spec = importlib.util.spec_from_file_location("training_reference", SOURCE)
    ref = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(ref)
    W_q, W_k = ref.init_weights(course.seed)
    times = []
    with (
        Sandbox(course.limits, packages=course.packages) as sandbox,
        sandbox.open(
            {"training.py": args.source.read_bytes()}, entry="training.py", timeouts=timeouts
        ) as session,
    ):
        assert session.load.ok, session.load.message
        for _ in range(args.repeat):
            start = time.perf_counter()
            result = session.call("train", [W_q, W_k])
            times.append(time.perf_counter() - start)
            assert result.kind == "returned", result.message
    _, row = ref.predict("two plus three", result.value[0], result.value[1])
    print(
        f"train() of {args.source.name} in the sandbox, {len(result.value[2])} steps from the course seed "
        f"{course.seed}: median {statistics.median(times):.3f} s, min {min(times):.3f} s, max {max(times):.3f} s "
        f"over {len(times)} calls (limit per call: {timeouts.get('train', course.limits.call_timeout_s):g} s)"
    )
    print(
        f"'plus' row after training: {[round(float(w), 3) for w in row]}; isolation: {layers().describe()}"
    )


if __name__ == "__main__":
    main()
