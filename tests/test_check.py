"""`qkv check`: a line per function, teaching messages, stubs and broken files handled."""
import pytest

from course_content import CATALOGUE
from autograder.cli import main


def run_check(capsys, course, path):
    code = main(["check", str(path), "--course", str(course.root)])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_reference_passes_every_public_check(capsys, course, assignment):
    code, out, _ = run_check(capsys, course, course.path(assignment.source))
    assert code == 0
    assert out.count("PASS") == 5 and "5 of 5 functions pass" in out


def test_stubs_are_reported_as_not_implemented(capsys, course):
    code, out, _ = run_check(capsys, course, course.root / "exercises" / "attention" / "attention.py")
    assert code == 1
    for f in ("project", "score", "softmax", "aggregate", "attend"):
        assert f"TODO  {f}: not implemented yet" in out


def test_syntax_error_is_one_line_with_its_line_number(tmp_path, capsys, course):
    path = tmp_path / "attention.py"
    path.write_text("import numpy as np\n\ndef softmax(S)\n    return S\n")
    code, out, err = run_check(capsys, course, path)
    assert code == 1
    assert "syntax error on line 3" in out
    assert "Traceback" not in out + err


def test_non_utf8_file_is_one_clear_line(tmp_path, capsys, course):
    path = tmp_path / "attention.py"
    path.write_bytes(b"# caf\xe9\n")
    code, _, err = run_check(capsys, course, path)
    assert code == 2 and "not UTF-8" in err and err.count("\n") == 1


@pytest.mark.parametrize("mistake_id", [m.id for m in CATALOGUE])
def test_each_catalogued_mistake_is_named_by_the_public_checks(tmp_path, capsys, course, reference_source, mistake_id):
    m = CATALOGUE.by_id(mistake_id)
    path = tmp_path / "attention.py"
    path.write_text(m.mutant_source(reference_source))
    code, out, _ = run_check(capsys, course, path)
    assert code == 1
    line = next(line for line in out.splitlines() if line.startswith(f"FAIL  {m.part}:"))
    assert m.message in line


def test_a_failing_attend_points_at_the_failing_function_it_calls(tmp_path, capsys, course, reference_source):
    path = tmp_path / "attention.py"
    path.write_text(CATALOGUE.by_id("softmax_axis0").mutant_source(reference_source))
    _, out, _ = run_check(capsys, course, path)
    attend = next(line for line in out.splitlines() if line.startswith("FAIL  attend:"))
    assert "attend() calls your own functions, and softmax() fails on its own: fix that first." in attend
