"""Synthetic submissions: honest variants, every catalogued mistake, stubs and broken files.

Used by `qkv demo` (a class to grade), `qkv validate` (mutants that must lose points) and the
benchmark. Everything is written from the reference and the catalogue, so it stays in step with both.
"""

from __future__ import annotations

import json
from pathlib import Path

from qkv.content import reference
from qkv.course import layout
from qkv.intake import notebook
from qkv.quiz import grading as quiz
from qkv.quiz import render as quiz_render
from qkv.release import steps as release

BROKEN = {
    "syntax_error": "import numpy as np\n\ndef {first}(X)\n    return X\n",
    "import_error": "import numpy as np\nimport {module}_helpers_that_do_not_exist\n",
}


def _splice(source: str, functions: dict[str, str]) -> str:
    for name, text in functions.items():
        source = reference.replace_function(source, name, text.strip("\n"))
    return source


def stub(reference_source: str) -> str:
    return release.clear_text(reference_source, "the reference")


def endless(reference_source: str, function: str) -> str:
    """The reference with `function` replaced by an endless loop (same signature)."""
    first, _last = reference.function_spans(reference_source)[function]
    header = reference_source.splitlines()[first - 1]
    return _splice(reference_source, {function: f"{header}\n    while True:\n        pass\n"})


def class_sources(content) -> dict[str, str]:
    """One source per kind of student: name -> the text of their .py file."""
    source = content.reference_source
    out = {"honest_reference": source}
    out.update({f"honest_{v}": _splice(source, fs) for v, fs in content.honest_variants.items()})
    out.update({f"mistake_{m.id}": m.mutant_source(source) for m in content.catalogue})
    out["stub"] = stub(source)
    out["broken_syntax_error"] = BROKEN["syntax_error"].replace("{first}", content.functions[0])
    out["broken_import_error"] = BROKEN["import_error"].replace(
        "{module}", layout.module_name(content.assignment)
    )
    out[f"broken_endless_{content.endless}"] = endless(source, content.endless)
    return out


def answers_for(course, assignment, content):
    """The quiz answers of a synthetic class, by kind of student.

    Args:
        course: the course.
        assignment: the assignment.
        content: its content.

    Returns:
        answers(student, kind) -> answers.yaml text: the key for honest kinds, the key with the
        content's SYNTHETIC_QUIZ_MISTAKE line (if any) for mistake kinds, a blank sheet for the stub
        and broken YAML for broken kinds; None when the assignment has no quiz.
    """
    if not assignment.quiz:
        return lambda student, kind: None

    master = quiz.load_quiz(course, assignment)
    wrong = getattr(content.module, "SYNTHETIC_QUIZ_MISTAKE", None)  # "question-id: wrong answer"

    def answers(student: str, kind: str) -> str:
        if kind.startswith("broken"):
            return "answers: [0.45, 0.10\n"
        if kind == "stub":
            return quiz_render.template(master)
        key = quiz_render.answer_key(
            master, quiz.variant(master, course, assignment, student, content.reference), student
        )
        if kind.startswith("mistake") and wrong:
            qid = wrong.split(":", 1)[0]
            key = (
                "\n".join(
                    wrong if line.startswith(f"{qid}:") else line for line in key.splitlines()
                )
                + "\n"
            )
        return key

    return answers


def students(name: str, count: int) -> list[str]:
    """Ids of `count` students handing in the same code (`name`, `name.1`, ...): each draws cases of
    its own, so a check that catches a mistake on some draws only shows as a difference between them."""
    return [name] + [f"{name}.{i}" for i in range(1, count)]


def write_class(
    content, dest: Path, size: int | None = None, *, kinds=None, answers=None
) -> list[str]:
    """Write submission folders into dest: each kind once, then cycled to `size` students.

    Args:
        content: the assignment's content, whose catalogue makes the kinds.
        dest: the submissions folder to write.
        size: students in all, or None for one of each kind.
        kinds: the kinds to write, or None for all.
        answers: answers(student, kind) -> each student's answers.yaml (None: no file), or None.

    Returns:
        The students written, in order.
    """
    sources = class_sources(content)
    code_file = layout.code_file(content.assignment)
    names = sorted(kinds if kinds is not None else sources)
    size = size or len(names)
    students = []
    for i in range(size):
        kind = names[i % len(names)]
        student = f"s{i:04d}_{kind}" if size > len(names) else kind
        folder = Path(dest) / student
        folder.mkdir(parents=True, exist_ok=True)
        (folder / code_file).write_text(sources[kind], encoding="utf-8")
        text = answers(student, kind) if answers else None
        if text is not None:
            (folder / layout.ANSWERS_FILE).write_text(text, encoding="utf-8")
        students.append(student)
    return students


def notebook_submission(template: str, source: str, answers: str | None = None) -> str:
    """A student's notebook: the released one with each solution cell holding that function's text
    from a student's .py file, and the answers cell their answers.

    Args:
        template: the released notebook's JSON text.
        source: the student's .py file, whose functions fill the solution cells.
        answers: the answers cell's text, as answers.yaml would hold it; None leaves the cell as is.
    """

    nb = json.loads(template)
    spans = reference.function_spans(source)
    lines = source.splitlines(keepends=True)
    for cell in nb["cells"]:
        grade_id = cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")
        if notebook.is_solution(cell) and grade_id in spans:
            first, last = spans[grade_id]
            cell["source"] = "".join(lines[first - 1 : last])
        elif answers is not None and cell.get("metadata", {}).get(notebook.ANSWERS_META, {}).get(
            "answers"
        ):
            cell["source"] = answers
    return json.dumps(nb, indent=1, ensure_ascii=False) + "\n"
