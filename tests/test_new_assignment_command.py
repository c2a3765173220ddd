"""`qkv new-assignment ID` writes a folder that releases, validates and grades as it is written."""

import csv

from qkv.cli import main
from test_new_assignment import tiny  # noqa: F401 - the fixture: a course of one assignment


def run(capsys, *argv):
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_the_new_assignment_releases_validates_and_grades(tiny, tmp_path, capsys):  # noqa: F811
    code, out, err = run(capsys, "new-assignment", "scaling", "--course", str(tiny))
    assert code == 0 and "added 'scaling' to course.yaml" in out, err
    code, _, err = run(capsys, "release", "--course", str(tiny), "--assignment", "scaling")
    assert code == 0, err
    release = tiny / "exercises" / "scaling"
    assert {"scaling.py", "public_cases.json", "quiz.md", "answers.yaml"} <= {
        p.name for p in release.iterdir()
    }
    answers, readme = ((release / name).read_text() for name in ("answers.yaml", "README.md"))
    assert "e.g. `scale-meaning: a`." in answers and "dot-product" not in answers
    assert "drawn" not in readme  # its quiz draws no numbers, and it has no notebook
    code, out, _ = run(
        capsys, "quiz", "show", "--course", str(tiny), "--assignment", "scaling", "--student", "ada"
    )
    assert code == 0 and "(e.g. `scale-meaning: a`)" in " ".join(out.split())
    code, out, _ = run(
        capsys, "validate", "--course", str(tiny), "--assignment", "scaling", "--jobs", "1"
    )
    assert code == 0 and "mistake scale_adds: scale 0/10, named in feedback" in out, out
    reference = (tiny / "solutions" / "scaling" / "scaling.py").read_text()
    subs = tmp_path / "subs"
    for student, text in (
        ("ada", reference),
        ("bob", reference.replace("np.asarray(x) * factor", "np.asarray(x) + factor")),
    ):
        (subs / student).mkdir(parents=True)
        (subs / student / "scaling.py").write_text(text)
    out_dir = tmp_path / "out"
    code, _, err = run(
        capsys, "grade", str(subs), "--assignment", "scaling", "--out", str(out_dir),
        "--course", str(tiny), "--jobs", "1", "--quiet",
    )  # fmt: skip
    assert code == 0, err
    rows = {r["student"]: r for r in csv.DictReader((out_dir / "gradebook.csv").open())}
    assert rows["ada"]["scale"] == "10" and rows["bob"]["scale"] == "0"


def test_an_id_the_course_has_or_a_bad_id_is_one_line(tiny, capsys):  # noqa: F811
    for bad, says in (("doubling", "already has an assignment"), ("Bad-Id", "lower-case")):
        code, _, err = run(capsys, "new-assignment", bad, "--course", str(tiny))
        assert code == 2 and says in err and err.count("\n") == 1, err
