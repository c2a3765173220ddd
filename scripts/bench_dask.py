"""Grading throughput over Dask against the local executor, and what the Dask scheduler costs.

Builds N synthetic submissions (as scripts/bench.py does: honest variants and catalogued mistakes,
no endless loops), then grades them without HTML pages, once per configuration: the local executor
with 1 and 2 processes, and a Dask LocalCluster (one process and one thread per worker) with 1 and 2
workers. Then measures the scheduler's round trip for an empty task, the cluster's rate for many
empty tasks, the fixed cost of a Dask run, and the client's own cost per result (rebuild from JSON,
write atomically).

Last, it projects a class of 10,000 on 2 and 16 workers (one core each) from what it measured: the
fixed cost of a run, the rate of one worker, the scheduler's cost per task and the client's cost
per result (the client writes every result itself, so it bounds the rate however many workers).

    python scripts/bench_dask.py [--size 400] [--workers 1 2] [--project 10000]
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

from distributed import Client, LocalCluster

from qkv.content import loader
from qkv.course.config import load_course
from qkv.grade.batch import grade
from qkv.grade.dask_executor import DaskExecutor
from qkv.grade.plan import CHUNK, sizes
from qkv.results import records as results
from qkv.validate import synthetic

ROOT = Path(__file__).resolve().parent.parent


def _noop(x):
    return x


def timed_grade(course, subs: Path, out: Path, jobs: int, executor=None) -> float:
    t = time.perf_counter()
    s = grade(
        course,
        subs,
        assignment="attention",
        out=out,
        jobs=jobs,
        progress=False,
        pages=False,
        force=True,
        executor=executor,
    )
    dt = time.perf_counter() - t
    assert s.graded == len(s.students) and not s.errors, (s.graded, s.errors)
    return dt


def scheduler_costs(address: str) -> tuple[float, float]:
    """(median ms of one empty task's round trip, ms per empty task when 2000 are in flight)."""
    with Client(address, set_as_default=False) as client:
        client.submit(_noop, 0, pure=False).result()
        trips = []
        for i in range(200):
            t = time.perf_counter()
            client.submit(_noop, i, pure=False).result()
            trips.append(time.perf_counter() - t)
        t = time.perf_counter()
        client.gather(client.map(_noop, range(2000), pure=False))
        many = (time.perf_counter() - t) / 2000
    return statistics.median(trips) * 1000, many * 1000


def client_cost_per_result(out: Path) -> float:
    """ms the client spends per student result: parse, rebuild, write atomically."""
    texts = [p.read_text() for p in sorted((out / "results").glob("*.json"))]
    dest = out / "rewrite"
    t = time.perf_counter()
    for text in texts:
        results.write(results.decode(text), dest)
    return (time.perf_counter() - t) / len(texts) * 1000


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--size", type=int, default=400)
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--project", type=int, default=10_000, help="class size to project")
    args = parser.parse_args()
    course = load_course(ROOT / "course.yaml")
    content = loader.load(course, course.assignment("attention"))
    kinds = [k for k in synthetic.class_sources(content) if not k.startswith("broken_endless")]
    print(
        f"{os.cpu_count()} cores; N={args.size} submissions; no HTML pages; chunks of up to {CHUNK} students"
    )
    with tempfile.TemporaryDirectory(prefix="qkv-bench-dask-") as tmp:
        subs = Path(tmp) / "subs"
        synthetic.write_class(content, subs, args.size, kinds=kinds)
        for n in args.workers:
            dt = timed_grade(course, subs, Path(tmp) / f"local{n}", n)
            print(
                f"local executor, {n} process(es): {dt:6.2f} s, {args.size / dt:6.1f} submissions/s"
            )
        rates = {}
        for n in args.workers:
            with LocalCluster(
                n_workers=n, threads_per_worker=1, processes=True, dashboard_address=None
            ) as cluster:
                dt = timed_grade(
                    course, subs, Path(tmp) / f"dask{n}", n, DaskExecutor(cluster.scheduler_address)
                )
                print(
                    f"dask executor, {n} worker(s):    {dt:6.2f} s, {args.size / dt:6.1f} submissions/s "
                    f"({args.size / dt / n:.1f} per worker)"
                )
                rates[n] = args.size / dt / n
                if n == args.workers[0]:
                    trip, many = scheduler_costs(cluster.scheduler_address)
                if (
                    n == args.workers[-1]
                ):  # connect, start a sandbox on every worker, grade one, tear down
                    one = Path(tmp) / "one"
                    synthetic.write_class(content, one, kinds=["honest_reference"])
                    fixed = timed_grade(
                        course,
                        one,
                        Path(tmp) / "one-out",
                        1,
                        DaskExecutor(cluster.scheduler_address),
                    )
        same = all(
            (Path(tmp) / f"dask{n}" / "gradebook.csv").read_bytes()
            == (Path(tmp) / f"local{args.workers[0]}" / "gradebook.csv").read_bytes()
            for n in args.workers
        )
        print(f"gradebooks identical across all runs: {same}")
        print(
            f"scheduler: {trip:.2f} ms round trip for one empty task, {many:.3f} ms per empty task "
            f"with 2000 in flight"
        )
        print(
            f"a run's fixed cost on {args.workers[-1]} workers: {fixed:.2f} s (connect, a sandbox per worker, "
            "one submission, tear down)"
        )
        client_ms = client_cost_per_result(Path(tmp) / f"dask{args.workers[0]}")
        print(f"client: {client_ms:.2f} ms per result (rebuild from JSON and write atomically)")
        # One worker's rate, measured where it had a core to itself (the first configuration).
        per_worker = rates[args.workers[0]]
        for workers in (2, 16):
            chunks = len(
                sizes(args.project, workers)
            )  # as `qkv grade --jobs workers` cuts the class
            rate = min(workers * per_worker, 1000 / client_ms)
            seconds = fixed + args.project / rate + chunks * many / 1000
            print(
                f"projected: {args.project} students on {workers} workers: {seconds:6.1f} s "
                f"({args.project / seconds:.0f} submissions/s; {'the client' if rate < workers * per_worker else 'the workers'} "
                "set the pace)"
            )


if __name__ == "__main__":
    main()
