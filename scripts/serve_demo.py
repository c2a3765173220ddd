"""`make serve-demo`: `qkv serve` on the demo class, with its hand-ins arriving as you watch.

Writes a course for the synthetic class (a roster of one student per synthetic kind) into
demo-serve/, gives every student a sign-in link (demo-serve/links.csv) and a staff member `demo` a
token, starts the service on 127.0.0.1:8000 and hands in each student's work through the API, then
prints the links to open. Ctrl-C stops it; the data stays in demo-serve/data for the next start.

    python scripts/serve_demo.py [--out demo-serve] [--port 8000] [--jobs N]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_serve import Client, write_course


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="demo-serve", help="folder for the course and data")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args()

    from qkv.content import loader  # noqa: PLC0415
    from qkv.course import roster as roster_mod  # noqa: PLC0415
    from qkv.course.config import load_course  # noqa: PLC0415
    from qkv.serve import people  # noqa: PLC0415
    from qkv.serve.service import Service  # noqa: PLC0415
    from qkv.serve.settings import Settings  # noqa: PLC0415
    from qkv.validate import synthetic  # noqa: PLC0415

    out = Path(args.out)
    repo = load_course(Path(__file__).resolve().parent.parent / "course.yaml")
    content = loader.load(repo, repo.assignment("attention"))
    kinds = {
        k.replace("_", "-"): text
        for k, text in synthetic.class_sources(content).items()
        if "endless" not in k
    }
    course = out / "course" / "course.yaml"
    if not course.exists():
        write_course(out / "course", sorted(kinds))
    base = f"http://127.0.0.1:{args.port}"
    service = Service.open(Settings(course=course, data=out / "data"))
    with service.sessions.begin() as db:
        rows = list(people.invite(db, roster_mod.load(service.course), base_url=base, rotate=True))
        staff = people.add_staff(db, "demo")
    people.write_links(out / "links.csv", rows)
    service.engine.dispose()
    server = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "qkv.cli",
            "serve",
            "--course",
            str(course),
            "--data",
            str(out / "data"),
            "--port",
            str(args.port),
            "--jobs",
            str(args.jobs),
        ],
        env={**os.environ, "OPENBLAS_NUM_THREADS": "1"},
    )
    try:
        for _ in range(1200):
            try:
                urllib.request.urlopen(f"{base}/api/health", timeout=1)
                break
            except OSError:
                time.sleep(0.1)
        client = Client(base)
        for student, _, token, _ in rows:
            client.post(token, kinds[student].encode())
        print(f"\nhanded in {len(rows)} students' work; sign-in links in {out / 'links.csv'}")
        print(f"staff page:   {people.link(base, staff)}")
        print(f"a student:    {rows[0][3]}")
        print("Ctrl-C stops the service.")
        server.wait()
    except KeyboardInterrupt:
        server.terminate()
        server.wait(60)
    return 0


if __name__ == "__main__":
    sys.exit(main())
