"""Building the assignment notebook from the story (markdown) and the reference (solutions/<assignment>/).

The function bodies have one source, the reference: each function's cell is its text there, solution
markers included (the master notebook); the student's notebook clears the marked regions exactly as
the .py release does (and as nbgrader's ClearSolutions would). Cells carry nbgrader metadata
(schema 3): solution cells for the functions, read-only cells for the setup, the checks and the
snippets the assignment's content provides (a plot, say). The notebook is written as nbformat 4.5 JSON, with fixed cell ids, so a release is
byte-identical every time.
"""

from __future__ import annotations

import ast
import json
import re
from dataclasses import dataclass

from qkv.content import loader
from qkv.course import layout
from qkv.course.config import Assignment, Course
from qkv.errors import QkvError
from qkv.intake import notebook
from qkv.quiz import master as quiz_master
from qkv.quiz import render as quiz_render

DIRECTIVE = re.compile(r"^<!--\s*qkv:\s*(?P<what>[a-z-]+)(?:\s+(?P<arg>\w+))?\s*-->\s*$")
COMMENT = re.compile(
    r"<!--(?!\s*qkv:).*?-->\s*", re.DOTALL
)  # instructor notes, left out of the notebook
NBGRADER_SCHEMA = 3
KERNELSPEC = {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"}

SETUP = '''\
# The public checks: public_checks.py and public_cases.json sit next to this notebook.
import types

from public_checks import check_function, direct_call, load_cases

CASES = load_cases()


def check(function):
    """Run the public checks on one function as this notebook defines it; print the verdict."""
    print(check_function(direct_call(types.SimpleNamespace(**globals())), function, CASES))
'''

# With `serve.url` in course.yaml: hand in to the course's `qkv serve` from the notebook.
SUBMIT = '''

SERVER = {url!r}


def submit(*files, token=None):
    """Hand in this notebook (save it first!) and answers.yaml if it is here; print the score."""
    import getpass, json, os, time, urllib.request, uuid

    files = files or [f for f in ({notebook!r}, "answers.yaml") if os.path.exists(f)]
    token = token or os.environ.get("QKV_TOKEN") or getpass.getpass("your sign-in token: ")
    boundary, body = uuid.uuid4().hex, b""
    for name in files:
        with open(name, "rb") as f:
            head = f'--{{boundary}}\\r\\nContent-Disposition: form-data; name="files"; filename="{{os.path.basename(name)}}"\\r\\n\\r\\n'
            body += head.encode() + f.read() + b"\\r\\n"
    body += f"--{{boundary}}--\\r\\n".encode()
    auth = {{"Authorization": f"Bearer {{token}}"}}

    def call(url, data=None, headers=None):
        request = urllib.request.Request(SERVER + url, data, {{**auth, **(headers or {{}})}})
        try:
            with urllib.request.urlopen(request, timeout=60) as response:
                return json.loads(response.read())
        except urllib.error.HTTPError as e:
            raise SystemExit(f"not handed in: {{json.loads(e.read()).get('error', e.reason)}}") from None

    kind = f"multipart/form-data; boundary={{boundary}}"
    done = call("/api/assignments/{assignment}/submissions", body, {{"Content-Type": kind}})
    print(f"handed in {{', '.join(files)}}; grading...")
    for _ in range(1200):
        result = call(done["url"])
        if result["status"] in ("graded", "failed"):
            break
        time.sleep(0.5)
    if result["status"] == "graded":
        print(f"score: {{result['score']:g}} / {{result['max_score']:g}} (final {{result['final']:g}})")
    else:
        print(f"status: {{result['status']}} {{result.get('error', '')}}")
    print(f"feedback: {{SERVER}}/s/{{done['id']}}")
'''


def setup_source(course: Course, assignment: Assignment) -> str:
    """The setup cell's code: the public checks, and submit() when the course names its server."""
    if not course.serve.url:
        return SETUP
    return SETUP + SUBMIT.format(
        url=course.serve.url.rstrip("/"),
        notebook=layout.notebook_file(assignment),
        assignment=assignment.id,
    )


@dataclass(frozen=True)
class Directive:
    what: str  # setup | given | function | snippet | quiz | answers
    arg: str | None
    line: int


def parse_story(text: str, name: str) -> list[str | Directive]:
    """Markdown blocks (str) and directives, in order; instructor comments dropped."""
    out: list[str | Directive] = []
    block: list[str] = []
    text = COMMENT.sub(lambda m: "\n" * m.group(0).count("\n"), text)  # keep line numbers
    for number, line in enumerate(text.splitlines(), 1):
        m = DIRECTIVE.match(line.strip())
        if m is None:
            if line.strip().startswith("<!--") and "qkv:" in line:
                raise QkvError(
                    f"{name}: line {number}: cannot read the directive {line.strip()[:60]!r}"
                )
            block.append(line)
            continue
        out.append("\n".join(block))
        block = []
        out.append(Directive(m["what"], m["arg"], number))
    out.append("\n".join(block))
    return [x for x in out if not isinstance(x, str) or x.strip()]


def _lines(text: str) -> list[str]:
    return text.strip("\n").splitlines(keepends=True)


def nbgrader_meta(
    grade_id: str, *, solution: bool = False, locked: bool = False, points: float | None = None
) -> dict:
    """nbgrader cell metadata, schema 3; `points` makes it a graded cell.

    Args:
        grade_id: the cell's name in nbgrader's gradebook, unique in the notebook.
        solution: a cell students write in (nbgrader's release stubs out its solution).
        locked: a read-only cell, which nbgrader restores from the master when it grades.
        points: the most the cell gives, or None for a cell that is not graded.
    """
    meta = {
        "grade": points is not None,
        "grade_id": grade_id,
        "locked": locked,
        "schema_version": NBGRADER_SCHEMA,
        "solution": solution,
    }
    if points is not None:
        meta["points"] = points
    return {"nbgrader": meta}


def code_cell(cell_id: str, source: str, metadata: dict | None = None) -> dict:
    """A notebook code cell, not yet run.

    Args:
        cell_id: the cell's id in the notebook, unique in it.
        source: the cell's code.
        metadata: the cell's metadata (nbgrader_meta's, say), or None for none.
    """
    return {
        "cell_type": "code",
        "execution_count": None,
        "id": cell_id,
        "metadata": metadata or {},
        "outputs": [],
        "source": _lines(source),
    }


def text_cell(cell_type: str, cell_id: str, source: str, metadata: dict | None = None) -> dict:
    """A notebook cell of text, rendered or not.

    Args:
        cell_type: "markdown", or "raw" for text Jupyter shows as written (the answers cell).
        cell_id: the cell's id in the notebook, unique in it.
        source: the cell's text.
        metadata: the cell's metadata, or None for none.
    """
    return {
        "cell_type": cell_type,
        "id": cell_id,
        "metadata": metadata or {},
        "source": _lines(source),
    }


def _master_parts(master: str, name: str) -> tuple[str, dict[str, str]]:
    """The master's imports (its only top-level code besides the functions) and each function's text."""
    tree = ast.parse(master)
    lines = master.splitlines(keepends=True)
    imports, functions = [], {}
    starts = [
        min([n.lineno] + [d.lineno for d in getattr(n, "decorator_list", [])]) for n in tree.body
    ]
    for i, node in enumerate(tree.body):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            imports.append(ast.get_source_segment(master, node) or "")
        elif isinstance(node, ast.FunctionDef):
            # up to the next statement, not node.end_lineno: a closing solution marker is a comment
            end = starts[i + 1] - 1 if i + 1 < len(starts) else len(lines)
            functions[node.name] = "".join(lines[starts[i] - 1 : end]).rstrip() + "\n"
        elif not (i == 0 and isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)):
            raise QkvError(
                f"{name}: line {node.lineno}: the notebook holds the imports and the functions only; "
                "move this statement into a function"
            )
    prelude = "\n".join(imports) + "\n"
    if prelude != notebook.PRELUDE:
        raise QkvError(
            f"{name}: the notebook's graded code starts with {notebook.PRELUDE.strip()!r} only "
            f"(autograder/notebook/read.py PRELUDE); the master imports {prelude.strip()!r}"
        )
    return prelude, functions


