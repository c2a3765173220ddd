"""Notebook submissions: the code of the solution cells (and the definitions in cells the student
added), the answers cell, and untrusted JSON."""

import contextlib
import dataclasses
import io
import itertools
import json
import random

import numpy as np
import pytest

from course_content import ASSIGNMENT, CATALOGUE, CONTENT
from qkv.cli import main
from qkv.errors import QkvError
from qkv.grade.batch import grade
from qkv.intake import magics, notebook
from qkv.intake.submissions import Submission, answers_source, read_code
from qkv.quiz import grading as quiz
from qkv.quiz import render as quiz_render
from qkv.quiz.answers import Answers
from qkv.release import steps as release
from qkv.results import records as results
from qkv.validate import synthetic


@pytest.fixture(scope="module")
def released(course, assignment):
    """The released notebook's JSON text."""
    return release.build(course, assignment)["attention.ipynb"]


@pytest.fixture(scope="module")
def filled(released, reference_source):
    """The released notebook with the reference in its solution cells."""
    return synthetic.notebook_submission(released, reference_source)


def cells_of(text: str) -> list[dict]:
    return json.loads(text)["cells"]


def with_cells(cells: list[dict]) -> bytes:
    return json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}).encode()


def code(source, metadata=None) -> dict:
    return {
        "cell_type": "code",
        "metadata": metadata or {},
        "source": source,
        "outputs": [],
        "execution_count": None,
    }


def extract(data: bytes) -> str:
    return notebook.extract_code(data, "attention.ipynb", CONTENT.functions).decode()


# -- which cells are the student's code ----------------------------------------------------------


def test_only_the_solution_cells_are_extracted_in_notebook_order(filled, reference_source):
    code_text = extract(filled.encode())
    for function in ("project", "score", "softmax", "aggregate", "attend"):
        assert f"def {function}(" in code_text
    assert "return Q @ K.T  # (n_q, n_k)" in code_text
    assert (
        "check(" not in code_text
        and "matplotlib" not in code_text
        and "public_checks" not in code_text
    )
    assert (
        code_text.index("def project(")
        < code_text.index("def score(")
        < code_text.index("def attend(")
    )
    assert (
        code_text.count("import numpy as np") == 1
    )  # the prelude, as the notebook's setup cell has it


def test_the_released_stubs_extract_to_functions_that_raise_not_implemented(released):
    assert extract(released.encode()).count("raise NotImplementedError()") == 5


def test_reordered_cells_keep_notebook_order(filled):
    cells = cells_of(filled)
    solutions = [c for c in cells if notebook.is_solution(c)]
    others = [c for c in cells if not notebook.is_solution(c)]
    code_text = extract(with_cells(solutions[::-1] + others))
    assert code_text.index("def attend(") < code_text.index("def project(")


@pytest.mark.parametrize("above", [False, True])
def test_a_function_left_as_the_releases_stub_is_graded_from_the_cell_the_student_wrote_it_in(
    released, above
):
    """The stub left in its cell and the work in a cell added below it (or above): the work is graded,
    the stub is left out, and the student is told which cell's function is graded."""
    cells = cells_of(released)
    at = next(
        i
        for i, c in enumerate(cells)
        if notebook.is_solution(c) and "def softmax(" in "".join(c["source"])
    )
    work = code("def softmax(S):\n    return S * 2.0  # my work\n\nsoftmax(np.ones(3))\n")
    cells.insert(at if above else at + 1, work)
    namespace = {}
    with contextlib.redirect_stdout(io.StringIO()) as printed:
        exec(compile(extract(with_cells(cells)), "attention.py", "exec"), namespace)
    assert namespace["softmax"](3.0) == 6.0
    with pytest.raises(NotImplementedError):  # the other functions are still the stubs they were
        namespace["score"](None, None)
    work_label, stub_label = (
        (f"cell {at + 1}", f"cell {at + 2} (softmax)")
        if above
        else (f"cell {at + 2}", f"cell {at + 1} (softmax)")
    )
    assert (
        f"{stub_label}: its softmax() is still the release's stub: the one in {work_label} is graded"
        in printed.getvalue()
    )


def test_a_scratch_cell_without_metadata_is_not_taken_when_solution_cells_exist(filled):
    cells = [*cells_of(filled), code("def softmax(S):\n    return S  # a scratch experiment\n")]
    module = extract(with_cells(cells))
    assert "a scratch experiment" not in module
    n = len(cells)  # the student is told, in the output of their code
    assert (
        f"cell {n}: its softmax() not taken: the one in the exercise's own cell is graded" in module
    )


