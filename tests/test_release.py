"""`qkv release`: ordered steps, the committed exercises/ in sync, and nothing secret shipped."""

import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from course_content import CONTENT, COURSE
from qkv.cli import main
from qkv.errors import QkvError
from qkv.release import steps as release

ROOT = Path(__file__).resolve().parent.parent


def test_steps_run_in_this_order():
    assert [s.__name__ for s in release.STEPS] == [
        "read_master",
        "clear_solutions",
        "check_stub_signatures",
        "add_public_checks",
        "add_public_cases",
        "check_reference_passes",
        "add_student_readme",
        "add_quiz",
        "add_notebook",
        "check_no_secrets",
    ]


@pytest.mark.parametrize("assignment_id", [a.id for a in COURSE.assignments])
def test_committed_exercises_are_exactly_what_release_produces(course, assignment_id):
    files = release.build(course, course.assignment(assignment_id))
    folder = ROOT / "exercises" / assignment_id
    on_disk = {
        p.relative_to(folder).as_posix(): p.read_text()
        for p in folder.rglob("*")
        if p.is_file() and "__pycache__" not in p.parts
    }
    assert on_disk == files, (
        f"exercises/{assignment_id} is not what release builds from solutions/: if you changed "
        "solutions/ or the engine's release, run `qkv release` and commit exercises/"
    )


# Each kernel takes other paths through a matrix product, and so other last bits.
@pytest.mark.parametrize("kernel", ["Haswell", "Nehalem", "Prescott"])
def test_release_under_each_blas_kernel_is_the_committed_exercises(tmp_path, kernel):
    env = {**os.environ, "OPENBLAS_CORETYPE": kernel}
    for assignment in (a.id for a in COURSE.assignments):
        out = tmp_path / assignment
        subprocess.run(
            [sys.executable, "-c", "import sys, qkv.cli; sys.exit(qkv.cli.main())", "release", "--course", str(ROOT / "course.yaml"),
             "--assignment", assignment, "--out", str(out), "--bundle", str(tmp_path / "b.zip")],
            env=env, check=True, capture_output=True,
        )  # fmt: skip
        committed = ROOT / "exercises" / assignment
        names = sorted(
            p.relative_to(committed).as_posix()
            for p in committed.rglob("*")
            if p.is_file() and "__pycache__" not in p.parts
        )
        assert sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file()) == names
        differ = [n for n in names if (out / n).read_bytes() != (committed / n).read_bytes()]
        assert differ == [], f"{assignment} under OPENBLAS_CORETYPE={kernel}"


def test_stub_keeps_signatures_and_raises_not_implemented(course, assignment, ref):
    stub = release.build(course, assignment)["attention.py"]
    assert stub.count("raise NotImplementedError()") == 5
    assert release._signatures(stub) == release._signatures(
        course.path(assignment.source).read_text()
    )


def test_bundle_holds_no_suite_and_no_reference_body(
    tmp_path, course, assignment, reference_source
):
    bundle = tmp_path / "b.zip"
    release.write(course, assignment, out=tmp_path / "ex", bundle=bundle)
    names = zipfile.ZipFile(bundle).namelist()
    assert "attention/attention.py" in names and "attention/test_attention.py" in names
    suites = {p.name for p in CONTENT.suites_dir.glob("test_*.py")}
    assert suites and not suites & {
        Path(n).name for n in names if n != "attention/test_attention.py"
    }
    body_lines = {
        "return Q @ K.T  # (n_q, n_k)",
        "e = np.exp(shifted)  # same shape, in (0, 1]",
        "return A @ V  # (n_q, d_v)",
    }
    assert body_lines <= {line.strip() for line in reference_source.splitlines()}
    for name in names:
        text = zipfile.ZipFile(bundle).read(name).decode()
        assert not body_lines & {line.strip() for line in text.splitlines()}, name
        assert "BEGIN SOLUTION" not in text


def test_bundle_is_byte_identical_on_rerun(tmp_path, course, assignment):
    a, b = tmp_path / "a.zip", tmp_path / "b.zip"
    release.write(course, assignment, out=tmp_path / "x", bundle=a)
    release.write(course, assignment, out=tmp_path / "y", bundle=b)
    assert a.read_bytes() == b.read_bytes()


@pytest.mark.parametrize(
    "master, message",
    [
        ("def f():\n    ### BEGIN SOLUTION\n    return 1\n", "never closed"),
        ("def f():\n    return 1\n    ### END SOLUTION\n", "without"),
    ],
)
def test_unbalanced_markers_are_reported_with_a_line(master, message):
    with pytest.raises(QkvError, match=message):
        release.solution_blocks(master)


def test_a_leaked_solution_line_stops_the_release(course, assignment):
    r = release.Release(course, assignment)
    release.read_master(r)
    release.clear_solutions(r)
    r.files["notes.md"] = "hint: return A @ V  # (n_q, d_v)\n    return A @ V  # (n_q, d_v)\n"
    with pytest.raises(QkvError, match="would leak solution line"):
        release.check_no_secrets(r)


def test_release_writes_the_folder_and_removes_stale_files(tmp_path, course, capsys):
    out = tmp_path / "ex"
    out.mkdir()
    (out / "stale.txt").write_text("old")
    assert (
        main(
            [
                "release",
                "--course",
                str(course.root),
                "--assignment",
                "attention",
                "--out",
                str(out),
                "--bundle",
                str(tmp_path / "b.zip"),
            ]
        )
        == 0
    )
    assert not (out / "stale.txt").exists()
    assert (out / "attention.py").exists()


def test_bundle_public_checks_run_under_plain_pytest(
    tmp_path, course, assignment, reference_source
):
    """Stubs: every check skipped as not implemented; the reference pasted in: every check passes."""
    out = tmp_path / "ex"
    release.write(course, assignment, out=out, bundle=None)

    def run():
        return subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(out)],
            capture_output=True,
            text=True,
            cwd=out,
        )

    stubs = run()
    assert "5 skipped" in stubs.stdout, stubs.stdout
    (out / "attention.py").write_text(reference_source)
    done = run()
    assert "5 passed" in done.stdout, done.stdout
