"""Discovery lists each student's folder once: it finds exactly what looking each name up finds."""

import json
import os
import shutil

from tests.conftest import ROOT
from tests.course_content import CONTENT

from qkv.intake import discover
from qkv.validate import synthetic

NAMES = ("attention.py", "attention.ipynb")


def _odd_tree(root):
    """Every shape of student folder discovery tells apart."""

    def folder(*parts):
        path = root.joinpath(*parts)
        path.mkdir(parents=True, exist_ok=True)
        return path

    (folder("plain") / "attention.py").write_text("x = 1\n")
    (folder("with_answers") / "attention.py").write_text("x = 1\n")
    (root / "with_answers" / "answers.yaml").write_text("q1: a\n")
    (folder("notebook") / "attention.ipynb").write_text("{}")
    (folder("both") / "attention.py").write_text("x = 1\n")
    (root / "both" / "attention.ipynb").write_text("{}")
    (folder("timestamped") / "attention.py").write_text("x = 1\n")
    (root / "timestamped" / "timestamp.txt").write_text("2026-12-15 23:59:00.000000 UTC")
    (folder("bad_time") / "attention.py").write_text("x = 1\n")
    (root / "bad_time" / "timestamp.txt").write_text("soon")
    folder("empty")
    os.symlink("/etc/passwd", folder("linked") / "attention.py")
    os.symlink("/nonexistent", folder("broken_link") / "attention.py")
    os.mkfifo(folder("fifo") / "attention.py")
    folder("dir_as_code", "attention.py")
    (folder("nbgrader", "attention") / "attention.ipynb").write_text("{}")
    (folder("handins", "first") / "attention.py").write_text("x = 1\n")
    (root / "handins" / "first" / "timestamp.txt").write_text("2026-12-14T10:00:00+00:00")
    (folder("handins", "second") / "attention.py").write_text("x = 2\n")
    (folder("handins", "bad name!") / "attention.py").write_text("x = 3\n")
    (folder("searchable_only") / "attention.py").write_text("x = 1\n")
    os.chmod(root / "searchable_only", 0o311)  # -wx: its names can be looked up, not listed


def test_listing_a_folder_finds_what_looking_each_name_up_finds(tmp_path, monkeypatch):
    _odd_tree(tmp_path)
    listed = discover.discover(tmp_path, NAMES, "attention")
    monkeypatch.setattr(discover, "_listing", lambda folder: None)
    looked_up = discover.discover(tmp_path, NAMES, "attention")
    assert listed == looked_up
    assert len(listed[0]) >= 15 and any(s.handin for s in listed[0])


def test_a_file_named_in_another_case_is_found_when_it_is_the_only_one(tmp_path):
    """Attention.py and Answers.yaml, as a system whose names ignore case may save them: found when
    no other name differs from the expected one only in case, and never over the exact name."""
    for student, files in {
        "capital": ["Attention.py", "Answers.yaml"],
        "two_alike": ["Attention.py", "ATTENTION.PY"],
        "exact_wins": ["attention.py", "Attention.py"],
    }.items():
        (tmp_path / student).mkdir()
        for name in files:
            (tmp_path / student / name).write_text("x = 1\n")
    found = {s.student: s for s in discover.discover(tmp_path, NAMES, "attention")[0]}
    assert (
        found["capital"].code.name == "Attention.py"
        and found["capital"].answers.name == "Answers.yaml"
    )
    assert found["two_alike"].code is None and found["two_alike"].problem.startswith(
        "no attention.py"
    )
    assert found["exact_wins"].code.name == "attention.py"


