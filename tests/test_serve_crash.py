"""A server killed with SIGKILL while hand-ins are grading leaves nothing running, and started
again on the same data grades every hand-in it had answered 202 for, exactly once, to the
batch's points."""

import json
import time
import urllib.request

import pytest

import serve_class
import week_class
from qkv.course.config import load_course
from qkv.grade.batch import grade
from qkv.results import records
from qkv.serve import client
from qkv.serve.service import Service
from serve_process import Server, alive

SLOW = "import time\ntime.sleep(1.5)\n"  # each hand-in keeps a grading process busy a moment


def post(server, token, source):
    body, content_type = client.multipart_bytes([("attention.py", source.encode())])
    request = urllib.request.Request(
        f"{server.url}/api/assignments/attention/submissions",
        data=body,
        headers={"Authorization": f"Bearer {token}", "Content-Type": content_type},
    )
    with urllib.request.urlopen(request) as response:
        assert response.status == 202
        return json.loads(response.read())["id"]


def status(server, token, submission_id):
    request = urllib.request.Request(
        f"{server.url}/api/submissions/{submission_id}",
        headers={"Authorization": f"Bearer {token}"},
    )
    with urllib.request.urlopen(request) as response:
        return json.loads(response.read())


@pytest.fixture(params=serve_class.DATABASES)
def database(request):
    with serve_class.database(request.param) as db:
        yield db


def test_sigkill_mid_grading_then_restart_grades_every_accepted_hand_in_once(tmp_path, database):
    settings = serve_class.settings(tmp_path, database)
    service = Service.open(settings)
    tokens = serve_class.tokens(service)
    source = week_class.reference_source()
    wrong = week_class.with_softmax_on_axis0(source)
    server = Server(settings.course, settings.data, jobs=2, db=database).start()
    handed = {}
    for student in ("alice", "bob", "carol", "erin", "frank"):
        for i, code in enumerate((SLOW + source, SLOW + wrong)):
            handed[post(server, tokens[student], code)] = (student, i, code)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        states = [status(server, tokens[s], i)["status"] for i, (s, _, _) in handed.items()]
        if "grading" in states:
            break
        time.sleep(0.05)
    assert "grading" in states and states.count("graded") < len(states)
    started = server.kill()
    assert started, "the server had started grading processes"
    time.sleep(1.0)
    assert [pid for pid in started if alive(pid)] == []

    again = Server(settings.course, settings.data, jobs=2, db=database).start()
    try:
        deadline = time.monotonic() + 120
        done = {}
        while time.monotonic() < deadline and len(done) < len(handed):
            for i, (student, _, _) in handed.items():
                data = status(again, tokens[student], i)
                if data["status"] in ("graded", "failed"):
                    done[i] = data
            time.sleep(0.2)
    finally:
        assert again.stop() == 0
    assert sorted(d["status"] for d in done.values()) == ["graded"] * len(handed)
    with service.engine.connect() as connection:
        gradings = dict(connection.exec_driver_sql("SELECT id, gradings FROM submissions").all())
        jobs = connection.exec_driver_sql(
            "SELECT submission_id, count(*) FROM jobs WHERE state = 'done' GROUP BY submission_id"
        ).all()
    service.engine.dispose()
    assert gradings == dict.fromkeys(handed, 1)
    assert dict(jobs) == dict.fromkeys(handed, 1)
    # the batch on the same files, handed in at the same times
    course = load_course(settings.course)
    for i, (student, n, code) in handed.items():
        week_class.hand_in(tmp_path / f"subs{n}", student, code, done[i]["submitted_at"])
    for n in (0, 1):
        grade(
            course,
            tmp_path / f"subs{n}",
            assignment="attention",
            out=tmp_path / f"out{n}",
            jobs=1,
            progress=False,
        )
    for i, (student, n, _) in handed.items():
        batch = records.read(tmp_path / f"out{n}" / "results" / f"{student}.json")
        assert done[i]["score"] == batch.total, (student, n)
