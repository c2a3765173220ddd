"""`qkv release`: the student version, generated from the instructor master by ordered small steps.

Each step takes and returns nothing but works on one Release (the files being built); the order
is the STEPS tuple below, and a test asserts it.
"""

from __future__ import annotations

import ast
import io
import json
import re
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

from qkv.content import loader
from qkv.course import layout
from qkv.course.config import Assignment, Course
from qkv.errors import QkvError
from qkv.quiz import form as quiz_form
from qkv.quiz import master as quiz_master
from qkv.quiz import render as quiz_render
from qkv.release import notebook as notebook_build
from qkv.shipped import cases as public_cases
from qkv.shipped import checks as public_checks
from qkv.shipped import compare

BEGIN = "### BEGIN SOLUTION"
END = "### END SOLUTION"
QUIZ_FILE = layout.QUIZ_FILE
ANSWERS_FILE = layout.ANSWERS_FILE
# Lines of the quiz master that carry an answer; none may appear in a released file.
QUIZ_ANSWER_LINE = re.compile(r"^(- )?(correct|answer|feedback|hint):")
TEMPLATES = Path(__file__).resolve().parents[1] / "shipped" / "templates"
ZIP_DATE = (2020, 1, 1, 0, 0, 0)  # fixed, so the bundle is byte-identical on every release


@dataclass
class Release:
    course: Course
    assignment: Assignment
    master: str = ""
    files: dict[str, str] = field(default_factory=dict)  # relative path -> text
    content: loader.Content | None = None  # the assignment's content, once read_master has run

    @property
    def student_file(self) -> str:
        return layout.code_file(self.assignment)

    # The quiz master, with answers, when the assignment has one.
    quiz: quiz_master.Quiz | None = None

    @property
    def loaded(self) -> loader.Content:
        """The content, which read_master loads first."""
        assert self.content is not None, "read_master runs first"
        return self.content


def read_master(r: Release) -> None:
    r.content = loader.load(r.course, r.assignment)
    path = r.course.path(r.assignment.source)
    try:
        r.master = path.read_text(encoding="utf-8")
    except OSError as e:
        raise QkvError(f"{path}: cannot read the master ({e.strerror})") from None


def solution_blocks(source: str) -> list[tuple[int, int]]:
    """(begin, end) 0-based line indices of each marker pair; raises QkvError when unbalanced."""
    blocks, begin = [], None
    for i, line in enumerate(source.splitlines()):
        tag = line.strip()
        if tag == BEGIN:
            if begin is not None:
                raise QkvError(f"line {i + 1}: {BEGIN} inside another solution block")
            begin = i
        elif tag == END:
            if begin is None:
                raise QkvError(f"line {i + 1}: {END} without {BEGIN}")
            blocks.append((begin, i))
            begin = None
    if begin is not None:
        raise QkvError(f"line {begin + 1}: {BEGIN} is never closed")
    return blocks


def clear_text(source: str, name: str) -> str:
    """The source with each solution block replaced by `raise NotImplementedError` at its indentation."""
    lines = source.splitlines(keepends=True)
    blocks = solution_blocks(source)
    if not blocks:
        raise QkvError(f"{name}: no {BEGIN} markers")
    out, last = [], 0
    for begin, end in blocks:
        found = re.match(r"\s*", lines[begin])
        assert found is not None  # \s* matches any line
        indent = found.group(0)
        out += lines[last:begin]
        out.append(f"{indent}# YOUR CODE HERE\n{indent}raise NotImplementedError()\n")
        last = end + 1
    out += lines[last:]
    return "".join(out)


def clear_solutions(r: Release) -> None:
    """Replace each solution block by `raise NotImplementedError` at the block's indentation."""
    r.files[r.student_file] = clear_text(
        r.master, r.assignment.source if r.assignment else "the master"
    )


def _signatures(source: str) -> dict[str, tuple[str, str | None]]:
    tree = ast.parse(source)
    return {
        n.name: (ast.unparse(n.args), ast.get_docstring(n))
        for n in tree.body
        if isinstance(n, ast.FunctionDef)
    }


def check_stub_signatures(r: Release) -> None:
    """The stub keeps every function of the master with the same arguments and docstring."""
    if _signatures(r.files[r.student_file]) != _signatures(r.master):
        raise QkvError(
            f"{r.assignment.source}: the stub's signatures or docstrings differ from the master's"
        )
    missing = set(r.loaded.functions) - set(_signatures(r.master))
    if missing:
        raise QkvError(f"{r.assignment.source}: missing {', '.join(sorted(missing))}")


