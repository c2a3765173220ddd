"""Signing in to the service: tokens stored hashed, links that set a safe cookie, revocation."""

import csv
import importlib.util

import pytest
from starlette.testclient import TestClient

import serve_class
from qkv.cli import build_parser, main
from qkv.cli.commands import serve as cli_serve
from qkv.course import roster as roster_mod
from qkv.serve import people
from qkv.serve.app import create_app
from qkv.serve.service import Service


@pytest.fixture(params=serve_class.DATABASES)
def service(request, tmp_path):
    with serve_class.database(request.param) as db:
        service = Service.open(serve_class.settings(tmp_path, db))
        yield service
        service.engine.dispose()


def where(service) -> list[str]:
    """The --data (and --db) options that reach this service's database."""
    db = service.settings.db
    return ["--data", str(service.settings.data), *(["--db", db] if db else [])]


def test_health_answers_once_the_app_serves(service):
    with TestClient(create_app(service.settings, service)) as client:
        assert client.get("/api/health").status_code == 200


def test_a_sign_in_link_sets_a_signed_httponly_lax_cookie_and_leads_to_the_work(service):
    token = serve_class.tokens(service)["alice"]
    client = TestClient(create_app(service.settings, service))
    response = client.get(f"/login?token={token}", follow_redirects=False)
    assert response.status_code == 303
    assert response.headers["location"] == "/a/attention"
    cookie = response.headers["set-cookie"].lower()
    assert "httponly" in cookie and "samesite=lax" in cookie and "secure" not in cookie
    assert token not in cookie


def test_behind_an_https_proxy_the_cookie_is_secure(service):
    service.settings.forwarded_allow_ips = "*"
    token = serve_class.tokens(service)["alice"]
    client = TestClient(create_app(service.settings, service))
    response = client.get(
        f"/login?token={token}", headers={"X-Forwarded-Proto": "https"}, follow_redirects=False
    )
    assert "secure" in response.headers["set-cookie"].lower()


@pytest.mark.parametrize("token", ["", "nonsense", "x" * 500])
def test_a_bad_sign_in_link_is_refused(service, token):
    serve_class.tokens(service)
    client = TestClient(create_app(service.settings, service))
    assert client.get(f"/login?token={token}", follow_redirects=False).status_code == 401


def test_tokens_are_stored_as_hashes_only(service):
    found = serve_class.tokens(service)
    with service.engine.connect() as connection:
        dump = "\n".join(str(row) for row in connection.exec_driver_sql("SELECT * FROM tokens"))
    assert found["alice"] not in dump and found["ta"] not in dump
    assert people.digest(found["alice"]) in dump


def test_staff_add_prints_the_token_last_and_revoke_stops_it(service, capsys):
    assert main(["serve", "staff", "add", "grace", *where(service)]) == 0
    token = capsys.readouterr().out.strip().splitlines()[-1]
    with service.sessions() as db:
        assert people.person_for(db, token).is_staff
    assert main(["serve", "staff", "revoke", "grace", *where(service)]) == 0
    with service.sessions() as db:
        assert people.person_for(db, token) is None


def test_invite_writes_a_link_per_roster_student_and_rotate_replaces_one(service, tmp_path):
    course = str(service.settings.course)
    out = tmp_path / "links.csv"
    assert main(["serve", "invite", "--course", course, *where(service), "--out", str(out)]) == 0
    rows = list(csv.DictReader(out.open()))
    assert [r["student"] for r in rows] == ["alice", "bob", "carol", "dave", "erin", "frank"]
    assert rows[0]["email"] == "alice@uni.example"
    assert rows[0]["link"].endswith(f"/login?token={rows[0]['token']}")
    again = tmp_path / "again.csv"
    args = ["serve", "invite", "--course", course, *where(service), "--out", str(again)]
    assert main([*args, "--rotate", "--student", "bob"]) == 0
    (bob,) = csv.DictReader(again.open())
    with service.sessions() as db:
        assert people.person_for(db, rows[1]["token"]) is None
        assert people.person_for(db, bob["token"]).id == "bob"
        assert people.person_for(db, rows[0]["token"]).id == "alice"


