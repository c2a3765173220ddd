"""Where the time of one grading process goes: `qkv grade --jobs 1` on a synthetic class, with timers.

Grades N synthetic submissions (honest variants and catalogued mistakes, as `make bench` does) in
this process, pages on, with a timer around each stage of a student's grading. Each stage's own
time excludes the stages timed inside it. Also prints the CPU time of this process and of the
sandbox (the zygote and every child it forked), per student, and the zygote's own share of it.

    python scripts/profile_grade.py [--size 240] [--assignment attention]
"""

from __future__ import annotations

import argparse
import functools
import os
import resource
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

_own: dict = defaultdict(
    lambda: [0.0, 0.0]
)  # label -> [wall, CPU of this process], less inner timed calls
_calls: dict = defaultdict(int)
_stack: list = []


def timed(owner, name: str, label: str) -> None:
    """Wrap owner.name so its time (less that of timed calls inside it) counts under label."""
    fn = getattr(owner, name)

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        started = (time.perf_counter(), time.process_time())
        _stack.append([0.0, 0.0])
        try:
            return fn(*args, **kwargs)
        finally:
            inner = _stack.pop()
            spent = (time.perf_counter() - started[0], time.process_time() - started[1])
            for k in (0, 1):
                _own[label][k] += spent[k] - inner[k]
                if _stack:
                    _stack[-1][k] += spent[k]
            _calls[label] += 1

    setattr(owner, name, wrapper)


def instrument() -> None:
    from qkv.grade import local, plan  # noqa: PLC0415 - after main() sets OPENBLAS_NUM_THREADS
    from qkv.reports import feedback, outputs  # noqa: PLC0415 - after main() sets OPENBLAS_NUM_THREADS
    from qkv.results import records as results  # noqa: PLC0415 - after main() sets OPENBLAS_NUM_THREADS
    from qkv.sandbox import host, session  # noqa: PLC0415 - after main() sets OPENBLAS_NUM_THREADS
    from qkv.suites import calls  # noqa: PLC0415 - after main() sets OPENBLAS_NUM_THREADS
    from qkv.suites import plugin as suite_plugin  # noqa: PLC0415 - after main() sets OPENBLAS_NUM_THREADS
    from qkv.suites import runner as suite_runner  # noqa: PLC0415 - after main() sets OPENBLAS_NUM_THREADS

    timed(suite_runner.SuiteRun, "grade", "other (per student)")
    timed(suite_runner.SuiteRun, "_plan", "plan: the tests with the reference's answers")
    timed(suite_runner.SuiteRun, "_run_test", "judge: the tests with the student's answers")
    timed(suite_runner.SuiteRun, "_finish", "finish: hints, result")
    timed(suite_runner, "with_files", "read the submission")
    timed(suite_plugin, "collect", "collect the suites")
    timed(local, "make_context", "load content, quiz master")
    timed(host.Sandbox, "open", "sandbox: spawn a child")
    timed(session.Session, "_load", "sandbox: wait for the load")
    timed(session.Session, "call_many", "sandbox: the batch of calls")
    timed(session.Session, "close", "sandbox: close")
    timed(calls.StudentCalls, "close_session", "sandbox: close")
    timed(results, "write", "write results JSON")
    timed(outputs, "write", "outputs: gradebook, report")
    timed(feedback, "render", "outputs: feedback pages")
    timed(plan, "make", "run: discover, what to regrade")
    quiz = local.extra_tests_for

    def extra_tests_for(*args):
        grade_quiz = quiz(*args)
        if grade_quiz is None:
            return None
        holder = type("Quiz", (), {"grade": staticmethod(grade_quiz)})
        timed(holder, "grade", "finish: the quiz")
        return holder.grade

    local.extra_tests_for = extra_tests_for


_zygotes: dict = {}  # zygote pid -> (its own CPU seconds, its own minor faults), read as its sandbox closes


