"""Finding the submissions in a folder: one per student, with the files that hold their work."""

from __future__ import annotations

import os
from datetime import datetime
from pathlib import Path

from qkv.course import deadlines, layout
from qkv.errors import QkvError
from qkv.intake import notebook, stubs
from qkv.intake.files import is_notebook, not_regular, read_bytes, read_limited
from qkv.intake.submissions import Submission
from qkv.quiz.answers import BadAnswer, answered, decoded


def handin_time(folder: Path, listing: set[str] | None = None) -> tuple[datetime | None, str]:
    """When the work in `folder` was handed in, from its timestamp.txt (ISO 8601, or nbgrader's
    '2026-12-15 23:59:00.000000 UTC'), and '' or one line on why a timestamp.txt there was not used.
    `listing`: the folder's names, when the caller has listed it (see _listing)."""
    path = Path(folder) / layout.TIMESTAMP_FILE
    if not _present(folder, layout.TIMESTAMP_FILE, listing):
        return None, ""
    try:
        text = read_bytes(path, 200).decode("utf-8")
    except (QkvError, UnicodeDecodeError) as e:
        return (
            None,
            f"{_shown(path)}: not used ({e if isinstance(e, QkvError) else 'not UTF-8'}); graded as on time",
        )
    when = deadlines.parse_handin(text)
    if when is None:
        return None, f"{_shown(path)}: not a date ({text.strip()[:40]!r}); graded as on time"
    return when, ""


def read_timestamp(folder: Path) -> datetime | None:
    """When the submission in `folder` was handed in; None when there is no readable timestamp.txt."""
    return handin_time(folder)[0]


def _listing(folder: Path) -> set[str] | None:
    """The names in a folder, listed once instead of looked up one by one; None when it cannot be
    listed (a folder that may be searched but not read), and then each name is looked up."""
    try:
        return set(os.listdir(folder))
    except OSError:
        return None


def _present(folder: Path, name: str, listing: set[str] | None) -> bool:
    """Whether `name` is in the folder (a link counts, followed or not), from its listing if there is one."""
    return name in listing if listing is not None else os.path.lexists(Path(folder) / name)


def _found(folder: Path, names: tuple[str, ...], listing: set[str] | None) -> Path | None:
    """The first of `names` in the folder; else the one name there that differs from one of them only
    in case (Attention.py, saved on a system whose names ignore case); else None."""
    exact = next((folder / n for n in names if _present(folder, n, listing)), None)
    if exact is not None or listing is None:
        return exact
    alike = [folder / f for n in names for f in sorted(listing) if f.lower() == n.lower()]
    return alike[0] if len(alike) == 1 else None


def _renamed(names: tuple[str, ...], listing: set[str] | None) -> list[str]:
    """When none of `names` is there: the files that may be it under another name, as a browser or an
    LMS renames a download or a resubmission, for the first name that has any: those whose name holds
    its stem, with its ending (attention (1).py, attention-2.py, doe_123_attention.py,
    Answers_final.yml); failing that, the folder's only file with its ending (hw3.py). A public test
    file (test_attention.py) is never one. One file is the one to read; several, none is."""
    for name in names if listing is not None else ():
        stem, suffix = Path(name).stem.lower(), Path(name).suffix.lower()
        ending = [
            f
            for f in sorted(listing or ())
            if f.lower().endswith(suffix) and not f.lower().startswith(("test_", "."))
        ]
        holding = [f for f in ending if stem in f.lower()[: -len(suffix)]]
        if holding or len(ending) == 1:
            return holding or ending
    return []


def _code_file(
    folder: Path, names: tuple[str, ...], listing: set[str] | None
) -> tuple[Path | None, str, list[str]]:
    """(the code to grade or None, why there is none, lines about a renamed file read in its place)."""
    code = _found(folder, names, listing)
    if code is not None:
        return code, "", []
    maybe = _renamed(names, listing)
    if len(maybe) == 1:
        code = folder / maybe[0]
        return (
            code,
            "",
            [
                f"{_shown(code)}: graded as its {names[-1] if code.suffix.lower() == '.ipynb' else names[0]} "
                "(there is none of that name)"
            ],
        )
    named = f"{', '.join(maybe[:3])}{' ...' if len(maybe) > 3 else ''}"
    others = f"; {named} could each be it: hand in one" if maybe else ""
    return None, f"no {' or '.join(names)} in the folder{others}", []


