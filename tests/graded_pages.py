"""A class of real submissions of one assignment, graded by the batch with its pages, as a
student and an instructor would open them.

full: the reference, with the quiz key; axis: the softmax along the wrong axis (for training, its
backward; for masked, its masked_softmax); syntax: a file that does not parse; quiz: full marks
in code, an answers file that is not YAML; numpy_answers: the key with one vector answer printed
by numpy; big: a file over the size limit; secrets: a file that prints what its process can read
of the grader.
"""

from __future__ import annotations

import re
from pathlib import Path

from qkv.content import loader
from qkv.course import layout
from qkv.grade.batch import grade
from qkv.validate import synthetic

LONG_ID = "firstname.middlename.lastname-2026@students.example-university.edu"
WRONG_SOFTMAX = {
    "attention": "mistake_softmax_axis0",
    "training": "mistake_softmax_backward_axis0",
    "masked": "mistake_softmax_wrong_axis",  # its masked_softmax, normalised down the columns
}
SECRETS = """
import os, sys
def _read(path):
    try:
        with open(path, "rb") as f:
            return f.read().replace(b"\\0", b" ").decode("utf-8", "replace")
    except OSError as e:
        return f"({e.strerror})"
print("CMDLINE", _read("/proc/self/cmdline"))
print("ENVIRON", _read("/proc/self/environ"))
print("OS.ENVIRON", dict(os.environ))
print("ARGV", sys.argv)
print("PATH", sys.path)
print("PARENT", _read(f"/proc/{os.getppid()}/cmdline"))
"""


def write(course, assignment, subs: Path) -> list[str]:
    content = loader.load(course, assignment)
    sources = synthetic.class_sources(content)
    key = synthetic.answers_for(course, assignment, content)
    code = layout.code_file(assignment)
    kinds = {
        "full": ("honest_reference", "honest"),
        "axis": (WRONG_SOFTMAX[assignment.id], "honest"),
        "syntax": ("broken_syntax_error", "honest"),
        "quiz": ("honest_reference", "broken"),
        "numpy_answers": ("honest_reference", "numpy"),
        "secrets": (None, "honest"),
        # an id as long as a university's email address gets: it must wrap on a phone
        LONG_ID: (WRONG_SOFTMAX[assignment.id], "honest"),
    }
    for student, (kind, answers) in kinds.items():
        folder = subs / student
        folder.mkdir(parents=True)
        source = SECRETS + sources["honest_reference"] if kind is None else sources[kind]
        (folder / code).write_text(source, encoding="utf-8")
        text = key(student, "broken" if answers == "broken" else "honest_reference")
        if answers == "numpy":  # the first vector answer, as print(np.array(...)) writes it
            text = re.sub(
                r"^([\w-]+): \[([-\d., ]+)\]$",
                lambda m: f"{m[1]}: [{' '.join(f'{float(x):.4f}' for x in m[2].split(','))}]",
                text,
                count=1,
                flags=re.M,
            )
        if text is not None:
            (folder / layout.ANSWERS_FILE).write_text(text, encoding="utf-8")
    big = subs / "big"
    big.mkdir()
    (big / code).write_text("x = 1\n" * (course.limits.max_submission_kb * 200), encoding="utf-8")
    return [*kinds, "big"]


def graded(course, assignment, tmp: Path) -> Path:
    """The folder grading wrote (gradebook, results/, feedback/, report.html)."""
    subs, out = tmp / "subs", tmp / "out"
    write(course, assignment, subs)
    summary = grade(course, subs, assignment=assignment.id, out=out, jobs=1, progress=False)
    assert summary.errors == []
    return out