def _own_use(pid: int) -> tuple[float, int] | None:
    """A process's own CPU seconds and minor page faults (not its children's), from /proc."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    tick = os.sysconf("SC_CLK_TCK")
    return (int(fields[11]) + int(fields[12])) / tick, int(fields[7])  # utime + stime, minflt


def watch_zygotes() -> None:
    """Note what each zygote spent itself (forking, and copying the pages it writes while a child
    shares them) before its sandbox ends it: the sandbox's CPU below counts it with the children's."""
    from qkv.sandbox import host  # noqa: PLC0415 - after main() sets OPENBLAS_NUM_THREADS

    close = host.Sandbox.close

    def closing(self):
        keeper = getattr(self._proc, "pid", None)
        try:
            zygotes = Path(f"/proc/{keeper}/task/{keeper}/children").read_text().split()
        except (OSError, TypeError):
            zygotes = []
        for pid in map(int, zygotes):
            used = _own_use(pid)
            if used is not None:
                _zygotes[pid] = used
        close(self)

    host.Sandbox.close = closing


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--size", type=int, default=240)
    parser.add_argument("--assignment", default="attention")
    args = parser.parse_args()
    os.environ["OPENBLAS_NUM_THREADS"] = "1"
    from qkv.content import loader  # noqa: PLC0415 - after main() sets OPENBLAS_NUM_THREADS
    from qkv.course.config import load_course  # noqa: PLC0415 - after main() sets OPENBLAS_NUM_THREADS
    from qkv.grade import batch  # noqa: PLC0415 - after main() sets OPENBLAS_NUM_THREADS
    from qkv.validate import synthetic  # noqa: PLC0415 - after main() sets OPENBLAS_NUM_THREADS

    course = load_course(ROOT / "course.yaml")
    content = loader.load(course, course.assignment(args.assignment))
    kinds = [k for k in synthetic.class_sources(content) if not k.startswith("broken_endless")]
    with tempfile.TemporaryDirectory(prefix="qkv-profile-") as tmp:
        subs, out = Path(tmp) / "subs", Path(tmp) / "out"
        synthetic.write_class(content, subs, args.size, kinds=kinds)
        instrument()
        watch_zygotes()
        cpu0, kids0 = (
            resource.getrusage(w) for w in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)
        )
        started = time.perf_counter()
        batch.grade(course, subs, assignment=args.assignment, out=out, jobs=1, progress=False)
        wall = time.perf_counter() - started
        cpu1, kids1 = (
            resource.getrusage(w) for w in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)
        )
    n = args.size
    own = (cpu1.ru_utime + cpu1.ru_stime) - (cpu0.ru_utime + cpu0.ru_stime)
    timed_wall, timed_cpu = (sum(v[k] for v in _own.values()) for k in (0, 1))
    print(
        f"one grading process, {n} students of '{args.assignment}', pages on: {wall:.2f} s, "
        f"{wall / n * 1000:.2f} ms per student (wall)"
    )
    print(f"  {'stage (ms per student)':<46} {'wall':>6} {'CPU':>6}")
    for label, (seconds, cpu) in sorted(_own.items(), key=lambda kv: -kv[1][1]):
        print(
            f"  {label:<46} {seconds / n * 1000:6.2f} {cpu / n * 1000:6.2f}  ({_calls[label]} calls)"
        )
    print(
        f"  {'untimed (the run around the students)':<46} {(wall - timed_wall) / n * 1000:6.2f} "
        f"{(own - timed_cpu) / n * 1000:6.2f}"
    )
    kids_user, kids_sys = kids1.ru_utime - kids0.ru_utime, kids1.ru_stime - kids0.ru_stime
    print(
        f"CPU per student: this process {own / n * 1000:.2f} ms; the sandbox (zygote and children) "
        f"{kids_user / n * 1000:.2f} ms user + {kids_sys / n * 1000:.2f} ms system, "
        f"{(kids1.ru_minflt - kids0.ru_minflt) / n:.0f} minor page faults"
    )
    if _zygotes:
        cpu, faults = (sum(v[k] for v in _zygotes.values()) for k in (0, 1))
        print(
            f"  of which the zygote itself (its forks, and the pages it writes while a child shares them): "
            f"{cpu / n * 1000:.2f} ms, {faults / n:.0f} minor page faults per student (from its start)"
        )


if __name__ == "__main__":
    main()