def test_without_nbgrader_metadata_the_cells_defining_the_functions_are_taken(filled):
    cells = [{**c, "metadata": {}} for c in cells_of(filled)]
    code_text = extract(with_cells(cells))
    assert all(
        f"def {f}(" in code_text for f in ("project", "score", "softmax", "aggregate", "attend")
    )
    # of the other cells, definitions only: no check is run, nothing is plotted, imports are guarded
    assert (
        'check("' not in code_text and "plt." not in code_text and "load_cases()" not in code_text
    )
    assert "try:\n    import matplotlib.pyplot as plt\nexcept ImportError:\n    pass\n" in code_text


HELPER_CELL = (
    "import math\nimport matplotlib.pyplot as plt\nEPS: float = 0.0\n\n@staticmethod\n"
    "def _stable(S):\n    return np.exp(S - S.max(axis=-1, keepdims=True)) + EPS\n\n"
    "print(_stable(np.ones(2)))\nplt.plot([1, 2])\nfor i in range(3):\n    pass\n"
    "def softmax(S):\n    return 0  # an experiment, not the solution\n"
)


def test_a_helper_in_a_cell_of_its_own_is_taken_without_the_rest_of_the_cell(filled):
    cells = cells_of(filled)
    at = next(i for i, c in enumerate(cells) if c.get("id") == "softmax")
    solution = {
        **cells[at],
        "source": "def softmax(S):\n    e = _stable.__func__(S)\n"
        "    return e / e.sum(axis=-1, keepdims=True)\n",
    }
    cells[at : at + 1] = [
        code(HELPER_CELL),
        code("softmax(np.ones(3)  # a scratch cell that does not parse\n"),
        solution,
    ]
    module = extract(with_cells(cells))
    namespace = {}
    with contextlib.redirect_stdout(io.StringIO()) as printed:
        exec(compile(module, "attention.py", "exec"), namespace)
    S = np.array([[1.0, 2.0, 0.5], [1000.0, 1001.0, 999.0]])
    assert np.allclose(
        namespace["softmax"](S), CONTENT.reference.softmax(S)
    )  # the solution cell's, with the helper
    assert namespace["EPS"] == 0.0 and namespace["math"].pi > 3 and "an experiment" not in module
    assert printed.getvalue() == (
        f"cell {at + 1}: its definitions are taken (EPS, _stable); the rest of it is not run\n"
        f"cell {at + 1}: its softmax() not taken: the one in the exercise's own cell is graded\n"
    )


def test_values_an_added_cell_works_out_are_taken_but_not_its_demo_calls(filled):
    """`TINY = np.finfo(float).tiny` is there for the solution cells, as in Jupyter; `O, A = attend(...)`,
    `print(...)` and a value that needs what the notebook's setup cell made (not taken) are not run, and a
    value that fails costs nothing else of the cell."""
    cells = cells_of(filled)
    at = next(i for i, c in enumerate(cells) if c.get("id") == "softmax")
    helper = (
        "TINY = np.finfo(float).tiny\nLOG_TINY, ONE = (\n    np.log(TINY),\n    1.0)\n"
        "IDS = {w: i for i, w in enumerate(['two', 'plus', 'three'])}\nMISSING = X.shape  # the setup cell's X\n"
        "O, A = attend(X, W_q, W_k, W_v)\nshown = print(IDS)\nsoftmax = None\n"
        "def _shift(S):\n    return S - S.max(axis=-1, keepdims=True) + LOG_TINY * 0\nAFTER = _shift\n"
    )
    solution = {
        **cells[at],
        "source": "def softmax(S):\n    e = np.exp(_shift(S)) * ONE\n"
        "    return e / e.sum(axis=-1, keepdims=True)\n",
    }
    cells[at : at + 1] = [code(helper), solution]
    module = extract(with_cells(cells))
    namespace = {}
    with contextlib.redirect_stdout(io.StringIO()) as printed:
        exec(compile(module, "attention.py", "exec"), namespace)
    S = np.array([[1.0, 2.0, 0.5], [1000.0, 1001.0, 999.0]])
    assert np.allclose(namespace["softmax"](S), CONTENT.reference.softmax(S))
    assert (
        namespace["IDS"] == {"two": 0, "plus": 1, "three": 2}
        and namespace["AFTER"] is namespace["_shift"]
    )
    assert (
        not {"MISSING", "O", "A", "shown"} & set(namespace) and printed.getvalue().count("\n") == 1
    )
    assert "attend(X, W_q, W_k, W_v)\n" not in module and "print(IDS)" not in module


def test_a_scratch_cell_binding_a_graded_name_after_its_cell_overrides_nothing(filled):
    """`softmax = None` or `score: int = 3` in a cell of the student's own, below the solution cells, is an
    experiment like a scratch `def softmax`: the graded functions stay those of their cells."""
    cells = [
        *cells_of(filled),
        code("softmax = None\nscore: int = 3\nproject, aggregate = 1, 2\nEPS = 1e-9\n"),
    ]
    namespace = {}
    with contextlib.redirect_stdout(io.StringIO()):
        exec(compile(extract(with_cells(cells)), "attention.py", "exec"), namespace)
    assert (
        all(callable(namespace[f]) for f in ("softmax", "score", "project", "aggregate"))
        and namespace["EPS"] == 1e-9
    )


