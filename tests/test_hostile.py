"""Hostile submissions, graded with --jobs 1 in one process, each followed by an honest neighbour.

Every honest neighbour must get exactly the row it gets in a batch of honest students alone; the
attacks earn no points they did not honestly compute; and after the run nothing of it is left:
no process of a sandbox uid, no submission folder, no IPC object, no kernel key.
"""

import csv
import ctypes
import dataclasses
import json
import os
import socket
import stat
import time
from pathlib import Path

import pytest

from course_content import CONTENT
from leftovers import kernel_keys, leftovers, require_strong_sandbox
from qkv.grade.batch import grade
from qkv.results import records as results
from qkv.sandbox import host as sandbox
from qkv.sandbox.host import PACKAGE_ROOT, SCRATCH_PREFIX
from qkv.validate import synthetic

HOSTILE = Path(__file__).parent / "hostile"
ROOT = Path(__file__).resolve().parent.parent
FILE_ATTACKS = sorted(p.stem for p in HOSTILE.glob("*.py"))
# Made by the test, not files: links to the reference, a FIFO and a device where attention.py should be.
LINK_ATTACKS = [
    "link_to_reference",
    "link_to_solutions_folder",
    "fifo_as_code",
    "device_as_code",
    "answers_link_to_quiz_master",
]
# The neighbours: full marks, partial credit from a catalogued mistake, and full marks through the stdlib.
NEIGHBOUR_KINDS = ["honest_reference", "mistake_softmax_no_max", "honest_stdlib"]
# Attacks that compute nothing honestly: any point would be a point stolen.
ZERO = sorted(
    set(FILE_ATTACKS + LINK_ATTACKS)
    - {
        "endless_loop",
        "exits_in_calls",
        "crashes_in_one_function",
        "forges_unchanged_inputs",
        "remaps_its_inputs",
        "memory_bomb",
        "flood_output",
        "fork_storm",
        "missing_import",
        "syntax_error",
        "write_output",
        "answers_link_to_quiz_master",
    }
)
STDLIB_PRELUDE = (
    "import statistics, decimal, fractions\n"
    "assert statistics.mean([1, 2, 3]) == 2 and decimal.Decimal('0.5') == fractions.Fraction(1, 2)\n"
)


def neighbour(attack: str) -> str:
    return f"{attack}.honest"  # sorts right after its attacker: graded next, by the same process


@pytest.fixture(scope="module")
def listener():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    s.listen(8)
    s.setblocking(False)
    yield s
    s.close()


def _neighbour_sources(reference_source: str) -> dict[str, str]:
    sources = synthetic.class_sources(CONTENT)
    sources["honest_stdlib"] = STDLIB_PRELUDE + reference_source
    return {
        neighbour(a): sources[NEIGHBOUR_KINDS[i % len(NEIGHBOUR_KINDS)]]
        for i, a in enumerate(sorted(FILE_ATTACKS + LINK_ATTACKS))
    }


def _write_link_attacks(subs: Path, course, assignment) -> None:
    reference = course.path(assignment.source).resolve()
    (subs / "link_to_reference").mkdir()
    (subs / "link_to_reference" / "attention.py").symlink_to(reference)
    (subs / "link_to_solutions_folder").symlink_to(reference.parent, target_is_directory=True)
    (subs / "fifo_as_code").mkdir()
    os.mkfifo(subs / "fifo_as_code" / "attention.py")
    (subs / "device_as_code").mkdir()
    os.mknod(subs / "device_as_code" / "attention.py", 0o600 | stat.S_IFCHR, os.makedev(1, 3))
    (subs / "answers_link_to_quiz_master").mkdir()
    (subs / "answers_link_to_quiz_master" / "attention.py").write_text(
        (ROOT / "exercises" / "attention" / "attention.py").read_text()
    )
    (subs / "answers_link_to_quiz_master" / "answers.yaml").symlink_to(
        course.path(assignment.quiz).resolve()
    )


def _rows(out: Path) -> dict[str, list[str]]:
    with open(out / "gradebook.csv", newline="") as f:
        return {row[0]: row for row in csv.reader(f)}


