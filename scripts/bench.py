"""Grading throughput with the full sandbox, against one cold `python -c "import numpy"`.

Builds N synthetic submissions (honest variants and catalogued mistakes, no endless loops so the
figure measures grading, not timeouts), grades them with all cores, and prints submissions per
second and the ratio (grading wall time per submission) / (one cold numpy start), both measured
in this run: the cold start is timed before and after the grading, and the ratio uses the faster
of the two (the conservative choice on a noisy machine). The grading is the whole `qkv grade` run:
start-up, sandbox, hidden suites, quiz, gradebook and the HTML pages. Peak memory of the grading
processes is reported for each class size.

    python scripts/bench.py [--sizes 100 1000] [--jobs N]
"""
from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from autograder.content import loader
from autograder.grading import synthetic
from autograder.course.config import load_course

ROOT = Path(__file__).resolve().parent.parent


def cold_numpy_seconds(repeats: int = 7) -> float:
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        subprocess.run([sys.executable, "-c", "import numpy"], check=True)
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", type=int, nargs="+", default=[100, 1000])
    parser.add_argument("--jobs", type=int, default=None)
    args = parser.parse_args()
    course = load_course(ROOT / "course.yaml")
    a = course.assignment("attention")
    content = loader.load(course, a)
    kinds = [k for k in synthetic.class_sources(content) if not k.startswith("broken_endless")]
    before = cold_numpy_seconds()
    rows = []
    for n in args.sizes:
        with tempfile.TemporaryDirectory(prefix="qkv-bench-") as tmp:
            subs, out = Path(tmp) / "subs", Path(tmp) / "out"
            synthetic.write_class(content, subs, n, kinds=kinds)
            # Measured in a child so each size's peak memory is its own.
            code = (f"import time, resource, json; from autograder.grading.batch import grade; "
                    f"from autograder.course.config import load_course; c = load_course({str(ROOT / 'course.yaml')!r}); "
                    f"t = time.perf_counter(); s = grade(c, {str(subs)!r}, assignment='attention', out={str(out)!r}, "
                    f"jobs={args.jobs!r}, progress=False); dt = time.perf_counter() - t; "
                    f"print(json.dumps({{'seconds': dt, 'graded': s.graded, 'isolation': s.isolation, "
                    f"'parent_mib': resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, "
                    f"'children_mib': resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024}}))")
            res = json.loads(subprocess.run([sys.executable, "-c", code], check=True, capture_output=True,
                                            text=True).stdout.strip().splitlines()[-1])
            rows.append((n, res))
    after = cold_numpy_seconds()
    numpy_s = min(before, after)
    print(f"cold `python -c 'import numpy'`: {before * 1000:.1f} ms before, {after * 1000:.1f} ms after "
          f"(medians of 7); the ratio uses {numpy_s * 1000:.1f} ms")
    for n, res in rows:
        per = res["seconds"] / res["graded"]
        print(f"N={n:5d}: {res['seconds']:.2f} s, {res['graded'] / res['seconds']:.1f} submissions/s, "
              f"{per * 1000:.1f} ms per submission, ratio to cold numpy start {per / numpy_s:.3f}, "
              f"peak RSS parent {res['parent_mib']:.0f} MiB, largest grading process {res['children_mib']:.0f} MiB")
    print(f"isolation: {rows[-1][1]['isolation']}")


if __name__ == "__main__":
    main()
