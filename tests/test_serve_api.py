"""The service's API as a client uses it: hand in, watch the status, read the score, and every
refusal the contract names, each with its status code and one line of JSON."""

import csv
import io

import pytest
from starlette.testclient import TestClient

import serve_class
import week_class
from course_content import CATALOGUE
from qkv.grade.batch import grade
from qkv.results import records
from qkv.serve.app import create_app
from qkv.serve.models import Audit, Submission
from qkv.serve.pool import Pool
from qkv.serve.service import Service


@pytest.fixture(scope="module", params=serve_class.DATABASES)
def served(request, tmp_path_factory):
    root = tmp_path_factory.mktemp("served")
    with serve_class.database(request.param) as db:
        settings = serve_class.settings(root, db, serve={"submissions_per_hour": 3})
        service = Service.open(settings)
        tokens = serve_class.tokens(service)
        pool = Pool(service, 1)
        pool.start()
        service.wake = pool.wake
        try:
            with TestClient(create_app(service.settings, service)) as client:
                yield service, client, tokens
        finally:
            pool.stop()
            service.engine.dispose()


def bearer(token):
    return {"Authorization": f"Bearer {token}"}


def test_a_hand_in_is_queued_then_graded_to_the_batchs_points(served, tmp_path):
    service, client, tokens = served
    source = week_class.with_softmax_on_axis0(week_class.reference_source())
    response = client.post(
        "/api/assignments/attention/submissions",
        headers=bearer(tokens["bob"]),
        files=[("files", ("attention.py", source.encode()))],
    )
    assert response.status_code == 202
    body = response.json()
    assert body["status"] == "queued" and body["url"] == f"/api/submissions/{body['id']}"
    data = serve_class.wait_graded(client, body["url"], bearer(tokens["bob"]))
    assert data["status"] == "graded" and data["student"] == "bob"
    assert data["feedback_url"] == f"/s/{body['id']}"
    # the batch, on the same file handed in at the same time
    week_class.hand_in(tmp_path / "subs", "bob", source, data["submitted_at"])
    grade(
        service.course,
        tmp_path / "subs",
        assignment="attention",
        out=tmp_path / "out",
        jobs=1,
        progress=False,
    )
    batch = records.read(tmp_path / "out" / "results" / "bob.json")
    assert data["score"] == batch.total < 100
    assert data["max_score"] == 120
    assert data["credit"] == 100 and data["final"] == data["score"]
    assert [t["score"] for t in data["results"]["tests"]] == [t.score for t in batch.tests]


@pytest.mark.parametrize(
    ("headers", "status"),
    [({}, 401), ({"Authorization": "Bearer forged"}, 401), ({"Authorization": "Basic x"}, 401)],
)
def test_no_or_a_bad_token_is_401_in_one_line_of_json(served, headers, status):
    _, client, _ = served
    response = client.post(
        "/api/assignments/attention/submissions",
        headers=headers,
        files=serve_class.reference_files(),
    )
    assert response.status_code == status
    assert list(response.json()) == ["error"] and "\n" not in response.json()["error"]


def test_an_unknown_assignment_is_404(served):
    _, client, tokens = served
    response = client.post(
        "/api/assignments/nope/submissions",
        headers=bearer(tokens["alice"]),
        files=serve_class.reference_files(),
    )
    assert response.status_code == 404 and "nope" in response.json()["error"]


def test_an_upload_over_the_limit_is_413(served):
    service, client, tokens = served
    big = b"#" * (service.course.serve.max_upload_kb * 1024 + 1)
    response = client.post(
        "/api/assignments/attention/submissions",
        headers=bearer(tokens["carol"]),
        files=[("files", ("attention.py", big))],
    )
    assert response.status_code == 413


def test_files_with_nothing_to_grade_are_422(served):
    _, client, tokens = served
    response = client.post(
        "/api/assignments/attention/submissions",
        headers=bearer(tokens["carol"]),
        files=[("files", ("notes.txt", b"hello"))],
    )
    assert response.status_code == 422 and "attention.py" in response.json()["error"]


def test_a_file_named_like_a_path_stays_a_name(served, tmp_path):
    service, client, tokens = served
    response = client.post(
        "/api/assignments/attention/submissions",
        headers=bearer(tokens["dave"]),
        files=[*serve_class.reference_files(), ("files", ("../../x.py", b"print('hi')"))],
    )
    assert response.status_code == 202
    data = serve_class.wait_graded(client, response.json()["url"], bearer(tokens["dave"]))
    assert data["status"] == "graded"
    data_dir = service.settings.data
    assert not (data_dir.parent / "x.py").exists() and not (data_dir / "x.py").exists()
    assert not list(data_dir.parent.parent.glob("x.py"))