@pytest.fixture(scope="module")
def batch(tmp_path_factory, course, assignment, listener, reference_source):
    require_strong_sandbox()
    tmp = tmp_path_factory.mktemp("hostile")
    honest, subs, out = tmp / "honest", tmp / "subs", tmp / "out"
    fills = {"__REPO__": str(ROOT), "__OUT__": str(out), "__PORT__": str(listener.getsockname()[1])}
    for name in FILE_ATTACKS:
        text = (HOSTILE / f"{name}.py").read_text()
        for key, value in fills.items():
            text = text.replace(key, value)
        (subs / name).mkdir(parents=True)
        (subs / name / "attention.py").write_text(text)
    _write_link_attacks(subs, course, assignment)
    for student, source in _neighbour_sources(reference_source).items():
        for root in (subs, honest):
            (root / student).mkdir(parents=True)
            (root / student / "attention.py").write_text(source)
    shadow = subs / "conftest_and_numpy"
    shadow.mkdir()
    (shadow / "attention.py").write_text(
        (ROOT / "exercises" / "attention" / "attention.py").read_text()
    )
    (shadow / "conftest.py").write_text(
        "import pytest\n@pytest.hookimpl(hookwrapper=True)\ndef pytest_runtest_makereport(item, call):\n"
        "    outcome = yield\n    outcome.get_result().outcome = 'passed'\n"
    )
    (shadow / "numpy.py").write_text("def allclose(*a, **k):\n    return True\n")
    fast = dataclasses.replace(
        course,
        limits=dataclasses.replace(
            course.limits, call_timeout_s=1.0, import_timeout_s=2.0, memory_mb=256, cpu_s=5
        ),
    )
    started, keys = time.time(), kernel_keys()
    alone = grade(
        fast, honest, assignment="attention", out=tmp / "alone", jobs=1, progress=False, pages=False
    )
    summary = grade(
        fast, subs, assignment="attention", out=out, jobs=1, progress=False, pages=False
    )
    assert alone.errors == []
    return out, summary, _rows(tmp / "alone"), _rows(out), (started, keys)


def result(batch, student):
    return results.read(batch[0] / "results" / f"{student}.json")


def outcomes(r, part):
    return {t.outcome for t in r.tests if t.part == part}


@pytest.mark.parametrize("attack", sorted(FILE_ATTACKS + LINK_ATTACKS))
def test_the_honest_student_after_each_attack_keeps_their_solo_row(batch, attack):
    _, _, alone, mixed, _ = batch
    assert mixed[neighbour(attack)] == alone[neighbour(attack)]


def test_neighbours_are_honest_and_the_stdlib_ones_score_full_marks(batch):
    _, _, alone, _, _ = batch
    totals = {s: float(row[-2]) for s, row in alone.items() if s != "student"}
    stdlib = [
        neighbour(a)
        for i, a in enumerate(sorted(FILE_ATTACKS + LINK_ATTACKS))
        if NEIGHBOUR_KINDS[i % len(NEIGHBOUR_KINDS)] == "honest_stdlib"
    ]
    assert stdlib and all(totals[s] == 100 for s in stdlib)
    assert {row[-1] for s, row in alone.items() if s != "student"} == {"graded"}


@pytest.mark.parametrize("attack", ZERO)
def test_attacks_earn_nothing(batch, attack):
    _, _, _, mixed, _ = batch
    if attack == "link_to_solutions_folder":
        assert attack not in mixed  # a linked folder is skipped, with one line
        return
    r = result(batch, attack)
    assert r.total == 0, [(t.name, t.output) for t in r.tests if t.score]


def test_nothing_of_the_run_is_left(batch):
    """No process of a free sandbox slot, no scratch folder, no IPC object, no kernel key, no dropped file."""
    assert leftovers(since=batch[4][0], keys_before=batch[4][1]) == []


@pytest.mark.parametrize(
    "attack, line",
    [
        (
            "link_to_reference",
            "attention.py is a symbolic link, not a regular file; only regular files are read",
        ),
        ("fifo_as_code", "attention.py is a FIFO, not a regular file"),
        ("device_as_code", "attention.py is a device, not a regular file"),
    ],
)
def test_links_fifos_and_devices_are_refused_with_one_line(batch, attack, line):
    r = result(batch, attack)
    assert r.status.startswith("ungradable") and line in r.status and "\n" not in r.status


