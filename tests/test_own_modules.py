"""A student's own modules beside the code: which are sent to the child, and that they are graded."""

import csv
import json
import os

import pytest

import week_class
from qkv.errors import QkvError
from qkv.grade.batch import grade
from qkv.intake import own_modules as om
from qkv.intake.files import read_limited
from qkv.intake.submissions import code_files

HELPER = (
    "import numpy as np\n\n\ndef stable_softmax(S):\n    E = np.exp(S - S.max(axis=-1, keepdims=True))\n"
    "    return E / E.sum(axis=-1, keepdims=True)\n"
)
USES_HELPER = (
    "\nfrom helpers import stable_softmax\n\n\ndef softmax(S):\n    return stable_softmax(S)\n"
)


@pytest.mark.parametrize(
    "source, names",
    [
        (b"import numpy as np, helpers\n", ["numpy", "helpers"]),
        (b"from helpers import f\nfrom pkg.sub import g\n", ["helpers", "pkg"]),
        (b"def f():\n    import inner\n", ["inner"]),
        (
            b'{"source": ["import numpy as np\\n", "from helpers import f\\n"]}',
            ["numpy", "helpers"],
        ),
        (b'{"source": "x = 1\\nfrom helpers import f\\nimport a,b"}', ["helpers", "a", "b"]),
        (b"x = 1\n", []),
    ],
)
def test_imported_names_are_read_from_files_and_notebook_json(source, names):
    assert [n for n in om.imported_names(source) if n in names] == names


def _own(folder, code: bytes, limit: int = 10_000):
    return om.own_modules(folder, code, entry="attention.py", limit=limit, read=read_limited)


def test_only_imported_files_are_taken_and_what_they_import_in_turn(tmp_path):
    for name, text in {
        "helpers.py": "import more\n",
        "more.py": "X = 1\n",
        "unused.py": "Y = 2\n",
        "statistics.py": "Z = 3\n",
        "test_helpers.py": "",
        "public_checks.py": "",
        "attention.py": "",
    }.items():
        (tmp_path / name).write_text(text)
    code = b"import helpers, statistics, public_checks, test_helpers, attention, absent\n"
    assert _own(tmp_path, code) == {"helpers.py": b"import more\n", "more.py": b"X = 1\n"}


def test_a_link_is_not_taken_and_too_much_code_is_one_line(tmp_path):
    (tmp_path / "secret.txt").write_text("secret")
    os.symlink(tmp_path / "secret.txt", tmp_path / "linked.py")
    assert _own(tmp_path, b"import linked\n") == {}
    (tmp_path / "big.py").write_text("#" * 20_000)
    with pytest.raises(QkvError, match=r"big\.py: 20000 bytes, larger than the 10000-byte limit"):
        _own(tmp_path, b"import big\n")


def _class(tmp_path, helper_softmax: str):
    course_file = week_class.write_course(tmp_path / "course")
    subs = tmp_path / "subs"
    folder = week_class.hand_in(subs, "bob", week_class.reference_source() + USES_HELPER, None)
    (folder / "helpers.py").write_text(helper_softmax)
    return course_file, subs, folder


def _grade(course_file, subs, out):
    summary = grade(
        week_class.load_course(course_file),
        subs,
        assignment="attention",
        out=out,
        jobs=1,
        progress=False,
        pages=False,
    )
    return summary, {r["student"]: r for r in csv.DictReader((out / "gradebook.csv").open())}


def test_a_helper_module_beside_the_code_is_graded_and_a_change_to_it_regrades(tmp_path):
    course_file, subs, folder = _class(tmp_path, HELPER)
    out = tmp_path / "out"
    _, rows = _grade(course_file, subs, out)
    assert rows["bob"]["softmax"] == "20" and rows["bob"]["status"] == "graded"
    (folder / "helpers.py").write_text(HELPER.replace("axis=-1", "axis=0"))
    summary, rows = _grade(course_file, subs, out)
    assert summary.regraded == {"submission": ["bob"]} and rows["bob"]["softmax"] != "20"


def test_a_helpers_error_is_the_students_with_its_file_named(tmp_path):
    course_file, subs, _ = _class(tmp_path, HELPER.replace("return E / E.sum", "return E / E.summ"))
    out = tmp_path / "out"
    _, rows = _grade(course_file, subs, out)
    assert rows["bob"]["softmax"] == "0"
    tests = json.loads((out / "results" / "bob.json").read_text())["tests"]
    assert any(
        "'numpy.ndarray' object has no attribute 'summ'" in t.get("output", "") for t in tests
    )


@pytest.mark.parametrize(
    "source",
    [USES_HELPER]
    + [
        f"%run {name}\n\ndef softmax(S):\n    return stable_softmax(S)\n"
        for name in ("helpers.py", "./helpers.py", ".\\helpers.py")
    ],
)
def test_a_notebook_sends_the_modules_its_code_imports(tmp_path, source):
    (tmp_path / "helpers.py").write_text(HELPER)
    cell = {
        "cell_type": "code",
        "metadata": {"nbgrader": {"solution": True, "grade_id": "softmax"}},
        "source": source,
        "outputs": [],
        "execution_count": None,
    }
    nb = {"cells": [cell], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    (tmp_path / "attention.ipynb").write_text(json.dumps(nb))
    limits = week_class.load_course(week_class.write_course(tmp_path / "course")).limits
    files = code_files(
        tmp_path / "attention.ipynb", entry="attention.py", functions=("softmax",), limits=limits
    )
    assert (
        files["helpers.py"] == HELPER.encode() and b"from helpers import" in files["attention.py"]
    )


def test_a_file_of_a_million_imports_costs_a_bounded_look(tmp_path, monkeypatch):
    looked = []
    monkeypatch.setattr(om.os.path, "isfile", lambda p: looked.append(p) or False)
    code = b"".join(b"import m%d\n" % i for i in range(100_000))
    assert _own(tmp_path, code) == {} and len(looked) == om.MAX_LOOKS
