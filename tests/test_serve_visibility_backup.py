"""What a student is shown of their checks (feedback.visibility), and backups while it runs."""

import sqlite3

import pytest
from starlette.testclient import TestClient

import serve_class
from qkv.cli import main
from qkv.serve.app import create_app
from qkv.serve.pool import Pool
from qkv.serve.service import Service


@pytest.fixture(scope="module", params=serve_class.DATABASES)
def served(request, tmp_path_factory):
    root = tmp_path_factory.mktemp("visibility")
    with serve_class.database(request.param) as db:
        settings = serve_class.settings(
            root, db, feedback={"visibility": "after_due_date", "show_case_inputs": False}
        )
        service = Service.open(settings)
        tokens = serve_class.tokens(service)
        pool = Pool(service, 1)
        pool.start()
        service.wake = pool.wake
        try:
            yield service, TestClient(create_app(settings, service)), tokens
        finally:
            pool.stop()
            service.engine.dispose()


def test_checks_shown_after_the_due_date_are_hidden_from_the_student_until_then(served):
    service, client, tokens = served
    alice = {"Authorization": f"Bearer {tokens['alice']}"}
    response = client.post(
        "/api/assignments/attention/submissions", headers=alice, files=serve_class.reference_files()
    )
    url = response.json()["url"]
    before = serve_class.wait_graded(client, url, alice)
    assert before["score"] == 100 and before["results"]["tests"] == []
    staff = client.get(url, headers={"Authorization": f"Bearer {tokens['ta']}"}).json()
    assert len(staff["results"]["tests"]) > 10
    clock = service.settings.clock
    saved, clock.when = clock.when, clock.when.replace(day=17)
    try:
        after = client.get(url, headers=alice).json()
    finally:
        clock.when = saved
    assert after["results"]["tests"] == staff["results"]["tests"]


def test_backup_copies_the_database_while_it_runs(served, tmp_path):
    service, _, _ = served
    out = tmp_path / "backup.db"
    args = ["serve", "backup", str(out), "--data", str(service.settings.data)]
    assert main([*args, *(["--db", service.settings.db] if service.settings.db else [])]) == 0
    assert out.stat().st_size > 0
    if service.settings.db is None:
        copy = sqlite3.connect(out)
        assert copy.execute("SELECT count(*) FROM submissions").fetchone()[0] >= 1
        copy.close()
    else:
        assert out.read_bytes()[:5] == b"PGDMP"  # pg_dump's custom format
    assert main([*args, *(["--db", service.settings.db] if service.settings.db else [])]) == 2