def test_a_linked_folder_is_skipped_with_one_line(batch):
    skipped = [line for line in batch[1].skipped if "link_to_solutions_folder" in line]
    assert len(skipped) == 1 and "a symbolic link" in skipped[0]


def test_a_linked_answers_file_is_not_followed(batch):
    r = result(batch, "answers_link_to_quiz_master")
    assert r.part_score("quiz") == 0
    assert "symbolic link" in " ".join(t.output for t in r.tests if t.part == "quiz")


@pytest.mark.parametrize("attack", ["wire_deep_header"])
def test_a_malformed_frame_at_import_is_the_submissions_invalid_load(batch, attack):
    r = result(batch, attack)
    assert r.status.startswith("ungradable") and "malformed" in r.status


@pytest.mark.parametrize(
    "attack",
    [
        "wire_huge_int",
        "wire_wrong_types",
        "wire_payload_lies",
        "wire_nan_tokens",
        "wire_forked_flood",
    ],
)
def test_malformed_replies_cost_the_part_with_a_reason(batch, attack):
    r = result(batch, attack)
    assert "the child process sent a malformed reply" in " ".join(t.output for t in r.tests)


@pytest.mark.parametrize("attack", ["flood_forked_writers", "wire_giant_length"])
def test_floods_and_stalls_time_out_at_the_call_limit(batch, attack):
    r = result(batch, attack)
    assert any("did not return within 1 s" in t.output for t in r.tests if t.part == "softmax")


def test_ipc_objects_of_one_submission_are_gone_for_the_next(batch):
    r = result(batch, "ipc_sysv_reader")
    assert "found nothing left by others" in " ".join(
        t.output for t in r.tests if t.part == "softmax"
    )


def test_kernel_keys_cannot_be_added_or_found(batch):
    text = " ".join(t.output for t in result(batch, "kernel_keys").tests if t.part == "softmax")
    assert "add_key gave -1" in text and "keyctl search gave -1" in text


def test_namespaces_cannot_be_left_by_unshare_clone_or_setns(batch):
    text = " ".join(
        t.output for t in result(batch, "namespace_escape").tests if t.part == "softmax"
    )
    assert ("escapes gave " + " ".join(["-1"] * 16)) in text, text


def test_files_dropped_in_shared_folders_do_not_exist(batch):
    for folder in ("/dev/shm", "/tmp", "/var/tmp"):
        assert not Path(folder, "qkv-left-behind").exists()


def test_imports_outside_the_course_get_one_line(batch):
    r = result(batch, "forbidden_imports")
    outputs = {t.part: t.output for t in r.tests}
    assert "import of qkv is not allowed in this course (allowed: numpy)" in outputs["softmax"]
    assert "import of nbgrader is not allowed in this course (allowed: numpy)" in outputs["score"]


def test_the_honest_student_keeps_full_marks(batch):
    r = result(batch, neighbour("always_equal_subclass"))
    assert (
        r.total == 100 and r.part_score("quiz") == 0
    )  # every code part; no answers.yaml was handed in


def test_searching_the_disk_finds_neither_reference_nor_suites(batch):
    r = result(batch, "search_disk")
    assert r.total == 0
    assert "found nothing to copy" in " ".join(t.output for t in r.tests if t.part == "softmax")


def test_writing_into_the_output_folder_fails(batch):
    out = batch[0]
    assert not (out / "pwned.txt").exists()
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


def test_a_child_dying_mid_batch_costs_only_the_parts_whose_calls_killed_it(batch):
    r = result(batch, "crashes_in_one_function")
    for part in ("project", "score", "aggregate"):
        assert r.part_score(part) == r.part_max(part), part
    outputs = {t.name: t.output for t in r.tests}
    softmax = [t for t in r.tests if t.part == "softmax"]
    assert 0 < r.part_score("softmax") < r.part_max("softmax")  # its first two calls were right
    assert any("softmax() ended (killed by signal SIGSEGV)" in t.output for t in softmax), outputs
    assert outcomes(r, "attend") == {"exited"}
    assert "attend() ended (exit code 3)" in " ".join(
        t.output for t in r.tests if t.part == "attend"
    )


