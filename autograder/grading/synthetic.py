"""Synthetic submissions: honest variants, every catalogued mistake, stubs and broken files.

Used by `qkv demo` (a class to grade), `qkv validate` (mutants that must lose points) and the
benchmark. Everything is written from the reference and the catalogue, so it stays in step with both.
"""
from __future__ import annotations

import json
from pathlib import Path

from autograder import release
from autograder.grading import mistakes
from autograder.grading import reference

# Correct solutions written differently from the reference: the suites must not care how.
HONEST_VARIANTS = {
    "loops": {
        "score": '''
def score(Q, K):
    S = np.zeros((Q.shape[0], K.shape[0]))
    for i in range(Q.shape[0]):
        for j in range(K.shape[0]):
            S[i, j] = sum(Q[i, c] * K[j, c] for c in range(Q.shape[1]))
    return S
''',
        "aggregate": '''
def aggregate(A, V):
    O = np.zeros((A.shape[0], V.shape[1]))
    for i in range(A.shape[0]):
        for j in range(A.shape[1]):
            O[i] += A[i, j] * V[j]
    return O
''',
    },
    "einsum": {
        "score": '''
def score(Q, K):
    return np.einsum("qd,kd->qk", Q, K)
''',
        "softmax": '''
def softmax(S):
    z = np.asarray(S, dtype=float)
    z = z - np.max(z, axis=-1, keepdims=True)
    return np.exp(z) / np.sum(np.exp(z), axis=-1, keepdims=True)
''',
    },
}

BROKEN = {
    "syntax_error": "import numpy as np\n\ndef project(X, W_q, W_k, W_v)\n    return X @ W_q\n",
    "import_error": "import numpy as np\nimport attention_helpers_that_do_not_exist\n",
    "endless_softmax": None,  # built from the reference below
}


def _splice(source: str, functions: dict[str, str]) -> str:
    for name, text in functions.items():
        source = reference.replace_function(source, name, text.strip("\n"))
    return source


def honest(reference_source: str, variant: str) -> str:
    return _splice(reference_source, HONEST_VARIANTS[variant])


def stub(reference_source: str) -> str:
    return release.clear_text(reference_source, "the reference")


def endless_softmax(reference_source: str) -> str:
    return _splice(reference_source, {"softmax": "def softmax(S):\n    while True:\n        pass\n"})


def class_sources(reference_source: str) -> dict[str, str]:
    """One source per kind of student: name -> attention.py text."""
    out = {"honest_reference": reference_source}
    out.update({f"honest_{v}": honest(reference_source, v) for v in HONEST_VARIANTS})
    out.update({f"mistake_{m.id}": m.mutant_source(reference_source) for m in mistakes.CATALOGUE})
    out["stub"] = stub(reference_source)
    out["broken_syntax_error"] = BROKEN["syntax_error"]
    out["broken_import_error"] = BROKEN["import_error"]
    out["broken_endless_softmax"] = endless_softmax(reference_source)
    return out


def answers_for(course, assignment, reference_module):
    """answers(student, kind) -> answers.yaml text: the key for honest kinds, the key with the seed
    text's weights copied for mistake kinds, a blank sheet for the stub and broken YAML for broken
    kinds; None when the assignment has no quiz."""
    if not assignment.quiz:
        return lambda student, kind: None
    from autograder.quiz import grading as quiz
    from autograder.quiz import render as quiz_render  # noqa: PLC0415

    master = quiz.load_quiz(course, assignment)

    def answers(student: str, kind: str) -> str:
        if kind.startswith("broken"):
            return "plus-row: [0.45, 0.10\n"
        if kind == "stub":
            return quiz_render.template(master)
        key = quiz_render.answer_key(master, quiz.variant(master, course, assignment, student, reference_module), student)
        if kind.startswith("mistake"):
            key = "\n".join("seed-scores: [0.45, 0.10, 0.45]" if line.startswith("seed-scores:") else line
                             for line in key.splitlines()) + "\n"
        return key

    return answers


def write_class(reference_source: str, dest: Path, size: int | None = None, *, kinds=None, answers=None) -> list[str]:
    """Write submission folders into dest: each kind once, then cycled to `size` students.

    answers(student, kind), when given, supplies each student's answers.yaml (None: no file).
    """
    sources = class_sources(reference_source)
    names = sorted(kinds if kinds is not None else sources)
    size = size or len(names)
    students = []
    for i in range(size):
        kind = names[i % len(names)]
        student = f"s{i:04d}_{kind}" if size > len(names) else kind
        folder = Path(dest) / student
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "attention.py").write_text(sources[kind], encoding="utf-8")
        text = answers(student, kind) if answers else None
        if text is not None:
            (folder / "answers.yaml").write_text(text, encoding="utf-8")
        students.append(student)
    return students


def notebook_submission(template: str, source: str, answers: str | None = None) -> str:
    """A student's notebook: `template` (a released notebook's JSON text) with each solution cell
    holding that function's text from `source` (an attention.py), and the answers cell `answers`."""
    from autograder.notebook import read as notebook  # noqa: PLC0415

    nb = json.loads(template)
    spans = reference.function_spans(source)
    lines = source.splitlines(keepends=True)
    for cell in nb["cells"]:
        grade_id = cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")
        if notebook.is_solution(cell) and grade_id in spans:
            first, last = spans[grade_id]
            cell["source"] = "".join(lines[first - 1:last])
        elif answers is not None and cell.get("metadata", {}).get(notebook.ANSWERS_META, {}).get("answers"):
            cell["source"] = answers
    return json.dumps(nb, indent=1, ensure_ascii=False) + "\n"