def _answers_file(folder: Path, listing: set[str] | None) -> tuple[Path | None, list[str]]:
    """(the quiz answers file or None, lines about a renamed one read in its place); a blank answers.yaml
    (as released) gives way to an answers.yml beside it."""
    answers = _found(folder, layout.ANSWERS_FILES, listing)
    beside = layout.ANSWERS_FILES[1]
    if (
        answers is not None
        and answers.name == layout.ANSWERS_FILE
        and _present(folder, beside, listing)
        and answers_nothing(answers, STUB_READ_LIMIT)
    ):
        return folder / beside, []
    if answers is None and len(maybe := _renamed(layout.ANSWERS_FILES, listing)) == 1:
        answers = folder / maybe[0]
        return answers, [
            f"{_shown(answers)}: read as its {layout.ANSWERS_FILE} (there is none of that name)"
        ]
    return answers, []


def _one(
    folder: Path,
    student: str,
    names: tuple[str, ...],
    handin: str = "",
    listing: set[str] | None = None,
) -> tuple[Submission, list[str]]:
    """The submission in one folder, and lines about what was read in place of what (a renamed file, the
    notebook beside the release's .py) and about its timestamp."""
    code, problem, notes = _code_file(folder, names, listing)
    answers, more = _answers_file(folder, listing)
    notes += more
    notebook = (
        folder / names[-1]
        if code is not None
        and len(names) > 1
        and code.name == names[0]
        and _present(folder, names[-1], listing)
        and not not_regular(folder / names[-1])
        else None
    )
    # the whole released folder handed in, worked in its notebook
    if notebook is not None and code is not None and (why := _worked_in(notebook, code)):
        notes.append(f"{_shown(notebook)}: graded, not {code.name} beside it, which {why}")
        code = notebook
        if answers is not None and answers_nothing(answers, STUB_READ_LIMIT):
            notes.append(
                f"{_shown(answers)}: answers nothing, as released: the notebook's answers cell is read"
            )
            answers = None
    kind = not_regular(code) if code else ""
    if kind and code is not None:
        problem = f"{code.name} is {kind}, not a regular file; only regular files are read"
    when, note = handin_time(folder, listing)
    return Submission(
        student,
        code,
        answers,
        problem,
        handin=handin,
        submitted_at=deadlines.iso(when) if when else None,
    ), notes + ([note] if note else [])


STUB_READ_LIMIT = (
    4 << 20
)  # of a file read only to choose between two, at most this much (limits are the course's)


def _worked_in(notebook: Path, script: Path) -> str:
    """Why the notebook, not the .py beside it, holds the work ('' when it does not): it has fewer
    stubs left, or none while the .py does not even parse."""
    in_notebook, in_script = (
        stubs_in_file(notebook, 16 * STUB_READ_LIMIT),
        stubs_in_file(script, STUB_READ_LIMIT),
    )
    if in_notebook is None:
        return ""
    if in_script is None:
        return "does not parse" if in_notebook == 0 else ""
    return "holds more of the release's stubs" if in_notebook < in_script else ""


def _handin_folders(
    folder: Path, names: tuple[str, ...], listing: set[str] | None = None
) -> list[Path]:
    """Sub-folders holding a submission of their own: several hand-ins of one student (as LMS downloads give them)."""
    if any(_present(folder, n, listing) for n in names):
        return []
    return [
        f
        for f in sorted(folder.iterdir())
        if not f.name.startswith(".")
        and not_regular(f) == "a folder"
        and any(os.path.lexists(f / n) for n in names)
    ]


