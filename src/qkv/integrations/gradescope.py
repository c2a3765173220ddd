"""Gradescope: the autograder zip, and grading its one submission inside Gradescope's container.

`build_zip` writes what Gradescope asks for at the zip root (setup.sh, run_autograder) beside a
copy of this kit: the package with its hidden suites, pyproject.toml, the course file and the
assignment's reference. Gradescope unpacks the zip into /autograder/source, runs setup.sh once
when it builds the image, then run_autograder for every submission; that calls `run`, which grades
/autograder/submission with `grade.grade` (the same sandbox and suites as a batch) and writes
/autograder/results/results.json: the student's results.json as a batch writes it, plus the
run's time and the output formats. The root is QKV_GRADESCOPE_ROOT when set (for tests).
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import tempfile
import time
import zipfile
from datetime import datetime
from pathlib import Path

from qkv.content import loader
from qkv.course import deadlines, layout
from qkv.course.config import Course
from qkv.errors import QkvError
from qkv.grade.batch import grade
from qkv.intake.submissions import is_valid_id
from qkv.results import records as results

ROOT_ENV = "QKV_GRADESCOPE_ROOT"
DEFAULT_ROOT = Path("/autograder")
PACKAGE = Path(__file__).resolve().parents[1]
KIT_ROOT = PACKAGE.parents[1]  # the checkout: src/qkv lies two folders down
SCHEMA = PACKAGE / "integrations" / "schemas" / "gradescope_results.schema.json"
ZIP_TIME = (1980, 1, 1, 0, 0, 0)  # fixed: the same kit gives the same zip, byte for byte

SETUP_SH = """\
#!/usr/bin/env bash
# Gradescope runs this once, as root, when it builds the autograder image (Ubuntu): a virtual
# environment holding this kit and its dependencies. The sandbox needs nothing else from apt: it
# reaches Landlock, namespaces and cgroups through the kernel, and says so in the results when the
# image lacks one of them.
set -euo pipefail
ROOT="${QKV_GRADESCOPE_ROOT:-/autograder}"
SOURCE="$ROOT/source"
apt-get update -q
apt-get install -y -q --no-install-recommends python3 python3-venv python3-pip
if ! python3 -c 'import sys; sys.exit(sys.version_info < (3, 11))'; then
    echo "qkv-kit needs Python 3.11 or newer: choose an Ubuntu 24.04 (or newer) base image" >&2
    exit 1
fi
python3 -m venv "$ROOT/venv"
"$ROOT/venv/bin/pip" install --quiet --upgrade pip
"$ROOT/venv/bin/pip" install --quiet "$SOURCE"
# The course files (reference, quiz answers, hidden suites) stay unreadable to the sandbox's uids.
chmod -R go-rwx "$SOURCE"
"""

RUN_AUTOGRADER = """\
#!/usr/bin/env bash
# Gradescope runs this for every submission, as root, in /autograder: grade
# /autograder/submission in qkv-kit's sandbox and write /autograder/results/results.json.
# QKV_GRADESCOPE_ROOT and QKV_GRADESCOPE_PYTHON replace /autograder and its venv's python (tests).
set -euo pipefail
ROOT="${{QKV_GRADESCOPE_ROOT:-/autograder}}"
SOURCE="$ROOT/source"
PYTHON="${{QKV_GRADESCOPE_PYTHON:-$ROOT/venv/bin/python}}"
export PYTHONPATH="$SOURCE/src${{PYTHONPATH:+:$PYTHONPATH}}"  # the kit exactly as this zip ships it
export OPENBLAS_NUM_THREADS=1
cd "$ROOT"
exec "$PYTHON" -m qkv.cli gradescope-run --course "$SOURCE"/{course_file} --assignment {assignment} --root "$ROOT"
"""


# -- the zip ------------------------------------------------------------------------------------


def _inside(course: Course, relative: str) -> Path:
    path = course.path(relative)
    if not path.resolve().is_relative_to(course.root.resolve()):
        raise QkvError(
            f"{relative}: outside the course folder; the autograder zip keeps paths relative to course.yaml"
        )
    if not path.is_file():
        raise QkvError(f"{path}: not found")
    return path


def kit_files(course: Course, course_path: Path, assignment: str) -> dict[str, Path]:
    """Every file the zip carries besides the two scripts: name in the zip -> file here.

    Args:
        course: the course, whose files for this assignment go in.
        course_path: its course.yaml, carried under its own name.
        assignment: the assignment's id.
    """
    a = course.assignment(assignment)
    files = {}
    for name in ("pyproject.toml", "README.md"):
        if not (KIT_ROOT / name).is_file():
            raise QkvError(
                f"{KIT_ROOT / name}: not found; build the autograder zip from a checkout of qkv-kit"
            )
        files[name] = KIT_ROOT / name
    for path in sorted(PACKAGE.rglob("*")):
        parts = path.relative_to(PACKAGE).parts
        if (
            path.is_file()
            and "__pycache__" not in parts
            and not any(p.startswith(".") for p in parts)
        ):
            files[f"src/{PACKAGE.name}/{path.relative_to(PACKAGE).as_posix()}"] = path
    files[course_path.name] = course_path
    for relative in filter(None, (a.source, a.quiz)):
        _inside(course, relative)
    for name in loader.snapshot(course, a):
        files[name] = course.root / name
    return files


def build_zip(course: Course, course_path: Path, *, assignment: str, out: Path) -> Path:
    """Write the Gradescope autograder zip for one assignment.

    Args:
        course: the course.
        course_path: its course.yaml, copied into the zip.
        assignment: the assignment's id.
        out: the zip to write.

    Returns:
        The zip's path.
    """
    course.assignment(assignment)
    scripts = {
        "setup.sh": SETUP_SH,
        "run_autograder": RUN_AUTOGRADER.format(
            course_file=shlex.quote(course_path.name), assignment=shlex.quote(assignment)
        ),
    }
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(f".{out.name}.{os.getpid()}.tmp")
    with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as z:
        for name, text in scripts.items():
            _add(z, name, text.encode("utf-8"), 0o755)
        for name, path in sorted(kit_files(course, course_path, assignment).items()):
            _add(z, name, path.read_bytes(), 0o644)
    os.replace(tmp, out)
    return out


def _add(z: zipfile.ZipFile, name: str, data: bytes, mode: int) -> None:
    info = zipfile.ZipInfo(name, ZIP_TIME)
    info.external_attr = (0o100000 | mode) << 16  # a regular file with these permissions
    info.compress_type = zipfile.ZIP_DEFLATED
    z.writestr(info, data)


# -- one submission, inside Gradescope's container -----------------------------------------------


def default_root() -> Path:
    return Path(os.environ.get(ROOT_ENV) or DEFAULT_ROOT)


def student_of(metadata: dict) -> str:
    """The student id for seeds and results: the first submitter's email, else their Gradescope id."""
    users = metadata.get("users") or [{}]
    user = users[0] if isinstance(users[0], dict) else {}
    for candidate in (
        user.get("email"),
        f"user-{user['id']}" if user.get("id") is not None else None,
    ):
        if is_valid_id(candidate):
            return candidate
    return "student"