def test_another_students_hand_in_is_404_and_staff_see_it(served):
    _, client, tokens = served
    response = client.post(
        "/api/assignments/attention/submissions",
        headers=bearer(tokens["erin"]),
        files=serve_class.reference_files(),
    )
    url = response.json()["url"]
    assert client.get(url, headers=bearer(tokens["frank"])).status_code == 404
    assert (
        client.get("/api/submissions/nonexistent", headers=bearer(tokens["frank"])).status_code
        == 404
    )
    assert client.get(url, headers=bearer(tokens["ta"])).json()["student"] == "erin"


def test_over_the_hourly_limit_is_429_with_retry_after(served):
    _, client, tokens = served
    codes = []
    for _ in range(4):
        response = client.post(
            "/api/assignments/attention/submissions",
            headers=bearer(tokens["frank"]),
            files=[("files", ("answers.yaml", b"q1: a\n"))],
        )
        codes.append(response.status_code)
    assert codes == [202, 202, 202, 429]
    assert 0 < int(response.headers["Retry-After"]) <= 3600


def test_after_the_last_late_window_hand_ins_are_403(served):
    service, client, tokens = served
    clock = service.settings.clock
    before, clock.when = clock.when, clock.when.replace(year=2027, month=1, day=30)
    try:
        response = client.post(
            "/api/assignments/attention/submissions",
            headers=bearer(tokens["alice"]),
            files=serve_class.reference_files(),
        )
    finally:
        clock.when = before
    assert response.status_code == 403 and "closed" in response.json()["error"]


def test_a_student_token_is_refused_on_staff_urls(served):
    _, client, tokens = served
    for url in (
        "/api/assignments/attention/gradebook.csv",
        "/api/assignments/attention/canvas.csv",
    ):
        assert client.get(url, headers=bearer(tokens["alice"])).status_code == 403
        assert client.get(url).status_code == 401
    assert (
        client.post(
            "/api/assignments/attention/regrade", headers=bearer(tokens["alice"])
        ).status_code
        == 403
    )


def test_the_gradebook_has_the_batchs_header_and_a_row_per_roster_student(served):
    _, client, tokens = served
    response = client.get("/api/assignments/attention/gradebook.csv", headers=bearer(tokens["ta"]))
    assert response.status_code == 200
    rows = list(csv.reader(io.StringIO(response.text)))
    assert rows[0] == [
        "student",
        "project",
        "score",
        "softmax",
        "aggregate",
        "attend",
        "quiz",
        "total",
        "submitted_at",
        "credit",
        "final",
        "status",
    ]
    assert [r[0] for r in rows[1:]] == ["alice", "bob", "carol", "dave", "erin", "frank"]
    by_student = {r[0]: r for r in rows[1:]}
    assert by_student["carol"][-1] == "missing"
    canvas = client.get("/api/assignments/attention/canvas.csv", headers=bearer(tokens["ta"]))
    assert canvas.status_code == 200 and "Points Possible" in canvas.text


def test_with_the_dask_executor_hand_ins_are_graded_on_the_cluster_to_the_same_points(tmp_path):
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(
        n_workers=1, threads_per_worker=1, processes=True, dashboard_address=None
    ) as cluster:
        settings = serve_class.settings(tmp_path)
        settings.executor, settings.scheduler = "dask", cluster.scheduler_address
        service = Service.open(settings)
        tokens = serve_class.tokens(service)
        pool = Pool(service, 1)
        pool.start()
        service.wake = pool.wake
        try:
            client = TestClient(create_app(settings, service))
            source = week_class.with_softmax_on_axis0(week_class.reference_source())
            response = client.post(
                "/api/assignments/attention/submissions",
                headers=bearer(tokens["bob"]),
                files=[("files", ("attention.py", source.encode()))],
            )
            data = serve_class.wait_graded(client, response.json()["url"], bearer(tokens["bob"]))
        finally:
            pool.stop()
    week_class.hand_in(tmp_path / "subs", "bob", source, data["submitted_at"])
    grade(
        service.course,
        tmp_path / "subs",
        assignment="attention",
        out=tmp_path / "out",
        jobs=1,
        progress=False,
    )
    assert data["status"] == "graded"
    assert data["score"] == records.read(tmp_path / "out" / "results" / "bob.json").total < 100


