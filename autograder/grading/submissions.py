"""Finding and reading submissions: untrusted names, sizes and encodings, each checked with one clear line."""
from __future__ import annotations

import dataclasses
import json
import os
import stat
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from autograder.content import loader
from autograder.grading import python_source, stubs
from autograder.grading.own_modules import own_modules
from autograder.sandbox import wire
from autograder.course import deadlines, layout
from autograder.course.config import Assignment, Course
from autograder.errors import QkvError

STUDENT_ID = layout.STUDENT_ID
is_valid_id = layout.is_valid_id  # re-exported: callers ask the submissions module


@dataclass(frozen=True)
class Submission:
    """One student's work: a folder (or a single file) named by the student id."""

    student: str
    code: Path | None  # the student's .py file or notebook
    answers: object = None  # answers.yaml (a Path), or quiz_answers.Answers once read ahead
    problem: str = ""  # why the submission cannot be graded at all, if it cannot
    files: dict[str, bytes] | None = None  # the code as read_code gives it, when read ahead (`with_files`)
    handin: str = ""  # the hand-in's sub-folder when the student handed in several times, else ''
    submitted_at: str | None = None  # when it was handed in (deadlines.iso), from timestamp.txt
    record: dict = field(default_factory=dict)  # facts the result keeps (hand-in, time, input hashes)

    @property
    def key(self) -> str:
        """Unique in a run: the student, or student/hand-in."""
        return f"{self.student}/{self.handin}" if self.handin else self.student