def read_metadata(path: Path) -> dict:
    """submission_metadata.json, or {} when there is none (a run outside Gradescope)."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as e:
        raise QkvError(f"{path}: unreadable submission metadata ({e})") from None
    return data if isinstance(data, dict) else {}


def _when(text) -> datetime | None:
    try:
        return datetime.fromisoformat(text) if isinstance(text, str) else None
    except ValueError:
        return None


def submission_facts(metadata: dict) -> dict:
    """What results.json keeps of the metadata: who, when, and whether it was after the due date."""
    given = metadata.get("assignment")
    assignment = given if isinstance(given, dict) else {}
    users = [u for u in metadata.get("users") or [] if isinstance(u, dict)]
    due, created = _when(assignment.get("due_date")), _when(metadata.get("created_at"))
    return {
        "submission_id": metadata.get("id"),
        "created_at": metadata.get("created_at"),
        "due_date": assignment.get("due_date"),
        "late": bool(due and created and created > due),
        "users": [u.get("email") or u.get("name") for u in users],
    }


FIND_DEPTH = 16  # how many folders deep an upload is searched for the student's file


def _find(folder: Path, name: str) -> Path | None:
    """The student's file: at the top of the upload, else the shallowest copy in a subfolder (of those
    equally deep, the first by path), at most FIND_DEPTH folders down.

    Folder by folder, level by level, not with rglob, which recurses once per level: an upload whose
    folders nest thousands deep would end the grading with a RecursionError. Links are neither
    followed nor taken (one could point at the reference inside the container), nor are hidden folders
    and macOS's __MACOSX."""
    level = [str(folder)]
    for _ in range(FIND_DEPTH + 1):
        found: list[str] = []
        deeper: list[str] = []
        for where in level:
            try:
                with os.scandir(where) as entries:
                    for entry in entries:
                        if entry.name.startswith((".", "__MACOSX")):
                            continue
                        if entry.is_dir(follow_symlinks=False):
                            deeper.append(entry.path)
                        elif entry.name == name and entry.is_file(follow_symlinks=False):
                            found.append(entry.path)
            except OSError:  # unreadable, or vanished: nothing of it is found
                continue
        if found:
            return Path(min(found))
        level = sorted(deeper)
    return None


