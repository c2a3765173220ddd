"""Hostile submissions, graded in one batch beside an honest student: each with its asserted outcome.

They earn no points they did not honestly compute, never change another student's result, and
leave nothing running.
"""
import dataclasses
import json
import socket
from pathlib import Path

import pytest

from autograder.sandbox import isolation
from autograder.grading import results
from autograder.sandbox import host as sandbox
from autograder.sandbox import slots
from autograder.grading.batch import grade

HOSTILE = Path(__file__).parent / "hostile"
ROOT = Path(__file__).resolve().parent.parent
PARTS = ("project", "score", "softmax", "aggregate", "attend")


@pytest.fixture(scope="module")
def listener():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    s.listen(8)
    s.setblocking(False)
    yield s
    s.close()


@pytest.fixture(scope="module")
def batch(tmp_path_factory, course, assignment, listener):
    tmp = tmp_path_factory.mktemp("hostile")
    subs, out = tmp / "subs", tmp / "out"
    fills = {"__REPO__": str(ROOT), "__OUT__": str(out), "__PORT__": str(listener.getsockname()[1])}
    for path in sorted(HOSTILE.glob("*.py")):
        text = path.read_text()
        for key, value in fills.items():
            text = text.replace(key, value)
        (subs / path.stem).mkdir(parents=True)
        (subs / path.stem / "attention.py").write_text(text)
    (subs / "honest").mkdir()
    (subs / "honest" / "attention.py").write_text(course.path(assignment.source).read_text())
    shadow = subs / "conftest_and_numpy"
    shadow.mkdir()
    (shadow / "attention.py").write_text((ROOT / "exercises" / "attention" / "attention.py").read_text())
    (shadow / "conftest.py").write_text(
        "import pytest\n@pytest.hookimpl(hookwrapper=True)\ndef pytest_runtest_makereport(item, call):\n"
        "    outcome = yield\n    outcome.get_result().outcome = 'passed'\n")
    (shadow / "numpy.py").write_text("def allclose(*a, **k):\n    return True\n")
    fast = dataclasses.replace(course, limits=dataclasses.replace(
        course.limits, call_timeout_s=1.0, import_timeout_s=2.0, memory_mb=256, cpu_s=5))
    summary = grade(fast, subs, assignment="attention", out=out, jobs=2, progress=False)
    return out, summary


def result(batch, student):
    return results.read(batch[0] / "results" / f"{student}.json")


def outcomes(r, part):
    return {t.outcome for t in r.tests if t.part == part}


def test_the_honest_student_keeps_full_marks(batch):
    r = result(batch, "honest")
    assert r.total == 100 and r.part_score("quiz") == 0  # every code part; no answers.yaml was handed in


@pytest.mark.parametrize("student", ["monkeypatch_numpy", "always_equal_subclass", "peek_frames_and_gc",
                                     "fake_runner_output", "conftest_and_numpy", "odd_return_values"])
def test_cheats_earn_nothing(batch, student):
    r = result(batch, student)
    assert r.total == 0, [(t.name, t.output) for t in r.tests if t.score]


def test_searching_the_disk_finds_neither_reference_nor_suites(batch):
    r = result(batch, "search_disk")
    assert r.total == 0
    assert "found nothing to copy" in " ".join(t.output for t in r.tests if t.part == "softmax")


def test_writing_into_the_output_folder_fails(batch):
    out = batch[0]
    assert not (out / "pwned.txt").exists()
    assert result(batch, "honest").total == 100
    r = result(batch, "write_output")
    assert r.part_score("softmax") == 0
    assert "write_output,0,0,0,0,0,0" in (out / "gradebook.csv").read_text()


def test_exit_at_import_is_ungradable_with_a_reason(batch):
    r = result(batch, "exit_at_import")
    assert r.total == 0 and r.status.startswith("ungradable: the process ended while loading")
    assert outcomes(r, "softmax") == {"exited"}


def test_exits_inside_calls_are_raised_exceptions_and_cost_only_their_part(batch):
    r = result(batch, "exits_in_calls")
    assert r.part_score("score") == r.part_max("score")
    assert outcomes(r, "project") == {"raised"}
    outputs = {t.part: t.output for t in r.tests}
    assert "raised SystemExit" in outputs["project"]
    assert "raised KeyboardInterrupt" in outputs["softmax"]
    assert "raised Escape: bye" in outputs["aggregate"]


def test_an_endless_loop_costs_its_part_only(batch):
    r = result(batch, "endless_loop")
    assert r.part_score("score") == r.part_max("score")
    assert outcomes(r, "softmax") == {"timeout"}
    assert any("did not return within 1 s" in t.output for t in r.tests)


def test_a_memory_bomb_is_out_of_memory_and_costs_its_part_only(batch):
    r = result(batch, "memory_bomb")
    assert r.part_score("score") == r.part_max("score")
    assert "memory" in outcomes(r, "softmax")


def test_a_fork_storm_leaves_no_process_behind(batch):
    r = result(batch, "fork_storm")
    assert r.part_score("softmax") < r.part_max("softmax")
    assert sandbox.layers().uid_drop, "without a per-slot uid this check would see nothing"
    sandbox_uids = range(isolation.SANDBOX_UID_BASE, isolation.SANDBOX_UID_BASE + slots.MAX_SLOTS)
    left = [p for p in Path("/proc").iterdir() if p.name.isdigit() and _uid(p) in sandbox_uids]
    assert left == []


def _uid(proc: Path):
    try:
        return proc.stat().st_uid
    except OSError:  # ended while we looked
        return None


def test_loopback_connection_never_arrives(batch, listener):
    with pytest.raises(BlockingIOError):
        listener.accept()
    assert result(batch, "connect_loopback").part_score("softmax") == 0


def test_20mb_of_output_is_capped_and_grading_goes_on(batch, course):
    r = result(batch, "flood_output")
    assert r.part_score("score") == r.part_max("score")
    assert len(r.output) <= course.limits.max_output_kb * 1024
    raw = json.loads((batch[0] / "results" / "flood_output.json").read_text())
    assert len(json.dumps(raw)) < 200_000


@pytest.mark.parametrize("student, reason", [("syntax_error", "syntax error on line 4"),
                                             ("missing_import", "No module named 'attention_helpers'")])
def test_broken_files_are_ungradable_with_a_reason(batch, student, reason):
    r = result(batch, student)
    assert r.total == 0 and r.status.startswith("ungradable") and reason in r.status
    assert outcomes(r, "softmax") == {"ungradable"}


def test_hostile_batch_completes_with_every_student_in_the_gradebook(batch):
    out, summary = batch
    rows = (out / "gradebook.csv").read_text().splitlines()
    assert len(rows) == 1 + len(list(HOSTILE.glob("*.py"))) + 2
    assert summary.errors == []


def test_ci_reaches_the_strongest_isolation_level():
    """CI runs as root on a kernel with Landlock and cgroups v1: the sandbox must use every layer."""
    layers = sandbox.layers()
    assert layers.level == "strong", layers.describe()