def test_a_staff_adjustment_changes_the_score_is_kept_by_regrades_and_is_audited(served):
    service, client, tokens = served
    response = client.post(
        "/api/assignments/attention/submissions",
        headers=bearer(tokens["alice"]),
        files=serve_class.reference_files(),
    )
    url = response.json()["url"]
    before = serve_class.wait_graded(client, url, bearer(tokens["alice"]))["score"]
    refused = client.post(
        "/api/assignments/attention/overrides",
        headers=bearer(tokens["ta"]),
        json={"student": "alice", "part": "nope", "points": "+2", "comment": ""},
    )
    assert refused.status_code == 422 and "unknown part 'nope'" in refused.json()["error"]
    assert (
        client.post(
            "/api/assignments/attention/overrides",
            headers=bearer(tokens["alice"]),
            json={"student": "alice", "part": "quiz", "points": "20", "comment": ""},
        ).status_code
        == 403
    )
    done = client.post(
        "/api/assignments/attention/overrides",
        headers=bearer(tokens["ta"]),
        json={"student": "alice", "part": "quiz", "points": "+5", "comment": "oral exam"},
    )
    assert done.status_code == 202 and done.json()["queued"] >= 1
    after = serve_class.wait_graded(client, url, bearer(tokens["alice"]))
    assert after["score"] == before + 5
    regraded = client.post("/api/assignments/attention/regrade", headers=bearer(tokens["ta"]))
    assert regraded.status_code == 202
    assert serve_class.wait_graded(client, url, bearer(tokens["alice"]))["score"] == before + 5
    with service.sessions() as db:
        actions = [(a.actor, a.action) for a in db.query(Audit).order_by(Audit.id)]
    assert ("ta", "override") in actions and ("ta", "regrade") in actions


def test_a_hand_in_that_loops_costs_only_itself(served):
    _, client, tokens = served
    looping = client.post(
        "/api/assignments/attention/submissions",
        headers=bearer(tokens["erin"]),
        files=[("files", ("attention.py", b"while True:\n    pass\n"))],
    )
    honest = client.post(
        "/api/assignments/attention/submissions",
        headers=bearer(tokens["frank"]),
        files=serve_class.reference_files(),
    )
    if honest.status_code == 429:  # frank used his hand-ins for the hour above
        honest = client.post(
            "/api/assignments/attention/submissions",
            headers=bearer(tokens["carol"]),
            files=serve_class.reference_files(),
        )
    stuck = serve_class.wait_graded(client, looping.json()["url"], bearer(tokens["ta"]))
    fine = serve_class.wait_graded(client, honest.json()["url"], bearer(tokens["ta"]))
    assert stuck["status"] == "graded" and stuck["score"] == 0
    assert "ungradable" in stuck["results"]["output"]
    assert fine["status"] == "graded" and fine["score"] == 100


def test_the_staff_page_names_the_classs_misconceptions(served):
    service, client, tokens = served
    response = client.post(
        "/api/assignments/attention/submissions",
        headers=bearer(tokens["dave"]),
        files=[
            (
                "files",
                (
                    "attention.py",
                    week_class.with_softmax_on_axis0(week_class.reference_source()).encode(),
                ),
            )
        ],
    )
    serve_class.wait_graded(client, response.json()["url"], bearer(tokens["dave"]))
    staff = TestClient(create_app(service.settings, service))
    staff.get(f"/login?token={tokens['ta']}")
    page = staff.get("/staff").text
    message = CATALOGUE.by_id("softmax_axis0").message
    assert "softmax_axis0" in page
    assert message.replace("'", "&#x27;").replace('"', "&quot;")[:40] in page


def test_the_item_analysis_of_the_class_is_on_the_staff_page_and_in_items_csv(served):
    service, client, tokens = served
    response = client.get("/api/assignments/attention/items.csv", headers=bearer(tokens["ta"]))
    assert response.status_code == 200
    rows = list(csv.reader(io.StringIO(response.text)))
    assert rows[0] == [
        "kind",
        "part",
        "item",
        "students",
        "difficulty",
        "point_biserial",
        "upper_lower",
        "flag",
    ]
    assert any(r[0] == "check" and r[1] == "softmax" for r in rows[1:])
    assert (
        client.get(
            "/api/assignments/attention/items.csv", headers=bearer(tokens["bob"])
        ).status_code
        == 403
    )
    staff = TestClient(create_app(service.settings, service))
    staff.get(f"/login?token={tokens['ta']}")
    assert "<h2>Item analysis</h2>" in staff.get("/staff").text


def test_staff_regrade_one_hand_in_which_is_graded_once_more(served):
    service, client, tokens = served
    response = client.post(
        "/api/assignments/attention/submissions",
        headers=bearer(tokens["bob"]),
        files=serve_class.reference_files(),
    )
    submission_id, url = response.json()["id"], response.json()["url"]
    first = serve_class.wait_graded(client, url, bearer(tokens["bob"]))
    regrade = f"/api/submissions/{submission_id}/regrade"
    assert client.post(regrade, headers=bearer(tokens["bob"])).status_code == 403
    assert (
        client.post("/api/submissions/nope/regrade", headers=bearer(tokens["ta"])).status_code
        == 404
    )
    assert client.post(regrade, headers=bearer(tokens["ta"])).status_code == 202
    again = serve_class.wait_graded(client, url, bearer(tokens["bob"]))
    assert again["score"] == first["score"]
    with service.sessions() as db:
        assert db.get(Submission, submission_id).gradings == 2
