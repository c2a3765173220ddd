"""What one student's sandboxed child costs: CPU (user and system) and page faults per submission.

Grades nothing: opens, loads, calls and closes the reference solution in the sandbox, as the grader
does for each student (a spawn without waiting, a batch of calls, a close that is reaped later).
The children's CPU is counted once their Sandbox is closed (RUSAGE_CHILDREN counts only reaped
processes), so each run takes a whole Sandbox lifetime and subtracts one with no submission at
all (starting the zygote, importing numpy): what remains is per child, zygote side included.
Run from the repository root with OPENBLAS_NUM_THREADS=1; on a busy machine prefer the CPU figures.

    python scripts/bench_sandbox.py [--cycles 300] [--calls 20] [--repeat 5]
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402 - found through the path above

from qkv.course.config import load_course  # noqa: E402 - found through the path above
from qkv.sandbox.host import Sandbox, layers  # noqa: E402 - found through the path above


def _usage():
    own, kids = (resource.getrusage(w) for w in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN))
    return (
        time.perf_counter(),
        own.ru_utime + own.ru_stime,
        kids.ru_utime,
        kids.ru_stime,
        kids.ru_minflt,
    )


def lifetime(course, files: dict, cycles: int, calls: int) -> tuple:
    """(wall, own CPU, children's user, children's system, children's minor faults) of one Sandbox."""
    rng = np.random.default_rng(0)
    x, w, s = rng.random((3, 4)), rng.random((4, 4)), rng.random((3, 3))
    mix = [
        ("project", [x, w, w, w]),
        ("score", [x, x]),
        ("softmax", [s]),
        ("aggregate", [s, x]),
        ("attend", [x, w, w, w]),
    ]  # every function of the reference, as a suite calls them
    batch = [mix[i % len(mix)] for i in range(calls)]
    before = _usage()
    sandbox = Sandbox(course.limits, packages=course.packages)
    try:
        sandbox._started()
        for _ in range(cycles):
            session = sandbox.open(files, entry="attention.py", wait=False)
            if not session.load.ok:
                raise SystemExit(f"the reference did not load: {session.load}")
            if calls:
                session.call_many(batch, stream=False)
            session.close(wait=False)
    finally:
        sandbox.close()
    return tuple(b - a for a, b in zip(before, _usage()))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cycles", type=int, default=300)
    parser.add_argument("--calls", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args(argv)
    os.chdir(ROOT)
    course = load_course(Path("course.yaml"))
    files = {"attention.py": Path("solutions/attention/attention.py").read_bytes()}
    print(
        f"isolation: {layers().describe()}; {args.cycles} submissions x {args.calls} calls, "
        f"{args.repeat} runs (per submission, ms)"
    )
    lifetime(course, files, 5, args.calls)  # warm this process's own caches
    rows = []
    for _ in range(args.repeat):
        empty = lifetime(course, files, 0, 0)
        full = lifetime(course, files, args.cycles, args.calls)
        per = [(f - e) / args.cycles for f, e in zip(full, empty)]
        rows.append(per)
        wall, own, user, system, faults = per
        print(
            f"  wall {wall * 1e3:6.2f}  parent CPU {own * 1e3:5.2f}  child user {user * 1e3:5.2f}  "
            f"sys {system * 1e3:5.2f}  total {(user + system) * 1e3:5.2f}  minor faults {faults:6.0f}",
            flush=True,
        )
    # Another process on the machine inflates CPU times too (caches, the hypervisor): the best run
    # is the steadier figure when comparing two versions.
    for label, pick in (("median", statistics.median), ("best", min)):
        wall, own, user, system, faults = (pick(col) for col in zip(*rows))
        total = pick(r[2] + r[3] for r in rows)
        print(
            f"{label}: wall {wall * 1e3:.2f}  parent CPU {own * 1e3:.2f}  child CPU {total * 1e3:.2f} "
            f"(user {user * 1e3:.2f}, sys {system * 1e3:.2f})  minor faults {faults:.0f}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