def _kernel_seals_mappings() -> bool:

    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall(
        462, ctypes.c_void_p(1), ctypes.c_size_t(1), ctypes.c_ulong(0)
    )  # mseal, misaligned on purpose
    return ctypes.get_errno() != 38  # ENOSYS: no mseal before Linux 6.10


@pytest.mark.parametrize("attack", ["forges_unchanged_inputs", "remaps_its_inputs"])
def test_inputs_changed_in_place_are_seen_by_the_grader_whatever_the_child_says(batch, attack):
    """The child's word on which inputs a call changed is patched to 'none', or the input is moved onto
    private memory first: the grader reads the inputs back from the inputs region itself (whose mapping
    is sealed), so the in-place softmax still loses the check that its input is left alone, and nothing
    else."""
    if attack == "remaps_its_inputs" and not _kernel_seals_mappings():
        pytest.skip("this kernel cannot seal a mapping (mseal, Linux 6.10)")
    r = result(batch, attack)
    softmax = [t for t in r.tests if t.part == "softmax"]
    unchanged = [t for t in softmax if "left unchanged" in t.name]
    assert unchanged and all(t.outcome == "failed" for t in unchanged), [
        (t.name, t.output) for t in softmax
    ]
    assert all(t.outcome == "passed" for t in softmax if t not in unchanged)
    for part in ("project", "score", "aggregate", "attend"):
        assert r.part_score(part) == r.part_max(part), part


def test_an_endless_loop_costs_its_part_only(batch):
    r = result(batch, "endless_loop")
    assert r.part_score("score") == r.part_max("score")
    assert outcomes(r, "softmax") == {"timeout"}
    assert any("did not return within 1 s" in t.output for t in r.tests)


def test_a_memory_bomb_is_out_of_memory_and_costs_its_part_only(batch):
    r = result(batch, "memory_bomb")
    assert r.part_score("score") == r.part_max("score")
    assert "memory" in outcomes(r, "softmax")


def test_a_fork_storm_costs_its_part(batch):
    r = result(batch, "fork_storm")
    assert r.part_score("softmax") < r.part_max("softmax")


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


def test_a_broken_file_is_ungradable_with_a_reason(batch):
    r = result(batch, "syntax_error")
    assert (
        r.total == 0 and r.status.startswith("ungradable") and "syntax error on line 4" in r.status
    )
    assert outcomes(r, "softmax") == {"ungradable"}


def test_a_module_the_course_does_not_allow_fails_where_it_is_used_with_one_line(batch):
    """Imported at the top of the file, it is there so the file loads; the function using it raises
    the course's line, and the output says the file loaded without it."""
    r = result(batch, "missing_import")
    line = "import of attention_helpers is not allowed in this course (allowed: numpy)"
    assert r.total == 0 and r.status == "graded"
    assert outcomes(r, "softmax") == {"raised"}
    assert all(line in t.output for t in r.tests if t.part == "softmax")
    assert (
        f"{line}: loaded without it (line 2 in <module>: from attention_helpers import tricks"
        in r.output
    )


def test_hostile_batch_completes_with_every_student_in_the_gradebook(batch):
    _out, summary, _, mixed, _ = batch
    expected = (
        len(FILE_ATTACKS) + len(LINK_ATTACKS) - 1 + 1
    )  # the linked folder is skipped; conftest_and_numpy
    assert len(mixed) - 1 == expected + len(FILE_ATTACKS) + len(LINK_ATTACKS)
    assert summary.errors == []


def test_ci_reaches_the_strongest_isolation_level():
    """CI runs as root on a kernel with Landlock, cgroups v1 and seccomp: the sandbox must use every layer."""
    require_strong_sandbox()
    layers = sandbox.layers()
    assert layers.level == "strong", layers.describe()


def test_what_a_submission_can_read_of_its_process_names_nothing_of_the_grader(batch):
    r = result(batch, "prints_grader_secrets")
    printed = r.output
    assert "OS.ENVIRON" in printed and "ARGV" in printed
    run_folder = batch[0].parent  # the class, the honest copies and the graded folder are in it
    for secret in (
        str(run_folder),
        str(PACKAGE_ROOT),
        SCRATCH_PREFIX,
        "PYTHONPATH",
        "runtime_paths",
    ):
        assert secret not in printed, secret
