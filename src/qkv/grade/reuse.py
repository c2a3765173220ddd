"""Which earlier results a rerun may keep: a result stores hashes of what it was graded from.

A student is graded again when any of these changed since their result was written: the
submission's bytes (code and quiz answers), its hand-in time, what of course.yaml decides grades
(`config.grading_view`: not the deadline, late windows, extensions, title or roster, which only
change what the gradebook computes from results), the assignment's content (reference, suites,
quiz master, hooks), or the kit (its version, or its own code: a development copy between releases
grades with other code too). The reason is kept per student for the summary.
"""

from __future__ import annotations

import functools
import hashlib
import json
from pathlib import Path

from qkv import __version__
from qkv.course import layout
from qkv.course.config import grading_view
from qkv.errors import QkvError
from qkv.intake.files import read_limited
from qkv.intake.own_modules import own_modules
from qkv.intake.submissions import Submission
from qkv.results import records as results

# Reasons, in the order a summary names them.
REASONS = {
    "new": "new (no earlier result)",
    "force": "--force",
    "submission": "submission changed",
    "submitted_at": "hand-in time changed",
    "course": "course.yaml changed",
    "content": "suites or reference changed",
    "kit": "the kit changed (its version or its code)",
}


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:20]


def run_inputs(course, assignment) -> dict:
    """The hashes every student of this run shares: course, content and kit."""
    view = json.dumps(grading_view(course, assignment), sort_keys=True, default=str).encode()
    return {
        "course": _sha(view),
        "content": content_hash(course, assignment),
        "kit": f"{__version__}+{code_hash()}",
    }


# The `qkv` package: the kit's own files.
PACKAGE = Path(__file__).resolve().parent.parent


@functools.cache
def code_hash(root: Path = PACKAGE) -> str:
    """A hash of the kit's own files (the `qkv` package: code, templates, schemas)."""
    digest = hashlib.sha256()
    for path in sorted(
        p
        for p in root.rglob("*")
        if p.is_file() and p.suffix in (".py", ".json") and "__pycache__" not in p.parts
    ):
        digest.update(
            path.relative_to(root).as_posix().encode()
            + b"\0"
            + _sha(path.read_bytes()).encode()
            + b"\0"
        )
    return digest.hexdigest()[:12]


def content_hash(course, assignment) -> str:
    """A hash of the assignment's content folder (reference, suites, hooks) and its quiz master."""
    folder = layout.content_dir(course, assignment)
    paths = [
        (p.relative_to(folder).as_posix(), p)
        for p in sorted(folder.rglob("*"))
        if p.is_file() and "__pycache__" not in p.parts
    ]
    if assignment.quiz:
        paths.append(("quiz", course.path(assignment.quiz)))
    digest = hashlib.sha256()
    for name, path in paths:
        try:
            data = path.read_bytes()
        except OSError as e:
            raise QkvError(f"{path}: cannot read ({e.strerror})") from None
        digest.update(name.encode() + b"\0" + _sha(data).encode() + b"\0")
    return digest.hexdigest()[:20]


def submission_hash(course, sub: Submission) -> str:
    """A hash of the student's code and quiz answers as they are on disk (a file that cannot be read
    is hashed by the reason, so fixing it counts as a change)."""
    digest = hashlib.sha256(sub.problem.encode() + b"\0")
    limit = max(course.limits.max_notebook_kb, course.limits.max_submission_kb) * 1024
    for path in (sub.code, sub.answers):
        if isinstance(path, Path):
            try:
                data = read_limited(path, limit)
                digest.update(_sha(data).encode())
                if path is sub.code:  # the modules of its own it imports count as its code
                    modules = own_modules(
                        path.parent,
                        data,
                        entry=path.name,
                        limit=course.limits.max_submission_kb * 1024,
                        read=read_limited,
                    )
                    for name, module in sorted(modules.items()):
                        digest.update(f"\0{name}\0{_sha(module)}".encode())
            except QkvError as e:
                digest.update(str(e).encode())
        digest.update(b"\0")
    return digest.hexdigest()[:20]


def inputs_of(course, sub: Submission, shared: dict) -> dict:
    """What decides one hand-in's grades, as results store it: a rerun regrades when it differs.

    Args:
        course: the course.
        sub: the hand-in.
        shared: the run's inputs every hand-in shares (run_inputs).

    Returns:
        The hand-in's inputs: its submission's hash and time, and the shared ones.
    """
    return {
        "submission": submission_hash(course, sub),
        "submitted_at": sub.submitted_at or "",
        **shared,
    }


def stored_inputs(out: Path, sub: Submission) -> dict | None:
    """The inputs the stored result of this submission was graded from; None when it has none."""
    path = results.path_for(out, sub.student, sub.handin)
    try:
        extra = json.loads(path.read_text(encoding="utf-8"))["extra_data"]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if (
        not isinstance(extra, dict)
        or extra.get("student") != sub.student
        or not isinstance(extra.get("inputs"), dict)
    ):
        return None
    return extra["inputs"]


def why(stored: dict | None, current: dict) -> str:
    """'' when the stored result still holds; else the key of REASONS that comes first."""
    if stored is None:
        return "new"
    return next((key for key in REASONS if key in current and stored.get(key) != current[key]), "")