def test_added_cells_are_read_only_up_to_a_bound_in_the_trusted_process(filled):
    cells = cells_of(filled)
    huge = "X = 1\n" + "def _pad():\n" + "    y = [1, 2, 3]\n" * (notebook.HELPER_BYTES // 16)
    cells[1:1] = [
        code("def _small():\n    return 1\n"),
        code(huge),
        code("def _after():\n    return 2\n"),
    ]
    module = extract(with_cells(cells))
    assert "def _small" in module and "def _after" in module and "def _pad" not in module
    assert "cell 3: not taken: larger than the 256 KiB read of cells you added" in module


@pytest.mark.parametrize("metadata", [5, "nbgrader", ["nbgrader"], None, 2.5])
def test_an_added_cell_with_odd_metadata_is_read_as_one_without(filled, metadata):
    cells = cells_of(filled)
    cells.insert(
        1, {"cell_type": "code", "metadata": metadata, "source": "def _helper():\n    return 1\n"}
    )
    assert "def _helper():" in extract(with_cells(cells))


def test_cells_that_start_with_a_future_import_compile(filled):
    """Each cell is compiled on its own, so `from __future__ import annotations` may start any cell,
    a helper cell's included (its imports are guarded, but a future import cannot be)."""
    cells = cells_of(filled)
    at = next(i for i, c in enumerate(cells) if c.get("id") == "softmax")
    cells[at] = {
        **cells[at],
        "source": "from __future__ import annotations\n" + "".join(cells[at]["source"]),
    }
    cells.insert(
        at,
        code(
            "from __future__ import annotations\nimport math\n\ndef _h(x: Thing) -> float:\n    return 1.0\n"
        ),
    )
    module, starts = notebook.extract(with_cells(cells), "attention.ipynb", CONTENT.functions)
    lines = module.decode().splitlines(keepends=True)
    bounds = [begins for _, _, begins in starts] + [len(lines) + 1]
    for begins, end in itertools.pairwise(bounds):  # as the child compiles them
        compile("\n" * (begins - 1) + "".join(lines[begins - 1 : end - 1]), "attention.py", "exec")


def test_cells_keep_their_lines_whatever_ends_them_and_whatever_their_strings_hold(
    tmp_path, course, filled
):
    """\r and \r\n end lines as \n does; \u2028 or \x0c inside a cell's text is no end of line (Python's
    count, not str.splitlines'), in solution cells and added ones, with a magic to skip or without."""
    nb = json.loads(filled)
    for cell in nb["cells"]:
        if cell.get("id") == "score":
            cell["source"] = "def score(Q, K):\n    note = 'a\u2028b\x0cc'\n    return Q @ K.T\n"
        elif cell.get("id") == "softmax":
            cell["source"] = (
                "%time\rdef softmax(S):\r    e = _exp(S)\r    tag = '\u2029'\r"
                "    return e / e.sum(axis=-1, keepdims=True)\r"
            )
        elif cell.get("id") == "attend":
            cell["source"] = "".join(cell["source"]).replace("\n", "\r\n")
    at = next(i for i, c in enumerate(nb["cells"]) if c.get("id") == "softmax")
    nb["cells"].insert(
        at,
        code(
            'def _exp(S):\n    """\u2028"""\n    return np.exp(S - S.max(axis=-1, keepdims=True))\n'
        ),
    )
    (tmp_path / "subs" / "lines").mkdir(parents=True)
    (tmp_path / "subs" / "lines" / "attention.ipynb").write_text(json.dumps(nb))
    grade(
        course,
        tmp_path / "subs",
        assignment="attention",
        out=tmp_path / "out",
        jobs=1,
        progress=False,
        pages=False,
    )

    r = results.read(results.path_for(tmp_path / "out", "lines"))
    assert r.status == "graded" and r.total == 100, [
        t.output for t in r.tests if t.outcome != "passed"
    ][:2]


def test_lines_of_a_helper_cell_are_placed_by_cell_and_line(filled):
    cells = cells_of(filled)
    at = next(i for i, c in enumerate(cells) if c.get("id") == "softmax")
    cells.insert(at, code("import math\n\ndef _boom(S):\n    return S / 0.0 + math.nan\n"))
    module, starts = notebook.extract(with_cells(cells), "attention.ipynb", CONTENT.functions)
    first = {label: line for line, label, _ in starts}[f"cell {at + 1}"]
    lines = module.decode().splitlines()
    assert lines[first - 1 + 2] == "def _boom(S):"  # the cell's line 3, where the notebook has it


def test_metadata_that_is_odd_counts_as_no_metadata(filled):
    odd = [{}, {"nbgrader": "yes"}, {"nbgrader": {"solution": "true"}}, [], None]
    cells = [{**c, "metadata": odd[i % len(odd)]} for i, c in enumerate(cells_of(filled))]
    assert "def softmax(" in extract(with_cells(cells))  # fell back to the cells defining functions


def test_a_deleted_function_cell_leaves_the_others(filled):
    cells = [c for c in cells_of(filled) if c.get("id") != "softmax"]
    code_text = extract(with_cells(cells))
    assert "def softmax(" not in code_text and "def attend(" in code_text


def test_a_function_whose_solution_cell_was_deleted_is_taken_from_the_cell_written_instead(filled):
    cells = [c for c in cells_of(filled) if c.get("id") != "softmax"]
    cells.insert(
        5,
        code(
            "def softmax(S):\n    return S  # written again in a cell of its own\n\nsoftmax(np.ones(2))\n"
        ),
    )
    code_text = extract(with_cells(cells))
    assert (
        "written again in a cell of its own" in code_text and "softmax(np.ones(2))" not in code_text
    )


def test_source_as_a_string_or_a_list_of_lines_reads_the_same(filled):
    cells = cells_of(filled)
    as_strings = [{**c, "source": "".join(c["source"])} for c in cells]
    assert extract(with_cells(as_strings)) == extract(with_cells(cells))


@pytest.mark.parametrize(
    "line",
    [
        "%timeit softmax(S)",
        "!pip install torch",
        "    %debug",
        "%matplotlib inline",
        "np.exp?",
        "??softmax",
        "np.*exp*?",
    ],
)
def test_ipython_magics_in_a_solution_cell_are_skipped_and_said_with_cell_and_line(line):
    cell = code(
        f"def softmax(S):\n    return S\n{line}\nx = 1\n",
        {"nbgrader": {"solution": True, "grade_id": "softmax"}},
    )
    module = extract(with_cells([cell]))
    assert line.strip() not in module.replace(f"{line.strip()!r}", "")  # only in the printed note
    namespace = {}
    with contextlib.redirect_stdout(io.StringIO()) as printed:
        exec(compile(module, "attention.py", "exec"), namespace)
    assert namespace["x"] == 1 and namespace["softmax"](3) == 3
    assert printed.getvalue() == (
        f"cell 1 (softmax), line 3: IPython magic {line.strip()!r} skipped "
        "(the grader runs plain Python)\n"
    )


@pytest.mark.parametrize(
    "first, runs",
    [
        ("%%time", True),
        ("%%capture out", True),
        ("%%bash", False),
        ("%%writefile helpers.py", False),
    ],
)
def test_a_cell_magic_skips_its_line_when_the_body_is_python_and_the_cell_when_not(first, runs):
    cell = code(
        f"{first}\ndef softmax(S):\n    return S\n",
        {"nbgrader": {"solution": True, "grade_id": "softmax"}},
    )
    namespace = {}
    with contextlib.redirect_stdout(io.StringIO()) as printed:
        exec(compile(extract(with_cells([cell])), "attention.py", "exec"), namespace)
    assert ("softmax" in namespace) == runs
    assert printed.getvalue().startswith("cell 1 (softmax)") and first[:12] in printed.getvalue()


@pytest.mark.parametrize(
    "source",
    [
        "x = (1\n     % 2)\n",
        "x = 1 \\\n    % 2\n",
        'doc = """\n% not a magic inside a string\n!neither\n"""\n',
        "ok = [1,\n      2] != [\n  3]\n",
        "y = 5  # %timeit in a comment\n",
        "y = 5  # why?\n",
        "# why?\n",
        'q = "why?"\n',
    ],
)
def test_percent_and_bang_that_are_python_are_not_magics(source):
    assert magics.magic_lines(source) == []


def test_magics_outside_the_solution_cells_are_fine(filled):
    cells = [*cells_of(filled), code("%timeit softmax(np.ones((3, 3)))\n!ls\n")]
    assert "%timeit" not in extract(with_cells(cells))


# -- untrusted JSON: one clear line each ---------------------------------------------------------

HOSTILE = {
    "invalid JSON": (b'{"cells": [', "not a notebook: invalid JSON at line 1"),
    "not UTF-8": (b'{"cells": ["caf\xe9"]}', "not UTF-8 text"),
    "a JSON list": (b"[1, 2, 3]", "not a notebook: no list of cells"),
    "cells not a list": (b'{"cells": 3}', "not a notebook: no list of cells"),
    "nbformat 3": (
        b'{"worksheets": [{"cells": []}], "nbformat": 3}',
        "an old (nbformat 3) notebook",
    ),
    "a cell that is not an object": (b'{"cells": ["print(1)"]}', "cell 1 is not a JSON object"),
    "a number as source": (
        b'{"cells": [{"cell_type": "code", "source": 42}]}',
        "cell 1: its source is not text",
    ),
    "a list of numbers as source": (
        b'{"cells": [{"cell_type": "code", "source": ["def softmax(S):", 1]}]}',
        "cell 1: its source is not text",
    ),
    "a NUL character": (
        b'{"cells": [{"cell_type": "code", "source": "def softmax(S):\\u0000"}]}',
        "NUL character",
    ),
    "a lone surrogate": (
        b'{"cells": [{"cell_type": "code", "source": "def softmax(S): \\ud800"}]}',
        "not valid text",
    ),
    "nested too deeply": (
        b'{"cells": ' + b"[" * 200_000 + b"]" * 200_000 + b"}",
        "nested too deeply",
    ),
    "a 5000-digit number": (b'{"cells": [], "n": ' + b"9" * 5000 + b"}", "invalid JSON"),
    "no cells at all": (b'{"cells": [], "metadata": {}}', "no solution cells, and no cell defines"),
    "only markdown": (
        b'{"cells": [{"cell_type": "markdown", "source": "def softmax(S): pass"}]}',
        "no solution cells",
    ),
}


@pytest.mark.parametrize("case", list(HOSTILE))
def test_a_broken_notebook_is_one_line_naming_the_file_and_the_problem(case):
    data, message = HOSTILE[case]
    with pytest.raises(QkvError) as e:
        notebook.extract_code(data, "/somewhere/bob.ipynb", CONTENT.functions)
    text = str(e.value)
    assert (
        text.startswith("bob.ipynb: ")
        and message in text
        and "\n" not in text
        and "/somewhere" not in text
    )


ODD_VALUES = [
    None,
    0,
    5,
    2.5,
    True,
    "",
    "x",
    [],
    [1, "a"],
    {},
    {"a": 1},
    {"nbgrader": 5},
    {"nbgrader": {"solution": True, "grade_id": 7}},
    ["def _h():\n", "    return 1\n"],
    "%%bash\necho hi\n",
    "def f(:\n",
    "import matplotlib\nx = 1\n",
    "def softmax(S):\n    return S\n",
    "%timeit f()\n",
    "class A:\n    x = 1 / 0\n",
    "(" * 300 + ")" * 300,
    "from . import x\n",
    "\x00",
]


def _places(value, at=()):
    yield at
    items = (
        value.items()
        if isinstance(value, dict)
        else enumerate(value)
        if isinstance(value, list)
        else ()
    )
    for key, item in items:
        yield from _places(item, (*at, key))


def test_notebooks_broken_at_random_places_give_a_notebook_or_one_line_never_a_traceback(released):
    """400 notebooks, each the release with one to four values anywhere replaced by odd ones (and maybe
    an added cell): reading the code and the answers either works or raises QkvError."""
    rng = random.Random(7)
    for _ in range(400):
        nb = json.loads(released)
        for _ in range(rng.randint(1, 4)):
            at = rng.choice([a for a in _places(nb) if a])
            holder = nb
            for key in at[:-1]:
                holder = holder[key]
            holder[at[-1]] = json.loads(json.dumps(rng.choice(ODD_VALUES)))
        if rng.random() < 0.3 and isinstance(nb, dict) and isinstance(nb.get("cells"), list):
            nb["cells"].insert(
                rng.randint(0, len(nb["cells"])),
                {
                    "cell_type": "code",
                    "metadata": rng.choice(ODD_VALUES),
                    "source": rng.choice(ODD_VALUES),
                },
            )
        data = json.dumps(nb).encode()
        for read in (
            lambda data=data: notebook.extract(data, "bob.ipynb", CONTENT.functions),
            lambda data=data: notebook.answers(data, "bob.ipynb"),
        ):
            try:
                read()
            except QkvError:
                pass


def test_a_50mb_output_is_read_over_and_the_code_taken(tmp_path, course, filled):
    nb = json.loads(filled)
    heatmap = next(c for c in nb["cells"] if c.get("id") == "heatmap")
    heatmap["outputs"] = [
        {
            "output_type": "display_data",
            "metadata": {},
            "data": {"image/png": "A" * (50 * 1024 * 1024), "text/plain": "<Figure>"},
        }
    ]
    path = tmp_path / "attention.ipynb"
    path.write_text(json.dumps(nb))
    files = read_code(course, ASSIGNMENT, path)
    assert b"def softmax(" in files["attention.py"] and len(files["attention.py"]) < 20_000


def test_a_notebook_above_its_own_limit_is_refused(tmp_path, course, filled):
    small = dataclasses.replace(
        course, limits=dataclasses.replace(course.limits, max_notebook_kb=8)
    )
    path = tmp_path / "attention.ipynb"
    path.write_text(filled)
    with pytest.raises(QkvError, match="larger than the 8192-byte limit"):
        read_code(small, ASSIGNMENT, path)


def test_solution_cells_holding_more_code_than_a_submission_may_are_refused(tmp_path, course):
    path = tmp_path / "attention.ipynb"
    path.write_bytes(
        with_cells(
            [code("def softmax(S):\n" + "    x = 1\n" * 400_000, {"nbgrader": {"solution": True}})]
        )
    )
    with pytest.raises(QkvError, match=r"solution cells hold .* more than the 2097152-byte limit"):
        read_code(course, ASSIGNMENT, path)


# -- the quiz answers cell -----------------------------------------------------------------------


def test_the_answers_cell_is_read_like_answers_yaml(filled):
    nb = json.loads(synthetic.notebook_submission(filled, "", answers="dot-product: 3\n"))
    got = notebook.answers(json.dumps(nb).encode(), "attention.ipynb")
    assert got.text == "dot-product: 3\n" and got.problem is None and "attention.ipynb" in got.name


@pytest.mark.parametrize("kind", ["raw", "markdown", "code"])
def test_a_cell_starting_like_the_template_is_the_answers_cell_when_metadata_is_lost(filled, kind):
    """An editor without raw cells (Colab) makes the answers cell markdown or code, and may drop its metadata."""
    cells = [
        {**c, "metadata": {}, **({"cell_type": kind} if c.get("cell_type") == "raw" else {})}
        for c in cells_of(filled)
    ]
    assert (
        sum(
            c["cell_type"] == kind and "".join(c["source"]).startswith(notebook.ANSWERS_HEADER)
            for c in cells
        )
        == 1
    )
    got = notebook.answers(with_cells(cells), "attention.ipynb")
    assert got.text.startswith(notebook.ANSWERS_HEADER)


def test_no_answers_cell_is_a_reason_not_an_exception(filled):
    cells = [c for c in cells_of(filled) if c.get("id") != "answers"]
    got = notebook.answers(with_cells(cells), "attention.ipynb")
    assert got.text is None and "no quiz answers cell" in got.problem


def test_answers_yaml_beside_the_notebook_wins_over_its_answers_cell(tmp_path, course):
    (tmp_path / "attention.ipynb").write_text("{}")
    (tmp_path / "answers.yaml").write_text("dot-product: 3\n")
    sub = Submission("alice", tmp_path / "attention.ipynb", tmp_path / "answers.yaml")
    assert answers_source(course, sub) == tmp_path / "answers.yaml"
    broken = answers_source(course, Submission("alice", tmp_path / "attention.ipynb", None))
    assert (
        isinstance(broken, Answers)
        and "no list of cells" in broken.problem
        and str(tmp_path) not in broken.problem
    )


def test_answers_text_goes_through_the_same_parsing_as_a_file(course, assignment, ref):
    master = quiz.load_quiz(course, assignment)
    sheet = quiz.read_answers(
        Answers("attention.ipynb (quiz answers cell)", "dot-product: [1\n"), master
    )
    assert sheet.fatal.startswith("attention.ipynb (quiz answers cell): invalid YAML at line")


# -- grading and checking notebooks ----------------------------------------------------------------


@pytest.fixture(scope="module")
def graded_notebooks(tmp_path_factory, course, assignment, ref, released, reference_source):
    tmp = tmp_path_factory.mktemp("nbclass")
    subs, out = tmp / "subs", tmp / "out"
    master = quiz.load_quiz(course, assignment)
    key = quiz_render.answer_key(
        master, quiz.variant(master, course, assignment, "alice", ref), "alice"
    )
    axis0 = CATALOGUE.by_id("softmax_axis0").mutant_source(reference_source)
    notebooks = {
        "alice/attention.ipynb": synthetic.notebook_submission(released, reference_source, key),
        "bob.ipynb": synthetic.notebook_submission(released, axis0),
        "carol/attention.ipynb": '{"cells": [',
        "dave/attention.ipynb": synthetic.notebook_submission(released, reference_source),
    }
    dave = json.loads(notebooks["dave/attention.ipynb"])
    cell = next(c for c in dave["cells"] if c.get("id") == "score")
    cell["source"] = cell["source"].replace("    return Q @ K.T", "    %time\n    return Q @ K.T")
    cell = next(c for c in dave["cells"] if c.get("id") == "softmax")
    cell["source"] = "%matplotlib inline\n" + "".join(cell["source"]) + "\n!pip install numpy\n"
    notebooks["dave/attention.ipynb"] = json.dumps(dave)
    for student, body in (
        ("frank", "def softmax(S)\n    return S\n"),
        ("gina", "def softmax(S):\n    e = S * 2\n    raise ValueError('no ' + str(e.shape))\n"),
        (
            "hank",
            "%load_ext autoreload\ndef softmax(S):\n    e = S * 2\n    raise ValueError(str(e.shape))\n",
        ),
        (
            "ivan",
            "def softmax(S):\n    e = np.exp(S - S.max(axis=-1, keepdims=True))\n"
            "    return e / e.sum(axis=-1, keepdims=True)\n\n\nassert softmax(np.zeros(2))[0] == 0.4\n",
        ),
    ):
        nb = json.loads(synthetic.notebook_submission(released, reference_source))
        next(c for c in nb["cells"] if c.get("id") == "softmax")["source"] = body
        notebooks[f"{student}/attention.ipynb"] = json.dumps(nb)
    # An expression chained too deeply for the compiler (a RecursionError, not a SyntaxError), in a cell
    # and in a .py file: the cell costs its function, the file is ungradable, each with one line.
    chain = "\nZ = " + "+".join(["1"] * 200_000) + "\n"
    nb = json.loads(synthetic.notebook_submission(released, reference_source))
    cell = next(c for c in nb["cells"] if c.get("id") == "softmax")
    cell["source"] = "".join(cell["source"]) + chain
    notebooks["jack/attention.ipynb"] = json.dumps(nb)
    notebooks["kate/attention.py"] = reference_source + chain
    for name, text in notebooks.items():
        (subs / name).parent.mkdir(parents=True, exist_ok=True)
        (subs / name).write_text(text)
    (
        subs / "erin"
    ).mkdir()  # a folder with the notebook and an answers.yaml that wins over its cell
    (subs / "erin" / "attention.ipynb").write_text(notebooks["alice/attention.ipynb"])
    (subs / "erin" / "answers.yaml").write_text("dot-product: [\n")
    grade(course, subs, assignment="attention", out=out, jobs=2, progress=False, pages=False)

    return {
        s: results.read(results.path_for(out, s))
        for s in (
            "alice",
            "bob",
            "carol",
            "dave",
            "erin",
            "frank",
            "gina",
            "hank",
            "ivan",
            "jack",
            "kate",
        )
    }


def softmax_cell_number(released) -> int:
    return next(n for n, c in enumerate(cells_of(released), 1) if c.get("id") == "softmax")


def test_a_cell_with_a_syntax_error_costs_its_function_and_says_where(graded_notebooks, released):
    """As Jupyter runs a notebook: a cell that does not compile does not run, and the cells after it do."""
    n = softmax_cell_number(released)
    r = graded_notebooks["frank"]
    assert r.status == "graded"
    assert [r.part_score(p) for p in ("project", "score", "aggregate")] == [20, 20, 20]
    assert r.part_score("softmax") == 0 and r.part_score("attend") == 0
    said = f"syntax error in cell {n} (softmax), line 1: expected ':' (that cell did not run)"
    softmax = [t.output for t in r.tests if t.part == "softmax"]
    assert softmax and all(f"defines no function softmax() ({said})" in o for o in softmax), (
        softmax[:1]
    )
    assert said in r.output


def test_an_expression_too_deep_to_compile_is_a_syntax_error_of_its_cell_or_file(
    graded_notebooks, released
):
    n = softmax_cell_number(released)
    too_deep = "an expression is nested or chained too deeply to compile (RecursionError)"
    r = graded_notebooks["jack"]
    assert r.status == "graded"
    assert [r.part_score(p) for p in ("project", "score", "aggregate", "softmax")] == [
        20,
        20,
        20,
        0,
    ]
    assert (
        f"syntax error in cell {n} (softmax), line 1: {too_deep} (that cell did not run)"
        in r.output
    )
    r = graded_notebooks["kate"]
    assert r.total == 0 and r.status == f"ungradable: syntax error: {too_deep}", r.status


def test_a_cell_that_raises_after_its_def_keeps_the_function_and_says_so(
    graded_notebooks, released
):
    """Its def ran before the failing assert, as in Jupyter: softmax is graded as written."""
    n = softmax_cell_number(released)
    r = graded_notebooks["ivan"]
    assert (
        r.status == "graded" and r.total == 100
    )  # every code part; no quiz answers in this notebook
    assert f"cell {n} (softmax) stopped: loading raised AssertionError" in r.output
    assert (
        f"cell {n} (softmax), line 6 in <module>: assert softmax(np.zeros(2))[0] == 0.4" in r.output
    )


def test_a_notebook_none_of_whose_cells_runs_is_ungradable_with_the_first_reason(
    tmp_path, course, filled
):
    nb = json.loads(filled)
    for cell in nb["cells"]:
        if notebook.is_solution(cell):
            cell["source"] = "def broken(:\n"
    (tmp_path / "subs" / "zed").mkdir(parents=True)
    (tmp_path / "subs" / "zed" / "attention.ipynb").write_text(json.dumps(nb))
    grade(
        course,
        tmp_path / "subs",
        assignment="attention",
        out=tmp_path / "out",
        jobs=1,
        progress=False,
        pages=False,
    )

    r = results.read(results.path_for(tmp_path / "out", "zed"))
    assert r.status.startswith("ungradable: syntax error in cell 4 (project), line 1:"), r.status


def test_an_exception_is_traced_to_its_cell_and_line(graded_notebooks, released):
    n = softmax_cell_number(released)
    outputs = [
        t.output
        for t in graded_notebooks["gina"].tests
        if t.part == "softmax" and t.outcome == "raised"
    ]
    assert outputs and all(
        f"cell {n} (softmax), line 3 in softmax: raise ValueError" in o for o in outputs
    )


def test_a_notebook_with_the_reference_and_the_key_scores_full_marks(graded_notebooks):
    r = graded_notebooks["alice"]
    assert r.status == "graded" and r.total == r.max_total == 120


def test_a_single_notebook_file_is_graded_and_its_mistake_named(graded_notebooks):
    r = graded_notebooks["bob"]
    assert r.part_score("softmax") < 20 and r.part_score("project") == 20
    assert any("normalise along the last axis" in t.output for t in r.tests if t.part == "softmax")


def test_a_malformed_notebook_is_ungradable_with_one_line_and_the_batch_goes_on(graded_notebooks):
    r = graded_notebooks["carol"]
    assert (
        r.status
        == "ungradable: attention.ipynb: not a notebook: invalid JSON at line 1: Expecting value"
    )
    assert r.total == 0
    assert all("not a notebook" in t.output for t in r.tests if t.part == "quiz")


def test_magics_in_solution_cells_are_skipped_and_the_output_says_where(graded_notebooks, released):
    r = graded_notebooks["dave"]
    assert (
        r.status == "graded" and r.total == 100
    )  # every code part; no quiz answers in this notebook
    n = softmax_cell_number(released)
    assert (
        "cell 7 (score), line 12: IPython magic '%time' skipped (the grader runs plain Python)\n"
        f"cell {n} (softmax), line 1: IPython magic '%matplotlib inline' skipped"
    ) in r.output


def test_lines_are_placed_by_cell_after_skipped_magics_too(graded_notebooks, released):
    n = softmax_cell_number(released)
    outputs = [
        t.output
        for t in graded_notebooks["hank"].tests
        if t.part == "softmax" and t.outcome == "raised"
    ]
    assert outputs and all(
        f"cell {n} (softmax), line 4 in softmax: raise ValueError" in o for o in outputs
    )


def test_an_answers_yaml_beside_a_notebook_is_the_one_graded(graded_notebooks):
    r = graded_notebooks["erin"]
    assert r.part_score("attend") == 20 and r.part_score("quiz") == 0
    assert all(
        t.output.startswith("answers.yaml: invalid YAML") for t in r.tests if t.part == "quiz"
    )


def test_check_on_a_notebook_runs_the_public_checks_and_the_answers_form(
    tmp_path, capsys, course, filled
):
    path = tmp_path / "attention.ipynb"
    path.write_text(filled)
    assert main(["check", str(path), "--course", str(course.root)]) == 0
    out = capsys.readouterr().out
    assert (
        out.count("PASS") == 5
        and "attention.ipynb (quiz answers cell): well-formed, 0 of 22" in out
    )
    path.write_text(synthetic.notebook_submission(filled, "", answers="dot-product: [1\n"))
    assert main(["check", str(path), "--course", str(course.root)]) == 1
    assert "invalid YAML at line" in capsys.readouterr().out


def test_quiz_show_writes_the_student_notebook_with_their_own_copy(tmp_path, capsys, course):

    copies = {}
    for student in ("alice", "bob"):
        out = tmp_path / f"{student}.ipynb"
        assert (
            main(
                [
                    "quiz",
                    "show",
                    "--student",
                    student,
                    "--notebook",
                    str(out),
                    "--course",
                    str(course.root),
                ]
            )
            == 0
        )
        assert capsys.readouterr().out.startswith(f"wrote {out}")
        quiz_cell = next(c for c in cells_of(out.read_text()) if c.get("id") == "quiz")
        copies[student] = "".join(quiz_cell["source"])
        assert f"Quiz for student {student}" in copies[student]
        assert main(["quiz", "show", "--student", student, "--course", str(course.root)]) == 0
        terminal = capsys.readouterr().out
        assert "plus-weight-two" in terminal and terminal.strip() in copies[student]
        extracted = notebook.extract_code(
            out.read_bytes(), out, CONTENT.functions
        )  # still a gradable notebook
        assert b"def softmax(S):" in extracted
    assert copies["alice"] != copies["bob"]