def _from_folder(
    folder: Path, names: tuple[str, ...], assignment: str | None = None, student: str | None = None
) -> tuple[list[Submission], list[str]]:
    """A student folder: one submission, or one per hand-in sub-folder (each with its timestamp.txt);
    and a line per thing not used. Files are looked at without following links (the quiz reader refuses
    a linked answers.yaml itself, with its own line). nbgrader's <student>/<assignment>/ is read as it is.
    `student`: the folder's name as the caller holds it (not pathlib's copy, kept in a table of its own)."""
    student = folder.name if student is None else student
    listing = _listing(folder)
    if (
        assignment
        and _present(folder, assignment, listing)
        and not_regular(folder / assignment) == "a folder"
    ):
        folder = folder / assignment
        listing = _listing(folder)
    handins = _handin_folders(folder, names, listing)
    if not handins:
        sub, notes = _one(folder, student, names, listing=listing)
        return [sub], notes
    subs, notes = [], []
    for path in handins:
        if not layout.is_valid_id(path.name):
            notes.append(f"{_shown(path)}: skipped, {path.name!r} is not a usable hand-in name")
            continue
        sub, lines = _one(path, student, names, handin=path.name)
        subs.append(sub)
        notes += lines
    return subs, notes


def discover(
    root: Path, names: tuple[str, ...], assignment: str | None = None
) -> tuple[list[Submission], list[str]]:
    """Every submission under root, sorted by student id (a student's hand-ins by time, then name), and
    one line per entry that was skipped (or whose timestamp.txt was not used).

    Args:
        names: the file names a submission's code may have (layout.submission_files).
        assignment: the assignment's id; with it, nbgrader's layout is read too: a course folder's
            submitted/<student>/<assignment>/.
    """
    skipped: list[str] = []
    return list(each_submission(root, names, assignment, skipped)), skipped


def each_submission(root: Path, names: tuple[str, ...], assignment: str | None, skipped: list[str]):
    """discover's submissions one at a time, holding only the folder's list of names meanwhile.

    Args:
        root: the submissions folder.
        names: the file names a submission's code may have, in order of preference.
        assignment: the assignment's id, for nbgrader's tree, or None.
        skipped: where a line on each skipped entry goes.

    Returns:
        An iterator of the submissions, sorted by student.
    """
    root = layout.submissions_root(root, assignment)
    if not root.is_dir():
        raise QkvError(f"{root}: not a folder of submissions")
    # by the student each entry would be, then by name: a student's first entry is theirs, others are skipped
    with os.scandir(root) as listing:
        entries = sorted(
            (e.name if e.is_dir(follow_symlinks=False) else os.path.splitext(e.name)[0], e.name)
            for e in listing
            if not e.name.startswith(".")
        )
    last = None
    for student, name in entries:
        entry = Path(
            os.path.join(root, name)
        )  # pathlib keeps its own copy of `name` alive, not the one kept here
        kind = not_regular(entry)
        if kind == "a folder":
            subs, notes = _from_folder(entry, names, assignment, student)
            skipped += notes
        elif entry.suffix in (".py", ".ipynb") and not kind:
            subs = [Submission(student, entry, None)]
        elif kind not in ("", "a folder"):
            skipped.append(
                f"{_shown(entry)}: skipped, {kind}; only regular files and folders are read"
            )
            continue
        else:
            skipped.append(f"{_shown(entry)}: skipped, not a submission folder, .py or .ipynb file")
            continue
        if not layout.is_valid_id(student):
            skipped.append(
                f"{_shown(entry)}: skipped, {student!r} is not a usable student id "
                f"({layout.ID_RULE})"
            )
            continue
        if student == last:
            skipped.append(
                f"{_shown(entry)}: skipped, student '{student}' already has a submission"
            )
            continue
        if subs:
            last = student
            yield from sorted(subs, key=lambda s: (s.submitted_at or "", s.handin))


def _shown(path: Path) -> str:
    """A path as one printable line (a file name may hold a newline or an escape sequence)."""
    return repr(str(path))[1:-1]


def stubs_in_file(path: Path, limit: int) -> int | None:
    """The stubs left in a .py file or in a notebook's solution cells (None when unreadable)."""
    try:
        data = read_limited(path, limit)
    except QkvError:
        return None
    if is_notebook(path):
        return notebook.stubs_left(data, path)
    return stubs.count(data)


def answers_nothing(path: Path, limit: int) -> bool:
    """Whether an answers file answers no question (as released: every id, and nothing after it)."""
    try:
        text = decoded(read_limited(path, limit), path.name)
    except (QkvError, BadAnswer):
        return False
    return answered(text) == 0
