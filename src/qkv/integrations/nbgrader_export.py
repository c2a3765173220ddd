"""`qkv nbgrader export DIR`: the assignment as an nbgrader course, graded by this kit's hidden suites.

DIR gets what `nbgrader generate_assignment` and `nbgrader autograde` need: nbgrader_config.py,
the master notebook with a hidden test cell per part, and this course's instructor files.

More in docs/internals/integrations.md.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import yaml

from qkv.content import loader
from qkv.course import layout
from qkv.course.config import Assignment, Course
from qkv.errors import QkvError
from qkv.integrations import nbgrader_bridge
from qkv.release import notebook as notebook_build
from qkv.release import steps as release
from qkv.results.records import atomic_write

CONFIG = '''\
"""nbgrader configuration for this course, written by `qkv nbgrader export`."""
c = get_config()  # noqa: F821 - nbgrader provides it

# c.CourseDirectory.course_id = "..."  # set it to use nbgrader's exchange (release, collect)

# The first hidden test cell of a notebook grades the whole notebook with qkv-kit (sandboxed, with the
# hidden suites); that takes a few seconds, more than nbgrader's default 30 s on a busy machine.
c.Execute.timeout = 120
'''

TEST_CELL = """\
# Graded by qkv-kit: {what} ({points:g} points).
### BEGIN HIDDEN TESTS
from qkv.integrations import nbgrader_bridge
nbgrader_bridge.part_score({part!r}, assignment={assignment!r}, notebook={notebook!r})
### END HIDDEN TESTS
"""
PUBLIC_FILES = (layout.PUBLIC_CHECKS_FILE, layout.COMPARE_FILE, layout.CASES_FILE)


def test_cell(part: str, points: float, assignment: Assignment, what: str) -> dict:
    """An nbgrader autograder-test cell (grade, locked, points) for one part or the quiz.

    Args:
        part: the part's id, or "quiz"; the cell's grade id is test_<part>.
        points: the most the cell gives, the part's points in course.yaml.
        assignment: the assignment the notebook is of.
        what: what the cell grades, in words for its first comment ("your quiz answers").
    """
    source = TEST_CELL.format(
        what=what,
        points=points,
        part=part,
        assignment=assignment.id,
        notebook=layout.notebook_file(assignment),
    )
    grade_id = f"test_{part}"
    return notebook_build.code_cell(
        grade_id, source, notebook_build.nbgrader_meta(grade_id, locked=True, points=points)
    )


def with_tests(cells: list[dict], assignment: Assignment) -> list[dict]:
    """The cells with a hidden test cell after each part's check cell, and after the quiz answers."""
    after = {
        f"check_{p.function}": test_cell(
            p.id, p.points, assignment, f"the hidden checks of {p.function}()"
        )
        for p in assignment.parts
    }
    if assignment.quiz:
        after["answers"] = test_cell(
            "quiz", assignment.quiz_points, assignment, "your quiz answers"
        )
    out = []
    for cell in cells:
        out.append(cell)
        if cell["id"] in after:
            out.append(after.pop(cell["id"]))
    if after:  # master_cells makes every check cell, so only a story without them gets here
        raise QkvError(f"the notebook has no cell for {', '.join(sorted(after))} to follow")
    return out


def _plain(value):
    if dataclasses.is_dataclass(value):
        return {
            f.name: _plain(getattr(value, f.name))
            for f in dataclasses.fields(value)
            if not f.metadata.get("internal") and getattr(value, f.name) is not None
        }
    if isinstance(value, tuple):
        return [_plain(v) for v in value]
    return value


def kit_files(course: Course, assignment: Assignment) -> dict[str, str | bytes]:
    """qkv/course.yaml (this assignment only) and the assignment's files it names, at the same paths under qkv/."""
    files: dict[str, str | bytes] = {
        f"{nbgrader_bridge.KIT_DIR}/{name}": data
        for name, data in loader.snapshot(course, assignment).items()
    }
    data = _plain(dataclasses.replace(course, assignments=(assignment,)))
    header = (
        "# The course as `qkv nbgrader export` wrote it: what the hidden test cells grade with.\n"
    )
    files[f"{nbgrader_bridge.KIT_DIR}/course.yaml"] = header + yaml.safe_dump(
        data, sort_keys=False, allow_unicode=True
    )
    return files


def build(course: Course, assignment: Assignment) -> dict[str, str | bytes]:
    """Every file of the export, by path relative to DIR (nbgrader_config.py included)."""
    nb = notebook_build.master_notebook(course, assignment)
    nb["cells"] = with_tests(nb["cells"], assignment)
    source = f"source/{assignment.id}"
    public = release.build(course, assignment)
    files: dict[str, str | bytes] = {
        "nbgrader_config.py": CONFIG,
        f"{source}/{layout.notebook_file(assignment)}": notebook_build.dumps(nb),
    }
    files.update({f"{source}/{name}": public[name] for name in PUBLIC_FILES})
    files.update(kit_files(course, assignment))
    return files


def export(course: Course, assignment: Assignment, *, out: Path) -> list[Path]:
    """Write the nbgrader course into `out` (an existing nbgrader_config.py is kept).

    Args:
        course: the course.
        assignment: the assignment.
        out: the nbgrader course folder.

    Returns:
        The files written.
    """
    written = []
    for name, text in build(course, assignment).items():
        path = Path(out) / name
        if name == "nbgrader_config.py" and path.exists():
            continue
        atomic_write(path, text)
        written.append(path)
    return written