def test_a_renamed_file_is_read_when_it_is_the_only_one_that_can_be_it(tmp_path):
    """A browser's or an LMS's renaming (attention (1).py, doe_123_attention.py, answers.yml, the folder's
    only .py) is read, and the grader is told; two that could each be it are named, and none is read."""
    layout = {
        "browser": ["attention (1).py", "answers (2).yaml"],
        "lms": ["doe_123_attention.py", "answers.yml"],
        "only_py": ["hw3.py", "test_attention.py", "notes.txt"],
        "notebook": ["Attention-final.ipynb"],
        "two": ["attention-1.py", "attention-2.py"],
        "yaml_wins": ["attention.py", "answers.yml", "answers.yaml"],
        "none": ["attention.py.txt", "test_attention.py"],
        "blank_yaml": ["attention.py", "answers.yaml", "answers.yml"],
    }
    for student, files in layout.items():
        (tmp_path / student).mkdir()
        for name in files:
            (tmp_path / student / name).write_text("x = 1\n")
    (tmp_path / "blank_yaml" / "answers.yaml").write_text(
        "x:\ny: []\n"
    )  # as released: ids, no answers
    subs, notes = discover.discover(tmp_path, NAMES, "attention")
    found = {s.student: s for s in subs}
    read = {k: (s.code and s.code.name, s.answers and s.answers.name) for k, s in found.items()}
    assert read == {
        "browser": ("attention (1).py", "answers (2).yaml"),
        "lms": ("doe_123_attention.py", "answers.yml"),
        "only_py": ("hw3.py", None),
        "notebook": ("Attention-final.ipynb", None),
        "two": (None, None),
        "yaml_wins": ("attention.py", "answers.yaml"),
        "none": (None, None),
        "blank_yaml": ("attention.py", "answers.yml"),
    }
    assert found["two"].problem == (
        "no attention.py or attention.ipynb in the folder; attention-1.py, attention-2.py "
        "could each be it: hand in one"
    )
    assert (
        sum("graded as its attention.py" in n for n in notes) == 3
        and sum("graded as its attention.ipynb" in n for n in notes) == 1
    )
    assert (
        sum("read as its answers.yaml" in n for n in notes) == 1
    )  # answers.yml is one of the names, not a renaming


def test_the_whole_released_folder_worked_in_the_notebook_is_graded_from_the_notebook(tmp_path):
    """The release holds attention.py and attention.ipynb, all stubs, and a blank answers.yaml: a student
    who worked in the notebook and handed in the whole folder is graded from the notebook and its
    answers cell, one who worked in the .py from the .py; untouched, the .py is graded, as before."""

    released = ROOT / "exercises" / "attention"
    for student in (
        "notebook",
        "script",
        "untouched",
        "notebook_with_answers_yaml",
        "broken_script",
        "added_cell",
    ):
        shutil.copytree(released, tmp_path / student)
    nb = json.loads(
        (released / "attention.ipynb").read_text()
    )  # every stub left, the work in a cell added below
    nb["cells"].append(
        {
            "cell_type": "code",
            "metadata": {},
            "source": CONTENT.reference_source,
            "outputs": [],
            "execution_count": None,
        }
    )
    (tmp_path / "added_cell" / "attention.ipynb").write_text(json.dumps(nb))
    filled = synthetic.notebook_submission(
        (released / "attention.ipynb").read_text(),
        CONTENT.reference_source,
        "# Quiz answers\nany-length: true\n",
    )
    for student in ("notebook", "notebook_with_answers_yaml", "broken_script"):
        (tmp_path / student / "attention.ipynb").write_text(filled)
    (tmp_path / "broken_script" / "attention.py").write_text(
        "def softmax(S)\n    return S\n"
    )  # does not parse
    (tmp_path / "notebook_with_answers_yaml" / "answers.yaml").write_text("any-length: false\n")
    (tmp_path / "script" / "attention.py").write_text(CONTENT.reference_source)
    subs, notes = discover.discover(tmp_path, NAMES, "attention")
    read = {s.student: (s.code.name, s.answers and s.answers.name) for s in subs}
    assert read == {
        "notebook": ("attention.ipynb", None),
        "script": ("attention.py", "answers.yaml"),
        "untouched": ("attention.py", "answers.yaml"),
        "notebook_with_answers_yaml": ("attention.ipynb", "answers.yaml"),
        "broken_script": ("attention.ipynb", None),
        "added_cell": ("attention.ipynb", None),
    }
    assert sum("holds more of the release's stubs" in n for n in notes) == 3
    assert sum("does not parse" in n for n in notes) == 1
    assert sum("answers nothing, as released" in n for n in notes) == 3


def test_stubs_are_counted_in_a_file_read_as_python_reads_it(tmp_path):
    """A coding line (PEP 263) is honoured when the stubs left are counted, as when the file is graded."""

    path = tmp_path / "attention.py"
    path.write_bytes(
        "# -*- coding: latin-1 -*-\n# café\ndef f():\n    raise NotImplementedError()\n".encode(
            "latin-1"
        )
    )
    assert discover.stubs_in_file(path, 1 << 20) == 1
    path.write_bytes(b"def f(:\n")
    assert discover.stubs_in_file(path, 1 << 20) is None