PACKAGE_IMPORT = re.compile(r"^from qkv\.shipped\.(\w+) import (.+?)(\s+#.*)?$", re.MULTILINE)


def bundled(source: str) -> str:
    """A public module as the student bundle holds it: its siblings imported by their bare names.

    In the kit they are imported through the package, so that no file beside a student's work
    can stand in for them in a trusted process.
    """
    return PACKAGE_IMPORT.sub(lambda m: f"from {m.group(1)} import {m.group(2)}", source)


def add_public_checks(r: Release) -> None:
    """Ship the comparison helpers and the public checks, plus a pytest file that runs them."""
    for name, module in (
        (layout.COMPARE_FILE, compare),
        (layout.PUBLIC_CHECKS_FILE, public_checks),
    ):
        assert module.__file__ is not None
        r.files[name] = bundled(Path(module.__file__).read_text(encoding="utf-8"))
    template = (TEMPLATES / "test_public.py").read_text(encoding="utf-8")
    r.files[layout.public_test_file(r.assignment)] = template.replace(
        "{module}", layout.module_name(r.assignment)
    )


def add_public_cases(r: Release) -> None:
    ref = r.loaded.reference_from(r.master, where=r.assignment.source)
    tol = r.course.tolerance
    data = public_cases.build(
        r.content,
        ref,
        rtol=tol.rtol,
        atol=tol.atol,
        module=layout.module_name(r.assignment),
        packages=r.course.packages,
        timeouts=r.assignment.call_timeouts(),
    )
    r.files[layout.CASES_FILE] = json.dumps(data, indent=1) + "\n"


def check_reference_passes(r: Release) -> None:
    """The reference passes the public checks as students get them (public_cases.json read back as
    the release wrote it): a release its own reference would fail is refused, naming the check."""
    cases = json.loads(r.files[layout.CASES_FILE])
    assert r.content is not None  # read_master has run
    ref = r.content.reference_from(r.master, where=r.assignment.source)
    call = public_checks.direct_call(ref, r.student_file)
    for function in cases["functions"]:
        line = public_checks.check_function(call, function, cases)
        if line.status != "ok":
            raise QkvError(
                f"release: {r.assignment.source} fails its own public check of {function}(): "
                f"{line.message}"
            )


def add_student_readme(r: Release) -> None:
    try:
        template = r.loaded.student_readme.read_text(encoding="utf-8")
    except OSError as e:
        raise QkvError(
            f"{r.loaded.student_readme}: cannot read the students' README ({e.strerror})"
        ) from None
    r.files["README.md"] = template.format(
        title=r.assignment.title, deadline=r.assignment.deadline or "see your course page"
    )


QUIZ_README = """
## Quiz

The quiz is in `{quiz}`; answer it in `{answers}`. {own} Check the form of
your answers with `qkv check {answers}`.
"""
QUIZ_OWN = (  # what is a student's own in their copy: the numbers, when the quiz draws some
    "Some questions use numbers drawn for you and\nyour choice letters are your own, so answer "
    "from your own copy of the quiz.",
    "Your choice letters are your own, so answer\nfrom your own copy of the quiz.",
)


def add_quiz(r: Release) -> None:
    """Ship the quiz without answers and the blank answers file, when the assignment has a quiz."""
    if not r.assignment.quiz:
        return
    r.quiz = quiz_master.load_quiz(r.course, r.assignment)
    r.files[QUIZ_FILE] = quiz_render.render_markdown(r.quiz, r.assignment.quiz_points)
    r.files[ANSWERS_FILE] = quiz_render.template(r.quiz)
    r.files[layout.QUIZ_FORM_FILE] = quiz_form.dumps(r.quiz)
    own = QUIZ_OWN[0] if quiz_render.draws(r.quiz) else QUIZ_OWN[1]
    r.files["README.md"] += QUIZ_README.format(quiz=QUIZ_FILE, answers=ANSWERS_FILE, own=own)


NOTEBOOK_README = """
## Notebook

Prefer Jupyter? `{notebook}` is the same exercise as a notebook: the story{drawn}.{quiz}
Hand in either `{code}` or `{notebook}`; `qkv check {notebook}` runs the public checks on it.
"""
NOTEBOOK_DRAWN = (  # a notebook whose content gives cells of its own, which draw its results
    ", a check after each\nfunction, and what your functions compute drawn next to the reference's"
)
NOTEBOOK_CHECKED = " and a check after each function"
NOTEBOOK_QUIZ = """
Its answers cell takes your quiz answers, written as in `answers.yaml`."""