def _quiz_cell(what: str, quiz, assignment: Assignment) -> dict:
    if what == "quiz":  # quiz.md, its title one level down: the notebook's title is the only h1
        text = quiz_render.render_markdown(quiz, assignment.quiz_points)
        return text_cell("markdown", "quiz", "#" + text if text.startswith("# ") else text)
    blank = quiz_render.template(
        quiz, check_command=f"qkv check {layout.notebook_file(assignment)}"
    )
    return text_cell("raw", "answers", blank, {notebook.ANSWERS_META: {"answers": True}})


def master_cells(course: Course, assignment: Assignment, *, master: str, quiz=None) -> list[dict]:
    """The notebook's cells with the solutions in (between solution markers).

    Args:
        course: the course, whose folder holds the notebook's story (Assignment.notebook).
        assignment: the assignment the notebook is of.
        master: the master's source, whose functions fill the function cells.
        quiz: the quiz master, for the quiz and answers cells, or None when there is no quiz.
    """
    story_name = assignment.notebook or "notebook"
    try:
        text = course.path(story_name).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise QkvError(
            f"{story_name}: cannot read the notebook's story ({getattr(e, 'strerror', None) or e})"
        ) from None
    story = parse_story(text, story_name)
    prelude, functions = _master_parts(master, assignment.source)
    given: dict[
        str, str
    ] = {}  # functions of the master that students do not write (the given directive)
    cells, seen, n_text = [], [], 0
    for item in story:
        if isinstance(item, str):
            n_text += 1
            cells.append(text_cell("markdown", f"text-{n_text}", item))
            continue
        where = f"{story_name}: line {item.line}"
        seen.append(f"{item.what} {item.arg}" if item.arg else item.what)
        if seen.count(seen[-1]) > 1:
            raise QkvError(f"{where}: '{seen[-1]}' appears twice")
        if item.what == "setup":
            cells.append(
                code_cell(
                    "setup",
                    prelude + "\n" + setup_source(course, assignment),
                    nbgrader_meta("setup", locked=True),
                )
            )
        elif (
            item.what == "given"
        ):  # graded with the solution cells, since the students' functions call them
            written = loader.load(course, assignment).functions
            given = {name: text for name, text in functions.items() if name not in written}
            if "setup" not in seen or not given:
                raise QkvError(
                    f"{where}: the given directive needs the setup before it and functions of the "
                    "master that students do not write"
                )
            cells.append(
                code_cell(
                    "given",
                    "\n\n".join(t.rstrip("\n") + "\n" for t in given.values()),
                    nbgrader_meta("given", solution=True),
                )
            )
        elif item.what == "function":
            if item.arg in given:
                raise QkvError(
                    f"{where}: {item.arg} is given, not written by students: the given directive places it"
                )
            if item.arg not in functions:
                raise QkvError(f"{where}: {assignment.source} has no function {item.arg!r}")
            if "setup" not in seen:
                raise QkvError(f"{where}: the setup directive must come before the first function")
            cells.append(
                code_cell(item.arg, functions[item.arg], nbgrader_meta(item.arg, solution=True))
            )
            cells.append(
                code_cell(
                    f"check_{item.arg}",
                    f'check("{item.arg}")',
                    nbgrader_meta(f"check_{item.arg}", locked=True),
                )
            )
        elif item.what == "snippet":
            snippets = loader.load(course, assignment).notebook_snippets
            if item.arg not in snippets:
                raise QkvError(
                    f"{where}: the assignment's content has no notebook snippet {item.arg!r}"
                    + (f" (it has {', '.join(sorted(snippets))})" if snippets else "")
                )
            assert item.arg is not None  # None is in no snippets
            cells.append(
                code_cell(item.arg, snippets[item.arg], nbgrader_meta(item.arg, locked=True))
            )
        elif item.what in ("quiz", "answers"):
            if quiz is None:
                raise QkvError(
                    f"{where}: a {item.what} directive, but assignment '{assignment.id}' has no quiz"
                )
            cells.append(_quiz_cell(item.what, quiz, assignment))
        else:
            raise QkvError(
                f"{where}: unknown directive '{item.what}' "
                "(setup, given, function NAME, snippet NAME, quiz, answers)"
            )
    missing = [f for f in functions if f not in given and f"function {f}" not in seen]
    if missing:
        raise QkvError(
            f"{story_name}: no 'function {missing[0]}' directive; every function of the master needs a cell "
            "(functions students do not write go in the cell of a given directive)"
        )
    for what in ("quiz", "answers"):
        if quiz is not None and what not in seen:
            raise QkvError(
                f"{story_name}: assignment '{assignment.id}' has a quiz but the story has no {what} directive"
            )
    return cells


