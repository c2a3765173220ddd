"""`qkv serve` under load on loopback, against one cold `python -c "import numpy"` timed in the same run.

A course with a roster of synthetic students (each handing in one of the synthetic kinds: honest
variants and catalogued mistakes, no endless loops, so the figure measures grading, not timeouts)
is served by a real `qkv serve --jobs J` on 127.0.0.1. Two loads:

- burst: N students hand in at the same moment; throughput, and the median and p95 time from the
  POST to the first GET that reads `graded`, as ratios to the cold numpy start;
- sustained: M hand-ins spread evenly over S seconds; the same times, and how many of the hand-ins
  answered 202 ended graded (none may be lost).

The cold start is the median of 5, taken before and after the loads; the larger is used (the
conservative choice). Every request goes to the loopback address and the loops are bounded.

    python scripts/bench_serve.py [--students 24] [--sustained 500] [--over 60] [--jobs N]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
POLL_S = 0.02
WAIT_S = 600.0


def cold_numpy(times: int = 5) -> float:
    runs = []
    for _ in range(times):
        started = time.perf_counter()
        subprocess.run([sys.executable, "-c", "import numpy"], check=True)
        runs.append(time.perf_counter() - started)
    return statistics.median(runs)


def write_course(folder: Path, students: list[str]) -> Path:
    data = yaml.safe_load((ROOT / "course.yaml").read_text())
    data["assignments"] = [a for a in data["assignments"] if a["id"] == "attention"]
    a = data["assignments"][0]
    a["deadline"], a["late"] = "2099-12-31T23:59:00+00:00", []
    data["roster"] = "roster.csv"
    data["serve"] = {"submissions_per_hour": 10_000, "url": "http://127.0.0.1"}
    shutil.copytree(
        ROOT / "solutions" / "attention",
        folder / "solutions" / "attention",
        ignore=shutil.ignore_patterns("__pycache__"),
    )
    lines = ["id,name,email,section"] + [f"{s},{s},{s}@uni.example,A" for s in students]
    (folder / "roster.csv").write_text("\n".join(lines) + "\n")
    path = folder / "course.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return path


def sources() -> list[bytes]:
    from qkv.content import loader  # noqa: PLC0415
    from qkv.course.config import load_course  # noqa: PLC0415
    from qkv.validate import synthetic  # noqa: PLC0415

    course = load_course(ROOT / "course.yaml")
    content = loader.load(course, course.assignment("attention"))
    kinds = synthetic.class_sources(content)
    return [text.encode() for kind, text in sorted(kinds.items()) if "endless" not in kind]


class Client:
    def __init__(self, url: str):
        self.url = url

    def post(self, token: str, source: bytes) -> str:
        from qkv.serve.client import multipart_bytes  # noqa: PLC0415

        body, content_type = multipart_bytes([("attention.py", source)])
        request = urllib.request.Request(
            f"{self.url}/api/assignments/attention/submissions",
            data=body,
            headers={"Authorization": f"Bearer {token}", "Content-Type": content_type},
        )
        with urllib.request.urlopen(request, timeout=60) as response:
            assert response.status == 202, response.status
            return json.loads(response.read())["url"]

    def status(self, token: str, url: str) -> str:
        request = urllib.request.Request(
            f"{self.url}{url}", headers={"Authorization": f"Bearer {token}"}
        )
        with urllib.request.urlopen(request, timeout=60) as response:
            return json.loads(response.read())["status"]

    def hand_in(self, token: str, source: bytes) -> tuple[float, float, str]:
        """(POST time, seconds from POST to graded, final status) of one hand-in."""
        started = time.perf_counter()
        url = self.post(token, source)
        deadline = started + WAIT_S
        status = "queued"
        while time.perf_counter() < deadline:
            status = self.status(token, url)
            if status in ("graded", "failed"):
                break
            time.sleep(POLL_S)
        return started, time.perf_counter() - started, status


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[max(0, -(-95 * len(ordered) // 100) - 1)]


def report(name: str, runs, cold: float) -> bool:
    times = [t for _, t, _ in runs]
    graded = sum(s == "graded" for _, _, s in runs)
    span = max(s + t for s, t, _ in runs) - min(s for s, _, _ in runs)
    median, high = statistics.median(times), p95(times)
    print(
        f"{name}: {len(runs)} hand-ins, {graded} graded, {len(runs) - graded} lost or failed; "
        f"throughput {len(runs) / span:.1f}/s; POST to graded: median {median * 1000:.0f} ms "
        f"= {median / cold:.1f} cold numpy starts, p95 {high * 1000:.0f} ms = {high / cold:.1f}"
    )
    return graded == len(runs)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, default=24, help="hand in at once (burst)")
    parser.add_argument("--sustained", type=int, default=500, help="hand-ins spread over --over")
    parser.add_argument("--over", type=float, default=60.0, help="seconds of the sustained load")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="grading processes")
    args = parser.parse_args()

    from qkv.course import roster as roster_mod  # noqa: PLC0415
    from qkv.serve import people  # noqa: PLC0415
    from qkv.serve.service import Service  # noqa: PLC0415
    from qkv.serve.settings import Settings  # noqa: PLC0415

    students = [f"s{i:03d}" for i in range(max(args.students, min(args.sustained, 100)))]
    kinds = sources()
    with tempfile.TemporaryDirectory(prefix="qkv-bench-serve-") as tmp:
        course = write_course(Path(tmp) / "course", students)
        data = Path(tmp) / "data"
        service = Service.open(Settings(course=course, data=data))
        with service.sessions.begin() as db:
            rows = people.invite(db, roster_mod.load(service.course), base_url="", rotate=False)
            tokens = {student: token for student, _, token, _ in rows}
        service.engine.dispose()
        port = 18000 + os.getpid() % 1000
        server = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "qkv.cli",
                "serve",
                "--course",
                str(course),
                "--data",
                str(data),
                "--port",
                str(port),
                "--jobs",
                str(args.jobs),
            ],
            env={**os.environ, "OPENBLAS_NUM_THREADS": "1"},
            stdout=subprocess.DEVNULL,
        )
        client = Client(f"http://127.0.0.1:{port}")
        try:
            for _ in range(1200):
                try:
                    urllib.request.urlopen(f"{client.url}/api/health", timeout=1)
                    break
                except OSError:
                    time.sleep(0.1)
            before = cold_numpy()
            ok = True
            # burst: everyone at once
            gate = threading.Barrier(args.students)

            def burst(i: int):
                gate.wait()
                return client.hand_in(tokens[students[i]], kinds[i % len(kinds)])

            with ThreadPoolExecutor(args.students) as pool:
                runs = list(pool.map(burst, range(args.students)))
            after_burst = cold_numpy()
            cold = max(before, after_burst)
            print(
                f"cold numpy start: {cold * 1000:.0f} ms; {args.jobs} grading processes, "
                f"{os.cpu_count()} cores"
            )
            ok = report(f"burst of {args.students} at once", runs, cold) and ok
            if args.sustained:
                gap = args.over / args.sustained
                t0 = time.perf_counter()

                def paced(i: int):
                    time.sleep(max(0.0, t0 + i * gap - time.perf_counter()))
                    return client.hand_in(
                        tokens[students[i % len(students)]], kinds[i % len(kinds)]
                    )

                with ThreadPoolExecutor(64) as pool:
                    runs = list(pool.map(paced, range(args.sustained)))
                cold = max(cold, cold_numpy())
                ok = report(f"sustained {args.sustained} over {args.over:g} s", runs, cold) and ok
        finally:
            server.terminate()
            server.wait(120)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