def not_regular(path: Path) -> str:
    """'' for a regular file; else why it is refused ('a symbolic link', 'a FIFO', ...), without following links."""
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return "not found"
    except OSError as e:
        return f"cannot be examined ({e.strerror})"
    if stat.S_ISREG(mode):
        return ""
    kinds = ((stat.S_ISLNK, "a symbolic link"), (stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a FIFO"),
             (stat.S_ISCHR, "a device"), (stat.S_ISBLK, "a device"), (stat.S_ISSOCK, "a socket"))
    return next((text for test, text in kinds if test(mode)), "not a regular file")


def _read_bytes(path: Path, limit: int) -> bytes:
    """A regular file's bytes, read without following a link and never more than `limit`."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except FileNotFoundError:
        raise QkvError(f"{path}: not found") from None
    except OSError as e:
        kind = not_regular(path)
        raise QkvError(f"{path}: {kind or f'cannot read ({e.strerror})'}; only regular files are read") from None
    try:
        info = os.fstat(fd)
        if stat.S_ISDIR(info.st_mode):
            raise QkvError(f"{path}: is a folder; give the file inside it")
        if not stat.S_ISREG(info.st_mode):
            raise QkvError(f"{path}: {not_regular(path)}, not a regular file; only regular files are read")
        if info.st_size > limit:
            raise QkvError(f"{path}: {info.st_size} bytes, larger than the {limit}-byte limit")
        try:
            data = _read_at_most(fd, limit + 1, info.st_size)  # never more, even if the file grew since fstat()
        except OSError as e:
            raise QkvError(f"{path}: cannot read ({e.strerror})") from None
    finally:
        os.close(fd)
    if len(data) > limit:
        raise QkvError(f"{path}: larger than the {limit}-byte limit")
    return data


def _read_at_most(fd: int, most: int, size: int) -> bytes:
    """Up to `most` bytes from fd, in reads the size of the file (a buffered read of `most` would first
    make room for all of it: megabytes, for a file of a few kilobytes)."""
    chunks = []
    while most > 0:
        chunk = os.read(fd, min(most, max(size + 1, 64 * 1024)))
        if not chunk:
            break
        chunks.append(chunk)
        most -= len(chunk)
    return b"".join(chunks)


def read_limited(path: Path, limit: int) -> bytes:
    """A regular file's bytes (no link followed, at most `limit`), or a QkvError naming the file."""
    return _read_bytes(path, limit)


def is_notebook(path: Path | None) -> bool:
    return path is not None and Path(path).suffix == ".ipynb"


def read_code(course: Course, assignment: Assignment, path: Path) -> dict[str, bytes]:
    """The files a worker gets for one submission: {'<module>.py': source bytes} (and, for a
    notebook, the map from lines of that code back to its cells)."""
    functions = loader.load(course, assignment).functions if is_notebook(path) else ()
    return code_files(path, entry=layout.code_file(assignment), functions=functions, limits=course.limits)


def code_files(path: Path, *, entry: str, functions, limits) -> dict[str, bytes]:
    """read_code without a course: `functions` are those a notebook's solution cells may define.

    A notebook may be as large as limits.max_notebook_kb (outputs and images included); the code
    taken from its solution cells must fit limits.max_submission_kb, like a .py file.
    """
    path = Path(path)
    limit = limits.max_submission_kb * 1024
    if is_notebook(path):
        from autograder.notebook import read as notebook  # noqa: PLC0415 - only notebook submissions need it
        data, starts = notebook.extract(_read_bytes(path, limits.max_notebook_kb * 1024), path, functions)
        if len(data) > limit:
            raise QkvError(f"{path}: its solution cells hold {len(data)} bytes of code, "
                           f"more than the {limit}-byte limit")
        # The worker names lines by cell with this map ("cell 7 (score), line 3"), as the student sees them.
        return {entry: data, wire.CELL_MAP_FILE: json.dumps(starts).encode(),
                **own_modules(path.parent, data, entry=entry, limit=limit, read=_read_bytes)}
    data = _read_bytes(path, limit)
    modules = own_modules(path.parent, data, entry=entry, limit=limit, read=_read_bytes)
    try:
        data = python_source.as_python_reads(data)
    except (SyntaxError, LookupError, UnicodeDecodeError) as e:
        where = f" (byte {e.start})" if isinstance(e, UnicodeDecodeError) else ""
        raise QkvError(f"{path}: not UTF-8 text{where}, and no coding line says what it is; save the file as UTF-8") \
            from None
    return {entry: data, **modules}


def notebook_answers(path: Path, limits):
    """The quiz answers cell of a notebook, as quiz.answers.Answers (its problem said when unreadable)."""
    from autograder.notebook import read as notebook  # noqa: PLC0415
    from autograder.quiz.answers import Answers  # noqa: PLC0415
    try:
        data = _read_bytes(Path(path), limits.max_notebook_kb * 1024)
    except QkvError as e:  # named by the file's name only: this line goes into feedback
        name = Path(path).name
        return Answers(f"{name} (quiz answers cell)", None,
                       f"{str(e).replace(str(path), name)}; no quiz answers could be graded")
    return notebook.answers(data, path)


def answers_source(course: Course, sub: "Submission"):
    """Where the quiz grader reads this student's answers: answers.yaml when there is one, else the
    answers cell of their notebook (as quiz_answers.Answers), else None (nothing submitted)."""
    if sub.answers is not None or not is_notebook(sub.code):
        return sub.answers  # a path, or Answers already read by with_files
    return notebook_answers(sub.code, course.limits)


def with_files(course: Course, assignment: Assignment, sub: Submission) -> Submission:
    """The submission with its code and quiz answers read into memory, for a grader that cannot see this disk.

    Reading is the caller's side: the size limit and the encoding checks of read_code apply here,
    and a file that fails them becomes the submission's problem, as it would when graded locally.
    """
    from autograder.quiz.answers import read_ahead  # noqa: PLC0415

    answers = read_ahead(answers_source(course, sub))  # the quiz answers travel too, as text
    if sub.problem or sub.files is not None or sub.code is None:
        return dataclasses.replace(sub, answers=answers)
    try:
        return dataclasses.replace(sub, files=read_code(course, assignment, sub.code), answers=answers)
    except QkvError as e:
        return dataclasses.replace(sub, problem=str(e), answers=answers)


def handin_time(folder: Path, listing: set[str] | None = None) -> tuple[datetime | None, str]:
    """When the work in `folder` was handed in, from its timestamp.txt (ISO 8601, or nbgrader's
    '2026-12-15 23:59:00.000000 UTC'), and '' or one line on why a timestamp.txt there was not used.
    `listing`: the folder's names, when the caller has listed it (see _listing)."""
    path = Path(folder) / layout.TIMESTAMP_FILE
    if not _present(folder, layout.TIMESTAMP_FILE, listing):
        return None, ""
    try:
        text = _read_bytes(path, 200).decode("utf-8")
    except (QkvError, UnicodeDecodeError) as e:
        return None, f"{_shown(path)}: not used ({e if isinstance(e, QkvError) else 'not UTF-8'}); graded as on time"
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
        ending = [f for f in sorted(listing) if f.lower().endswith(suffix) and not f.lower().startswith(("test_", "."))]
        holding = [f for f in ending if stem in f.lower()[:-len(suffix)]]
        if holding or len(ending) == 1:
            return holding or ending
    return []


def _code_file(folder: Path, names: tuple[str, ...], listing: set[str] | None) -> tuple[Path | None, str, list[str]]:
    """(the code to grade or None, why there is none, lines about a renamed file read in its place)."""
    code = _found(folder, names, listing)
    if code is not None:
        return code, "", []
    maybe = _renamed(names, listing)
    if len(maybe) == 1:
        code = folder / maybe[0]
        return code, "", [f"{_shown(code)}: graded as its {names[-1] if code.suffix.lower() == '.ipynb' else names[0]} "
                          "(there is none of that name)"]
    named = f"{', '.join(maybe[:3])}{' ...' if len(maybe) > 3 else ''}"
    others = f"; {named} could each be it: hand in one" if maybe else ""
    return None, f"no {' or '.join(names)} in the folder{others}", []


def _answers_file(folder: Path, listing: set[str] | None) -> tuple[Path | None, list[str]]:
    """(the quiz answers file or None, lines about a renamed one read in its place); a blank answers.yaml
    (as released) gives way to an answers.yml beside it."""
    answers = _found(folder, layout.ANSWERS_FILES, listing)
    beside = layout.ANSWERS_FILES[1]
    if answers is not None and answers.name == layout.ANSWERS_FILE and _present(folder, beside, listing) \
            and stubs.answers_nothing(answers, STUB_READ_LIMIT):
        return folder / beside, []
    if answers is None and len(maybe := _renamed(layout.ANSWERS_FILES, listing)) == 1:
        answers = folder / maybe[0]
        return answers, [f"{_shown(answers)}: read as its {layout.ANSWERS_FILE} (there is none of that name)"]
    return answers, []


def _one(folder: Path, student: str, names: tuple[str, ...], handin: str = "",
         listing: set[str] | None = None) -> tuple[Submission, list[str]]:
    """The submission in one folder, and lines about what was read in place of what (a renamed file, the
    notebook beside the release's .py) and about its timestamp."""
    code, problem, notes = _code_file(folder, names, listing)
    answers, more = _answers_file(folder, listing)
    notes += more
    notebook = folder / names[-1] if code is not None and len(names) > 1 and code.name == names[0] \
        and _present(folder, names[-1], listing) and not not_regular(folder / names[-1]) else None
    # the whole released folder handed in, worked in its notebook
    if notebook is not None and (why := _worked_in(notebook, code)):
        notes.append(f"{_shown(notebook)}: graded, not {code.name} beside it, which {why}")
        code = notebook
        if answers is not None and stubs.answers_nothing(answers, STUB_READ_LIMIT):
            notes.append(f"{_shown(answers)}: answers nothing, as released: the notebook's answers cell is read")
            answers = None
    kind = not_regular(code) if code else ""
    if kind:
        problem = f"{code.name} is {kind}, not a regular file; only regular files are read"
    when, note = handin_time(folder, listing)
    return Submission(student, code, answers, problem, handin=handin,
                      submitted_at=deadlines.iso(when) if when else None), notes + ([note] if note else [])


STUB_READ_LIMIT = 4 << 20  # of a file read only to choose between two, at most this much (limits are the course's)


def _worked_in(notebook: Path, script: Path) -> str:
    """Why the notebook, not the .py beside it, holds the work ('' when it does not): it has fewer
    stubs left, or none while the .py does not even parse."""
    in_notebook, in_script = stubs.in_file(notebook, 16 * STUB_READ_LIMIT), stubs.in_file(script, STUB_READ_LIMIT)
    if in_notebook is None:
        return ""
    if in_script is None:
        return "does not parse" if in_notebook == 0 else ""
    return "holds more of the release's stubs" if in_notebook < in_script else ""


def _handin_folders(folder: Path, names: tuple[str, ...], listing: set[str] | None = None) -> list[Path]:
    """Sub-folders holding a submission of their own: several hand-ins of one student (as LMS downloads give them)."""
    if any(_present(folder, n, listing) for n in names):
        return []
    return [f for f in sorted(folder.iterdir()) if not f.name.startswith(".") and not_regular(f) == "a folder"
            and any(os.path.lexists(f / n) for n in names)]


def _from_folder(folder: Path, names: tuple[str, ...], assignment: str | None = None,
                 student: str | None = None) -> tuple[list[Submission], list[str]]:
    """A student folder: one submission, or one per hand-in sub-folder (each with its timestamp.txt);
    and a line per thing not used. Files are looked at without following links (the quiz reader refuses
    a linked answers.yaml itself, with its own line). nbgrader's <student>/<assignment>/ is read as it is.
    `student`: the folder's name as the caller holds it (not pathlib's copy, kept in a table of its own)."""
    student = folder.name if student is None else student
    listing = _listing(folder)
    if assignment and _present(folder, assignment, listing) and not_regular(folder / assignment) == "a folder":
        folder = folder / assignment
        listing = _listing(folder)
    handins = _handin_folders(folder, names, listing)
    if not handins:
        sub, notes = _one(folder, student, names, listing=listing)
        return [sub], notes
    subs, notes = [], []
    for path in handins:
        if not is_valid_id(path.name):
            notes.append(f"{_shown(path)}: skipped, {path.name!r} is not a usable hand-in name")
            continue
        sub, lines = _one(path, student, names, handin=path.name)
        subs.append(sub)
        notes += lines
    return subs, notes


def discover(root: Path, names: tuple[str, ...], assignment: str | None = None) -> tuple[list[Submission], list[str]]:
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
    """discover's submissions one at a time (its lines go to `skipped` on the way): what is held
    meanwhile is the folder's list of names, not the class's submissions."""
    root = layout.submissions_root(root, assignment)
    if not root.is_dir():
        raise QkvError(f"{root}: not a folder of submissions")
    # by the student each entry would be, then by name: a student's first entry is theirs, others are skipped
    with os.scandir(root) as listing:
        entries = sorted((e.name if e.is_dir(follow_symlinks=False) else os.path.splitext(e.name)[0], e.name)
                         for e in listing if not e.name.startswith("."))
    last = None
    for student, name in entries:
        entry = Path(os.path.join(root, name))  # pathlib keeps its own copy of `name` alive, not the one kept here
        kind = not_regular(entry)
        if kind == "a folder":
            subs, notes = _from_folder(entry, names, assignment, student)
            skipped += notes
        elif entry.suffix in (".py", ".ipynb") and not kind:
            subs = [Submission(student, entry, None)]
        elif kind not in ("", "a folder"):
            skipped.append(f"{_shown(entry)}: skipped, {kind}; only regular files and folders are read")
            continue
        else:
            skipped.append(f"{_shown(entry)}: skipped, not a submission folder, .py or .ipynb file")
            continue
        if not is_valid_id(student):
            skipped.append(f"{_shown(entry)}: skipped, {student!r} is not a usable student id "
                           f"({layout.ID_RULE})")
            continue
        if student == last:
            skipped.append(f"{_shown(entry)}: skipped, student '{student}' already has a submission")
            continue
        if subs:
            last = student
            yield from sorted(subs, key=lambda s: (s.submitted_at or "", s.handin))


def _shown(path: Path) -> str:
    """A path as one printable line (a file name may hold a newline or an escape sequence)."""
    return repr(str(path))[1:-1]