def student_cells(cells: list[dict], clear) -> list[dict]:
    """The cells with every solution region replaced by clear(source) (a stub raising NotImplementedError)."""
    out = []
    for cell in cells:
        if notebook.is_solution(cell):
            cell = {**cell, "source": _lines(clear("".join(cell["source"])))}
        out.append(cell)
    return out


def notebook_json(cells: list[dict]) -> dict:
    return {
        "cells": cells,
        "metadata": {"kernelspec": KERNELSPEC, "language_info": {"name": "python"}},
        "nbformat": 4,
        "nbformat_minor": 5,
    }


def dumps(nb: dict) -> str:
    """The notebook as Jupyter writes it (one-space indent, sorted keys, a final newline)."""
    return json.dumps(nb, indent=1, sort_keys=True, ensure_ascii=False) + "\n"


def with_quiz_copy(notebook_text: str, quiz_text: str) -> str:
    """A released notebook whose quiz cell holds one student's own copy (their numbers, their letters)."""
    nb = json.loads(notebook_text)
    cell = next((c for c in nb["cells"] if c.get("id") == "quiz"), None)
    if cell is None:
        raise QkvError("the released notebook has no quiz cell (a `quiz` directive in the story)")
    cell["source"] = _lines(
        "## Quiz: your own copy\n\n```text\n" + quiz_text.rstrip("\n") + "\n```\n"
    )
    return dumps(nb)


def sources(text: str) -> str:
    """Every cell's source of a notebook's JSON text, one after the other (what a reader sees)."""
    return "\n".join("".join(c.get("source", "")) for c in json.loads(text)["cells"])


def master_notebook(course: Course, assignment: Assignment) -> dict:
    """The notebook with the solutions in, read from the course's files (for nbgrader's source/)."""

    if not assignment.notebook:
        raise QkvError(
            f"assignment '{assignment.id}' has no notebook (set `notebook:` in course.yaml)"
        )
    master = course.path(assignment.source).read_text(encoding="utf-8")
    quiz = quiz_master.load_quiz(course, assignment) if assignment.quiz else None
    return notebook_json(master_cells(course, assignment, master=master, quiz=quiz))
