"""Grading cost with the full sandbox, against one cold `python -c "import numpy"` timed in the same run.

For each class size N (synthetic submissions: honest variants and catalogued mistakes, no endless
loops, so the figure measures grading, not timeouts), runs `qkv grade` end to end in a fresh
interpreter, as a grader does (start-up, sandbox, hidden suites, quiz, gradebook, feedback pages
and report), --repeat times, and prints the median time per submission and its ratio to the cold
numpy start, the CPU time (all processes) per submission, and the peak memory of the grading
command's own process and of its largest grading process. The cold start is timed just before and
just after every run (median of 3 each), and each run is compared with the faster of the two (the
conservative choice): on a shared machine the speed drifts within minutes, so a ratio compares
timings taken together; the ratio printed is the median run's. Then the same four notebooks go
through nbgrader's `autograde` and through `qkv grade`, timed the same way.

    python scripts/bench.py [--sizes 1 240 2000] [--repeat 3] [--jobs N] [--no-nbgrader]
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))
from bench_file_creation import write_outputs  # noqa: E402 - found through the path above

BIN = Path(sys.executable).parent
NOTEBOOK_KINDS = {
    "alice": "honest_reference",
    "bob": "mistake_softmax_no_max",
    "carol": "mistake_attend_returns_ao",
    "dave": "stub",
}
# `qkv grade` in a fresh interpreter, reporting its own peak memory and its children's as it exits.
GRADE = (
    "import atexit, json, resource, sys\n"
    "def _peak():\n"
    "    own, kids = (resource.getrusage(w) for w in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN))\n"
    "    sys.stderr.write('\\nQKV-BENCH ' + json.dumps({'parent_mib': own.ru_maxrss / 1024, 'children_mib': kids.ru_maxrss / 1024,\n"
    "        'cpu_s': own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime}) + '\\n')\n"
    "atexit.register(_peak)\n"
    "from qkv.cli import main\n"
    "sys.exit(main(sys.argv[1:]))\n"
)


def cold_numpy_seconds(repeats: int = 7) -> float:
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        subprocess.run([sys.executable, "-c", "import numpy"], check=True)
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def qkv_grade(subs: Path, out: Path, jobs: int | None) -> dict:
    """Wall time of one `qkv grade` run from its start, and its peak memory."""
    cmd = [
        sys.executable,
        "-c",
        GRADE,
        "grade",
        str(subs),
        "--assignment",
        "attention",
        "--out",
        str(out),
        "--quiet",
        "--course",
        str(ROOT / "course.yaml"),
        *(["--jobs", str(jobs)] if jobs else []),
    ]
    t = time.perf_counter()
    proc = subprocess.run(
        cmd,
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ, "OPENBLAS_NUM_THREADS": "1", "PYTHONPATH": str(ROOT)},
    )
    seconds = time.perf_counter() - t
    if proc.returncode != 0:
        raise SystemExit(f"qkv grade failed:\n{proc.stderr[-3000:]}")
    line = next(x for x in proc.stderr.splitlines() if x.startswith("QKV-BENCH "))
    return {"seconds": seconds, **json.loads(line.removeprefix("QKV-BENCH "))}


def nbgrader_side_by_side(
    course, assignment, content, tmp: Path, jobs: int | None
) -> tuple[float, float]:
    """(seconds for nbgrader autograde, seconds for qkv grade) on the same four notebooks."""
    from qkv.integrations import nbgrader_export  # noqa: PLC0415 - once main() has compiled the package
    from qkv.validate import synthetic  # noqa: PLC0415 - once main() has compiled the package

    course_dir, qkv_subs = tmp / "nbgrader-course", tmp / "nbgrader-qkv-subs"
    nbgrader_export.export(course, assignment, out=course_dir)
    env = {
        **os.environ,
        "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}",
        "OPENBLAS_NUM_THREADS": "1",
    }

    def nbgrader(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [str(BIN / "nbgrader"), *args],
            cwd=course_dir,
            env=env,
            capture_output=True,
            text=True,
            check=True,
        )

    nbgrader("generate_assignment", "attention")
    released = (course_dir / "release" / "attention" / "attention.ipynb").read_text()
    sources = synthetic.class_sources(content)
    answers = synthetic.answers_for(course, assignment, content)
    for student, kind in NOTEBOOK_KINDS.items():
        text = synthetic.notebook_submission(released, sources[kind], answers(student, kind))
        for folder in (course_dir / "submitted" / student / "attention", qkv_subs / student):
            folder.mkdir(parents=True)
            (folder / "attention.ipynb").write_text(text)
    t = time.perf_counter()
    nbgrader("autograde", "attention")
    nb_seconds = time.perf_counter() - t
    return nb_seconds, qkv_grade(qkv_subs, tmp / "nbgrader-qkv-out", jobs)["seconds"]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", type=int, nargs="+", default=[1, 240, 2000])
    parser.add_argument(
        "--repeat", type=int, default=3, help="runs per size; the median is reported"
    )
    parser.add_argument("--jobs", type=int, default=None)
    parser.add_argument(
        "--no-nbgrader", action="store_true", help="skip the side-by-side with nbgrader"
    )
    args = parser.parse_args()
    # Bytecode for the kit and its content, as an installed package has (pip compiles at install): where
    # PYTHONDONTWRITEBYTECODE is set, nothing would be cached and every run would compile them anew.
    compileall.compile_dir(ROOT / "src" / "qkv", quiet=1)
    compileall.compile_dir(ROOT / "solutions", quiet=1)
    from qkv.content import loader  # noqa: PLC0415 - once main() has compiled the package
    from qkv.course.config import load_course  # noqa: PLC0415 - once main() has compiled the package
    from qkv.validate import synthetic  # noqa: PLC0415 - once main() has compiled the package

    course = load_course(ROOT / "course.yaml")
    assignment = course.assignment("attention")
    content = loader.load(course, assignment)
    kinds = [k for k in synthetic.class_sources(content) if not k.startswith("broken_endless")]
    before = cold_numpy_seconds()
    rows, side = [], None
    # Nothing is deleted until every run is done, and each run writes a folder of its own: on a
    # filesystem without a journal (ext4 on these machines), creating a file costs several times more
    # next to thousands deleted in the last minutes (the allocator passes over recently freed inodes),
    # so a run writing where the previous one was just removed would pay for the benchmark's cleanup.
    with tempfile.TemporaryDirectory(prefix="qkv-bench-") as tmp:
        file_us = write_outputs(
            str(Path(tmp) / "files"), 250
        )  # what the grader's two files per student cost here, now
        for n in args.sizes:
            subs = Path(tmp) / f"subs{n}"
            synthetic.write_class(content, subs, n, kinds=kinds)
            colds = [cold_numpy_seconds(3)]
            runs = []
            for i in range(max(1, args.repeat)):
                runs.append(qkv_grade(subs, Path(tmp) / f"out{n}-{i}", args.jobs))
                colds.append(cold_numpy_seconds(3))
                runs[-1]["numpy_s"] = min(
                    colds[-2], colds[-1]
                )  # timed just before and just after this run
            rows.append((n, runs))
        if not args.no_nbgrader:
            cold = cold_numpy_seconds(3)
            side = (
                *nbgrader_side_by_side(course, assignment, content, Path(tmp), args.jobs),
                min(cold, cold_numpy_seconds(3)),
            )
    after = cold_numpy_seconds()
    print(
        f"{os.cpu_count()} cores; cold `python -c 'import numpy'`: {before * 1000:.1f} ms at the start, "
        f"{after * 1000:.1f} ms at the end (medians of 7); each run is compared with the cold starts timed "
        "just before and after it"
    )
    print(
        f"creating a file where the outputs go: {file_us:.0f} us of CPU (a student's results and page are two; "
        "several times more next to files deleted in the last minutes: scripts/bench_file_creation.py)"
    )
    print(
        "`qkv grade` end to end (start-up, sandbox, suites, quiz, gradebook, feedback pages, report):"
    )
    for n, runs in rows:
        res = sorted(runs, key=lambda r: r["seconds"])[(len(runs) - 1) // 2]  # the median run
        per = res["seconds"] / n
        ratios = [r["seconds"] / n / r["numpy_s"] for r in runs]
        spread = (
            f"; of {len(runs)} runs: {min(r['seconds'] for r in runs):.2f}-{max(r['seconds'] for r in runs):.2f} s, "
            f"{min(ratios):.3f}-{max(ratios):.3f}"
        )
        print(
            f"N={n:5d}: {res['seconds']:6.2f} s, {per * 1000:6.1f} ms per submission, {per / res['numpy_s']:6.3f} "
            f"cold numpy starts per submission (numpy {res['numpy_s'] * 1000:.1f} ms{spread if len(runs) > 1 else ''}); "
            f"CPU {res['cpu_s'] / n * 1000:.1f} ms per submission; peak RSS: `qkv grade` {res['parent_mib']:.0f} MiB, "
            f"largest grading process {res['children_mib']:.0f} MiB"
        )
    if side:
        nb, qkv, numpy_s = side
        print(
            f"the same 4 notebooks: nbgrader autograde {nb:.2f} s ({nb / numpy_s:.1f} cold starts), "
            f"qkv grade {qkv:.2f} s ({qkv / numpy_s:.1f} cold starts; numpy {numpy_s * 1000:.1f} ms)"
        )


if __name__ == "__main__":
    main()
