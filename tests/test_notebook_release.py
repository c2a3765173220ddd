"""The released notebook: built from the story and the reference, nbgrader metadata, and it runs."""

import dataclasses
import json

import nbformat
import pytest
from nbclient import NotebookClient
from nbgrader.nbgraderformat.v3 import MetadataValidatorV3

from course_content import CONTENT
from qkv.errors import QkvError
from qkv.intake import notebook
from qkv.release import notebook as notebook_build
from qkv.release import steps as release
from qkv.validate import synthetic

FUNCTIONS = ("project", "score", "softmax", "aggregate", "attend")


@pytest.fixture(scope="module")
def released(course, assignment):
    return release.build(course, assignment)["attention.ipynb"]


def by_id(text: str) -> dict[str, dict]:
    return {c["id"]: c for c in json.loads(text)["cells"]}


def test_the_notebook_is_valid_nbformat_and_valid_nbgrader_metadata(released):
    nb = nbformat.reads(released, as_version=4)
    nbformat.validate(nb)
    MetadataValidatorV3().validate_nb(nb)


def test_each_function_has_a_solution_cell_then_a_cell_running_its_checks(released):
    cells = json.loads(released)["cells"]
    ids = [c["id"] for c in cells]
    for function in FUNCTIONS:
        cell = cells[ids.index(function)]
        assert cell["metadata"] == {
            "nbgrader": {
                "solution": True,
                "grade": False,
                "locked": False,
                "grade_id": function,
                "schema_version": 3,
            }
        }
        source = "".join(cell["source"])
        assert source.startswith(f"def {function}(") and "raise NotImplementedError()" in source
        assert "".join(cells[ids.index(function) + 1]["source"]) == f'check("{function}")'


def test_the_story_the_plot_and_the_quiz_are_in_the_notebook(released):
    cells = by_id(released)
    text = notebook_build.sources(released)
    for phrase in (
        "**two**, **plus**, **three**",
        "**Query**: what the token is looking for",
        "**Key**: what the token advertises about itself",
        "**Value**: what the token passes on",
        "attend to\n**both numbers**",
        "| **plus**  | 0.45 | 0.10 | 0.45  |",
    ):
        assert phrase in text
    assert "matplotlib" in "".join(cells["heatmap"]["source"])
    assert cells["answers"]["cell_type"] == "raw" and cells["answers"]["metadata"] == {
        "qkv": {"answers": True}
    }
    assert "".join(cells["quiz"]["source"]).startswith("## Quiz: ")


def test_the_function_bodies_come_from_the_reference_alone(course, assignment, reference_source):
    master = by_id(notebook_build.dumps(notebook_build.master_notebook(course, assignment)))
    for function in FUNCTIONS:
        body = "".join(master[function]["source"])
        assert body.strip() in reference_source and "### END SOLUTION" in body


@pytest.mark.parametrize(
    "cell, source, message",
    [
        (3, "    return Q @ K.T  # (n_q, n_k)\n", "attention.ipynb would leak solution line"),
        (
            0,
            "Dividing by the sum does that; the shift only\nkeeps the numbers representable.\n",
            "attention.ipynb would leak the quiz answer",
        ),
    ],
)
def test_a_secret_in_a_notebook_cell_stops_the_release(course, assignment, cell, source, message):
    """A solution line, or a quiz feedback sentence, pasted into any cell of the notebook."""
    r = release.Release(course, assignment)
    for step in release.STEPS[:-1]:
        step(r)
    nb = json.loads(r.files["attention.ipynb"])
    nb["cells"][cell]["source"] = [source]
    r.files["attention.ipynb"] = json.dumps(nb)
    with pytest.raises(QkvError, match=message):
        release.check_no_secrets(r)


STORY = "# Title\n\n<!-- qkv: setup -->\n" + "".join(
    f"<!-- qkv: function {f} -->\n" for f in FUNCTIONS
)


@pytest.mark.parametrize(
    "story, message",
    [
        (STORY + "<!-- qkv: plot -->\n", "line 9: unknown directive 'plot'"),
        (STORY + "<!-- qkv: function softmax -->\n", "line 9: 'function softmax' appears twice"),
        (STORY.replace("<!-- qkv: function attend -->\n", ""), "no 'function attend' directive"),
        (
            STORY + "<!-- qkv: function mean -->\n",
            "line 9: solutions/attention/attention.py has no function 'mean'",
        ),
        (
            STORY.replace("<!-- qkv: setup -->\n", "") + "<!-- qkv: setup -->\n",
            "must come before the first function",
        ),
        (STORY + "<!-- qkv:heatmap extra words -->\n", "line 9: cannot read the directive"),
        (
            STORY + "<!-- qkv: quiz -->\n",
            "a quiz directive, but assignment 'attention' has no quiz",
        ),
    ],
)
def test_a_story_with_a_wrong_directive_is_one_line_with_its_place(
    tmp_path, course, assignment, reference_source, story, message
):
    (tmp_path / "story.md").write_text(story)
    c = dataclasses.replace(course, root=tmp_path)
    a = dataclasses.replace(assignment, notebook="story.md", quiz=None, quiz_points=0)
    with pytest.raises(QkvError, match=message):
        notebook_build.master_cells(c, a, master=reference_source, quiz=None)


def test_instructor_comments_in_the_story_stay_out_of_the_notebook(released):
    assert "This comment is not part of the notebook" not in released


# -- executed top to bottom by a real kernel ---------------------------------------------------


def run(folder, text: str) -> dict[str, list]:
    """Execute the notebook in `folder` with nbclient; the outputs of each cell, by cell id."""
    nb = nbformat.reads(text, as_version=4)
    NotebookClient(
        nb, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(folder)}}
    ).execute()
    return {c.id: c.get("outputs", []) for c in nb.cells}


def printed(outputs: list) -> str:
    return "".join(o.get("text", "") for o in outputs if o["output_type"] == "stream")


def test_the_released_notebook_runs_with_stubs_and_says_not_implemented(
    tmp_path, course, assignment
):
    release.write(course, assignment, out=tmp_path, bundle=None)
    outputs = run(tmp_path, (tmp_path / "attention.ipynb").read_text())
    assert not [
        cid for cid, outs in outputs.items() if any(o["output_type"] == "error" for o in outs)
    ]
    for function in FUNCTIONS:
        assert printed(outputs[f"check_{function}"]).startswith(
            f"TODO  {function}: not implemented yet"
        )
    assert "attend() is not implemented yet" in printed(outputs["heatmap"])
    assert any("image/png" in o.get("data", {}) for o in outputs["heatmap"])


def test_the_notebook_with_the_reference_passes_every_check_and_draws_both_tables(
    tmp_path, course, assignment, reference_source
):
    files = release.write(course, assignment, out=tmp_path, bundle=None)
    assert tmp_path / "attention.ipynb" in files
    filled = synthetic.notebook_submission(
        (tmp_path / "attention.ipynb").read_text(), reference_source
    )
    assert (
        "raise NotImplementedError"
        not in notebook.extract_code(filled.encode(), "attention.ipynb", CONTENT.functions).decode()
    )
    outputs = run(tmp_path, filled)
    assert not [
        cid for cid, outs in outputs.items() if any(o["output_type"] == "error" for o in outs)
    ]
    for function in FUNCTIONS:
        assert printed(outputs[f"check_{function}"]).startswith(f"PASS  {function}: ")
    assert printed(outputs["heatmap"]) == ""
    assert any("image/png" in o.get("data", {}) for o in outputs["heatmap"])