def stage_submission(
    submission: Path, dest: Path, names: tuple[str, ...], *, created_at=None
) -> None:
    """Copy the student's files into dest (a submission folder as `qkv grade` expects one).

    Args:
        names: the names the student's code may have (layout.submission_files).
        created_at: when Gradescope received it (submission_metadata.json), kept as its timestamp.txt.
    """
    dest.mkdir(parents=True)
    when = deadlines.parse_handin(created_at) if isinstance(created_at, str) else None
    if when is not None:
        (dest / layout.TIMESTAMP_FILE).write_text(deadlines.iso(when) + "\n", encoding="utf-8")
    if not submission.is_dir():
        return
    code = [p for p in (_find(submission, n) for n in names) if p is not None]
    answers = [p for p in (_find(submission, n) for n in layout.ANSWERS_FILES) if p is not None]
    # Every file of those names (the grading tells which holds the work, as it does for a folder of
    # submissions: a notebook beside the release's stub .py, say); none: the upload's own files with
    # the ending, for the grading to tell which one is it (renamed, or named in another case)
    for path in (code or _top_files(submission, (".py", ".ipynb"))) + (
        answers or _top_files(submission, (".yaml", ".yml"))
    ):
        shutil.copyfile(path, dest / path.name)
    for folder in dict.fromkeys(
        [p.parent for p in code] or [submission]
    ):  # modules of the student's own
        for path in _top_files(folder, (".py",)):  # the code may import (grading/own_modules.py)
            if not (dest / path.name).exists():
                shutil.copyfile(path, dest / path.name)


def _top_files(folder: Path, endings: tuple[str, ...]) -> list[Path]:
    """The regular files (not links) at the top of an upload whose names end so, in any case."""
    return sorted(
        p
        for p in folder.iterdir()
        if p.name.lower().endswith(endings)
        and not p.name.startswith(".")
        and p.is_file()
        and not p.is_symlink()
    )


def _apply_late_policy(data: dict, assignment, student: str) -> None:
    """The score Gradescope shows is the one that counts: the checks' total times the late credit of
    course.yaml's deadline and windows (Gradescope itself takes no points for lateness)."""
    submitted = data["extra_data"].get("submitted_at")
    credit = deadlines.credit(assignment, student, submitted)
    if credit == deadlines.FULL_CREDIT:
        return
    total = data["score"]
    data["score"] = deadlines.final(total, credit)
    data["extra_data"]["late_credit"] = {
        "submitted_at": submitted,
        "total": total,
        "credit": credit,
    }
    data["output"] = (
        f"Handed in {submitted}, after the deadline: {credit:g} % of {total:g} points count, "
        f"{data['score']:g}. " + data["output"]
    )


def _keep_best(data: dict, metadata: dict) -> None:
    """resubmissions: best. Gradescope shows the active (latest) submission's score; when an earlier
    submission (`previous_submissions`, scored by this autograder, late credit included) scored more,
    that score is the one that counts, and the output says which submission earned it."""
    earlier = [
        p
        for p in metadata.get("previous_submissions") or []
        if isinstance(p, dict)
        and isinstance(p.get("score"), (int, float))
        and not isinstance(p.get("score"), bool)
    ]
    best = max(earlier, key=lambda p: p["score"], default=None)
    if best is None or best["score"] <= data["score"]:
        return
    data["extra_data"]["best_of_resubmissions"] = {
        "this_submission": data["score"],
        "counted": best["score"],
        "submission_time": best.get("submission_time"),
    }
    data["output"] = (
        f"Your submission of {best.get('submission_time')} scored {best['score']:g}, more than this "
        f"one ({data['score']:g}); the course counts your best. " + data["output"]
    )
    data["score"] = float(best["score"])


def run(course: Course, *, assignment: str, root: Path, weak_sandbox: bool = False) -> dict:
    """Grade root/submission and write root/results/results.json, inside Gradescope's container.

    Args:
        course: the course.
        assignment: the assignment's id.
        root: Gradescope's folder (/autograder).
        weak_sandbox: grade even when the container lacks a sandbox layer.

    Returns:
        What was written to results.json.
    """
    started = time.monotonic()
    root = Path(root)
    metadata = read_metadata(root / "submission_metadata.json")
    student = student_of(metadata)
    with tempfile.TemporaryDirectory(prefix="qkv-gradescope-") as tmp:
        subs, out = Path(tmp) / "submissions", Path(tmp) / "graded"
        stage_submission(
            root / "submission",
            subs / student,
            layout.submission_files(course.assignment(assignment)),
            created_at=metadata.get("created_at"),
        )
        summary = grade(
            course,
            subs,
            assignment=assignment,
            out=out,
            jobs=1,
            progress=False,
            pages=False,
            weak_sandbox=weak_sandbox,
        )
        data = json.loads(results.path_for(out, student).read_text(encoding="utf-8"))
    data["extra_data"]["gradescope"] = submission_facts(metadata)
    _apply_late_policy(data, course.assignment(assignment), student)
    if course.resubmissions == "best":
        _keep_best(data, metadata)
    data["extra_data"]["isolation"] = summary.isolation
    data["extra_data"]["grader_errors"] = summary.errors
    data.update(
        execution_time=round(time.monotonic() - started, 3),
        output_format="text",
        test_output_format="text",
        test_name_format="text",
    )
    results.atomic_write(
        root / "results" / "results.json",
        json.dumps(json.loads(results.strict_json(data)), indent=1, sort_keys=True, allow_nan=False)
        + "\n",
    )
    return data
