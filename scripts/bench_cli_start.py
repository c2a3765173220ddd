"""How long the command line takes to start, as ratios to a cold `python -c "import numpy"`.

Compares importing `qkv.cli` (the parser and every command module) with importing it and every
engine module the commands load when they run, which is what a CLI importing them at the top of
its modules would cost every command. Medians of interleaved runs.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time

ENGINE = (
    "qkv.check.run",
    "qkv.content.loader",
    "qkv.grade.batch",
    "qkv.integrations.gradescope",
    "qkv.integrations.lms",
    "qkv.integrations.nbgrader_export",
    "qkv.integrations.nbgrader_grade",
    "qkv.quiz.grading",
    "qkv.quiz.render",
    "qkv.release.notebook",
    "qkv.release.steps",
    "qkv.reports.class_report",
    "qkv.validate.mutants",
    "qkv.validate.run",
    "qkv.validate.synthetic",
)
CASES = {
    "numpy": "import numpy",
    "cli": "import qkv.cli",
    "cli and engine": "import qkv.cli, " + ", ".join(ENGINE),
}


def _seconds(code: str) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], check=True)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=9, help="runs of each case (default 9)")
    args = parser.parse_args()
    times: dict[str, list[float]] = {name: [] for name in CASES}
    for _ in range(args.runs):
        for name, code in CASES.items():
            times[name].append(_seconds(code))
    numpy = statistics.median(times["numpy"])
    for name, runs in times.items():
        median = statistics.median(runs)
        print(f"{name:>15}: {median * 1000:6.0f} ms, {median / numpy:4.2f} x a cold numpy import")


if __name__ == "__main__":
    main()