def add_notebook(r: Release) -> None:
    """The same exercise as a notebook, built from the story and the master, when the course has one."""
    if not r.assignment.notebook:
        return
    cells = notebook_build.master_cells(r.course, r.assignment, master=r.master, quiz=r.quiz)
    cells = notebook_build.student_cells(  # a given cell holds no solution to clear
        cells, lambda text: clear_text(text, r.assignment.source) if BEGIN in text else text
    )
    r.files[layout.notebook_file(r.assignment)] = notebook_build.dumps(
        notebook_build.notebook_json(cells)
    )
    r.files["README.md"] += NOTEBOOK_README.format(
        notebook=layout.notebook_file(r.assignment),
        code=r.student_file,
        quiz=NOTEBOOK_QUIZ if r.quiz else "",
        drawn=NOTEBOOK_DRAWN if r.content and r.content.notebook_snippets else NOTEBOOK_CHECKED,
    )


def _quiz_secrets(r: Release) -> tuple[set[str], set[str]]:
    """The quiz master's answer lines, and sentences (feedback, the key's header) no release may hold."""
    if r.quiz is None:
        return set(), set()
    assert r.assignment.quiz is not None, "r.quiz is read from it"
    master = r.course.path(r.assignment.quiz).read_text(encoding="utf-8")
    lines = {s for s in (line.strip() for line in master.splitlines()) if QUIZ_ANSWER_LINE.match(s)}
    return lines, quiz_master.feedback_texts(r.quiz) | {quiz_render.KEY_HEADER}


def check_no_secrets(r: Release) -> None:
    """No file of the release holds a solution line, a hidden suite's name or a quiz answer."""
    master_lines = r.master.splitlines()
    secret = {
        master_lines[i].strip() for b, e in solution_blocks(r.master) for i in range(b + 1, e)
    }
    secret.discard("")
    suites = {p.name for p in r.loaded.suites_dir.glob("test_*.py")} - {
        layout.public_test_file(r.assignment)
    }
    quiz_lines, quiz_texts = _quiz_secrets(r)
    for name, text in r.files.items():
        if name.endswith(
            ".ipynb"
        ):  # what a reader of the notebook sees: its cells, not their JSON escaping
            text = notebook_build.sources(text)
        if name in suites or BEGIN in text or END in text:
            raise QkvError(f"release: {name} would leak a hidden suite or solution markers")
        leaked = secret & {line.strip() for line in text.splitlines()}
        if leaked:
            raise QkvError(f"release: {name} would leak solution line {sorted(leaked)[0]!r}")
        flat = " ".join(text.split())  # so that wrapping a sentence differently does not hide it
        quiz_leaks = sorted(quiz_lines & {line.strip() for line in text.splitlines()})
        quiz_leaks += sorted(t for t in quiz_texts if t in flat)
        if quiz_leaks:
            raise QkvError(f"release: {name} would leak the quiz answer {quiz_leaks[0][:60]!r}")


STEPS = (
    read_master,
    clear_solutions,
    check_stub_signatures,
    add_public_checks,
    add_public_cases,
    check_reference_passes,
    add_student_readme,
    add_quiz,
    add_notebook,
    check_no_secrets,
)


def build(course: Course, assignment: Assignment) -> dict[str, str]:
    """Run every step in order and return the release's files."""
    r = Release(course, assignment)
    for step in STEPS:
        step(r)
    return dict(sorted(r.files.items()))


def zip_bytes(files: dict[str, str], folder: str) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for name, text in sorted(files.items()):
            info = zipfile.ZipInfo(f"{folder}/{name}", date_time=ZIP_DATE)
            info.external_attr = 0o644 << 16
            z.writestr(info, text.encode("utf-8"), compress_type=zipfile.ZIP_DEFLATED)
    return buf.getvalue()


def write(course: Course, assignment: Assignment, *, out: Path, bundle: Path | None) -> list[Path]:
    """Regenerate `out` to hold exactly the release (stale files removed) and write the zip bundle.

    Args:
        course: the course.
        assignment: the assignment.
        out: the release folder.
        bundle: the student bundle's zip, or None for none.

    Returns:
        The paths written.
    """
    files = build(course, assignment)
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for stale in sorted(p for p in out.rglob("*") if p.is_file()):
        if stale.relative_to(out).as_posix() not in files:
            stale.unlink()
    for name, text in files.items():
        path = out / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        written.append(path)
    if bundle:
        bundle.parent.mkdir(parents=True, exist_ok=True)
        bundle.write_bytes(zip_bytes(files, assignment.id))
        written.append(bundle)
    return written
