"""A class as a grader meets it: a course folder with a roster and a late policy, and hand-ins with times.

The course is a copy of the repository's course.yaml and the attention assignment's content, in a
folder of the test's own (so a test may change course.yaml, the suites or the roster). The class:

    alice  on time                                   -> credit 100
    bob    in the first late window (80 %)           -> credit 80
    frank  in the second late window (50 %), nbgrader's timestamp format
    carol  after the last window                     -> credit 0
    erin   after the deadline, within her extension  -> credit 100
    dave   on the roster, handed in nothing          -> a `missing` row
    zed    handed in, not on the roster              -> graded, reported
"""

from __future__ import annotations

import copy
import shutil
from pathlib import Path

import yaml

from course_content import ROOT
from qkv.content import reference
from qkv.course.config import load_course

DEADLINE = "2026-12-15T23:59:00+00:00"
LATE = [
    {"until": "2026-12-16T23:59:00+00:00", "credit": 80},
    {"until": "2026-12-18T23:59:00+00:00", "credit": 50},
]
EXTENSIONS = [{"student": "erin", "deadline": "2026-12-17T23:59:00+00:00"}]
ROSTER = """id,name,email,section,sis_id,sis_login_id,canvas_id
alice,Alice Archer,alice@uni.example,A1,S001,aarcher,101
bob,Bob Baker,bob@uni.example,A1,S002,bbaker,102
carol,Carol Cole,carol@uni.example,A2,S003,ccole,103
dave,Dave Dunn,dave@uni.example,A2,S004,ddunn,104
erin,Erin Eaves,erin@uni.example,A2,S005,eeaves,105
frank,Frank Fox,frank@uni.example,A1,S006,ffox,106
"""
HANDED_IN = {
    "alice": "2026-12-15T20:00:00+00:00",
    "bob": "2026-12-16T12:00:00+01:00",
    "carol": "2026-12-20T09:00:00+00:00",
    "erin": "2026-12-17T08:00:00Z",
    "frank": "2026-12-17 09:30:00.000000 UTC",
    "zed": "2026-12-14T10:00:00+00:00",
}
RAW = yaml.safe_load((ROOT / "course.yaml").read_text())


def course_data(**changes) -> dict:
    """The repository's course with the week's policy: roster, deadline, late windows, an extension."""
    data = copy.deepcopy(RAW)
    data["assignments"] = [a for a in data["assignments"] if a["id"] == "attention"]
    data["roster"] = "roster.csv"
    a = data["assignments"][0]
    a.update(deadline=DEADLINE, late=copy.deepcopy(LATE), extensions=copy.deepcopy(EXTENSIONS))
    for key, value in changes.items():
        (a if key in ("deadline", "late", "extensions", "overrides", "parts", "title") else data)[
            key
        ] = value
    return {k: v for k, v in data.items() if v is not None}


def write_course(folder: Path, **changes) -> Path:
    """course.yaml (with `changes`), roster.csv and the attention content in `folder`; returns course.yaml."""
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / "solutions" / "attention"
    if not target.exists():
        shutil.copytree(
            ROOT / "solutions" / "attention", target, ignore=shutil.ignore_patterns("__pycache__")
        )
    if not (folder / "roster.csv").exists():
        (folder / "roster.csv").write_text(ROSTER)
    path = folder / "course.yaml"
    path.write_text(yaml.safe_dump(course_data(**changes), sort_keys=False))
    return path


def load(folder: Path, **changes):
    return load_course(write_course(folder, **changes))


def reference_source() -> str:
    return (ROOT / "solutions" / "attention" / "attention.py").read_text()


def with_softmax_on_axis0(source: str) -> str:
    return reference.replace_function(
        source,
        "softmax",
        (
            "def softmax(S):\n    S = np.asarray(S, dtype=float)\n    E = np.exp(S - S.max(axis=0))\n"
            "    return E / E.sum(axis=0)"
        ),
    )


def hand_in(subs: Path, student: str, source: str, when: str | None, handin: str = "") -> Path:
    folder = subs / student / handin if handin else subs / student
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "attention.py").write_text(source)
    if when is not None:
        (folder / "timestamp.txt").write_text(when + "\n")
    return folder


def write_class(subs: Path) -> Path:
    source = reference_source()
    for student, when in HANDED_IN.items():
        hand_in(subs, student, source, when)
    return subs