def test_without_the_extra_qkv_serve_says_in_one_line_how_to_install_it(monkeypatch, capsys):
    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "uvicorn" else real(name, *a)
    )
    assert main(["serve", "--data", "nowhere"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "pip install 'qkv-kit[serve]'" in err and "uvicorn" in err


def signed_in_client(service, student="alice"):
    token = serve_class.tokens(service)[student]
    client = TestClient(create_app(service.settings, service))
    client.get(f"/login?token={token}")
    return client, token


def test_a_form_posted_without_its_csrf_token_is_refused(service):
    client, _ = signed_in_client(service)
    files = [("files", ("attention.py", b"def project(X, W_q, W_k, W_v):\n    pass\n"))]
    refused = client.post("/a/attention", files=files, follow_redirects=False)
    assert refused.status_code == 403 and "CSRF" in refused.text
    forged = client.post(
        "/a/attention", files=files, data={"csrf": "forged"}, follow_redirects=False
    )
    assert forged.status_code == 403
    page = client.get("/a/attention").text
    assert "No hand-ins yet" in page
    taken = client.post(
        "/a/attention",
        files=files,
        data={"csrf": serve_class.csrf_of(page)},
        follow_redirects=False,
    )
    assert taken.status_code == 303 and taken.headers["location"] == "/a/attention"


def test_a_forged_cookie_signs_nobody_in(service):
    client, _ = signed_in_client(service)
    assert client.get("/a/attention").status_code == 200
    value = client.cookies.get("qkv_session")
    client.cookies.set("qkv_session", value[:-2] + ("AA" if value[-2:] != "AA" else "BB"))
    assert client.get("/a/attention").status_code == 401


def test_rotating_a_students_token_ends_their_sessions(service, tmp_path):
    client, old = signed_in_client(service, "bob")
    assert client.get("/a/attention").status_code == 200
    with service.sessions.begin() as db:
        list(
            people.invite(db, roster_mod.load(service.course), base_url="", rotate=True, only="bob")
        )
    assert client.get("/a/attention").status_code == 401
    assert client.get(f"/login?token={old}", follow_redirects=False).status_code == 401


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (["--executor", "dask"], "--executor dask needs --scheduler"),
        (["--scheduler", "tcp://x:1"], "--scheduler is only for --executor dask"),
        (["--jobs", "0"], "--jobs: must be at least 1"),
    ],
)
def test_serve_options_that_cannot_work_are_one_line(options, message, capsys):
    assert main(["serve", "--data", "nowhere", *options]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err


def test_forwarded_headers_are_believed_only_from_a_trusted_proxy(service):
    token = serve_class.tokens(service)["alice"]
    settings = cli_serve.settings_of(
        build_parser().parse_args(["serve", "--trusted-proxy", "10.0.0.0/8"])
    )
    service.settings.forwarded_allow_ips = settings.forwarded_allow_ips
    app = create_app(service.settings, service)

    def cookie_from(client_host: str) -> str:
        client = TestClient(app, client=(client_host, 50000))
        response = client.get(
            f"/login?token={token}", headers={"X-Forwarded-Proto": "https"}, follow_redirects=False
        )
        return response.headers["set-cookie"].lower()

    assert "secure" in cookie_from("10.1.2.3")
    assert "secure" not in cookie_from("192.0.2.7")  # anyone else may not say it was https


@pytest.mark.parametrize("given", ["10.0.0.0/33", "proxy.example", "*"])
def test_a_trusted_proxy_that_is_no_address_is_one_line(given, capsys):
    code = main(["serve", "--trusted-proxy", given, "--data", "/nonexistent"])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "is not an IP address or network" in err
