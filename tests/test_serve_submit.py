"""Handing in from the student's side: `qkv submit` and the released notebook's submit()."""

import contextlib
import io
import json

import pytest

import serve_class
import week_class
from qkv.cli import main
from qkv.course.config import load_course
from qkv.release import notebook as notebook_build
from qkv.release import steps as release
from qkv.serve import people
from qkv.serve.service import Service
from serve_process import Server


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    root = tmp_path_factory.mktemp("submit")
    settings = serve_class.settings(root)
    server = Server(settings.course, settings.data)
    settings = serve_class.settings(root, serve={"url": server.url + "/"})
    tokens = serve_class.tokens(Service.open(settings))
    server.start()
    (root / "attention.py").write_text(week_class.reference_source())
    try:
        yield server, tokens, root, settings
    finally:
        server.stop()


def test_qkv_submit_prints_the_score_and_the_feedback_link(server, capsys):
    server, tokens, root, _ = server
    args = ["submit", str(root / "attention.py"), "--server", server.url, "--token"]
    assert main([*args, tokens["alice"]]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "handed in attention.py to attention: queued"
    assert lines[1] == "score: 100 / 120"
    assert lines[2].startswith(f"feedback: {server.url}/s/")


def test_qkv_submit_takes_the_token_from_the_environment(server, capsys, monkeypatch):
    server, tokens, root, _ = server
    monkeypatch.setenv("QKV_TOKEN", tokens["carol"])
    assert main(["submit", str(root / "attention.py"), "--server", server.url]) == 0
    assert capsys.readouterr().out.splitlines()[1] == "score: 100 / 120"


def test_qkv_submit_without_any_token_says_how_to_give_one(server, capsys, monkeypatch):
    server, _, root, _ = server
    monkeypatch.delenv("QKV_TOKEN", raising=False)
    code = main(["submit", str(root / "attention.py"), "--server", server.url])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "QKV_TOKEN" in err


def test_no_sign_in_token_reads_as_an_option():
    # A token beginning with "-" made `--token TOKEN` fail in argparse about once in 64 draws.
    drawn = [people.new_token() for _ in range(2000)]
    assert all(t.startswith(people.TOKEN_PREFIX) for t in drawn)
    assert len(set(drawn)) == len(drawn)


def test_qkv_submit_with_a_bad_token_is_one_line_and_exit_2(server, capsys):
    server, _, root, _ = server
    code = main(["submit", str(root / "attention.py"), "--server", server.url, "--token", "bad"])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "401" in err


def test_the_released_notebook_offers_submit_when_the_course_names_its_server(server, tmp_path):
    server, tokens, root, settings = server
    course = load_course(settings.course)
    assignment = course.assignment("attention")
    released = release.build(course, assignment)[notebook_build.layout.notebook_file(assignment)]
    setup = next(c for c in json.loads(released)["cells"] if c.get("id") == "setup")
    source = "".join(setup["source"])
    assert f"SERVER = '{server.url}'" in source and "def submit(" in source
    code = source[source.index("SERVER = ") :]
    namespace: dict = {}
    exec(code, namespace)
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.chdir(root):
        namespace["submit"]("attention.py", token=tokens["bob"])
    printed = out.getvalue().splitlines()
    assert printed[0] == "handed in attention.py; grading..."
    assert printed[1] == "score: 100 / 120 (final 100)"


def test_without_a_server_the_notebook_has_no_submit(tmp_path):
    course = load_course(week_class.write_course(tmp_path / "course"))
    assignment = course.assignment("attention")
    released = release.build(course, assignment)[notebook_build.layout.notebook_file(assignment)]
    assert "def submit(" not in released
