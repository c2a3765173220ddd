"""LTI through the running service: launches, refusals, grades back, a platform that is down,
rosters and deep linking, against the simulated LMS on loopback."""

from __future__ import annotations

from html import unescape

import httpx
import jwt
import pytest
from sqlalchemy import select

import serve_class
from lti_flow import Browser, Stack, form_of, grade, stand_up
from qkv.cli import main
from qkv.serve.lti import extra, staff
from qkv.serve.lti.models import LtiSent, LtiUser
from qkv.serve.models import Session, Student

ON_TIME = "2026-12-15T20:00:00Z"
FIRST_LATE_WINDOW = "2026-12-16T12:00:00Z"  # 80 % credit
TITLE = "Query, Key, Value: attention on 'two plus three'"


@pytest.fixture
def stack(tmp_path):
    found = stand_up(tmp_path)
    yield found
    found.stop()


@pytest.fixture(params=["sqlite", "postgresql"])
def any_db_stack(request, tmp_path):
    """The stack on SQLite and on PostgreSQL (where QKV_TEST_POSTGRES_URL names a server)."""
    with serve_class.database(request.param) as url:
        found = stand_up(tmp_path, db=url)
        yield found
        found.stop()


def _users(stack: Stack) -> dict[str, tuple[str, str, bool]]:
    with stack.service.sessions() as db:
        return {u.sub: (u.kind, u.subject, u.added) for u in db.scalars(select(LtiUser))}


def test_the_tool_publishes_its_keys_and_a_canvas_developer_key(stack):
    keys = httpx.get(f"{stack.tool.url}/lti/jwks").json()["keys"]
    assert keys and all("kid" in k and "d" not in k for k in keys)
    config = httpx.get(f"{stack.tool.url}/lti/config").json()
    assert config["oidc_initiation_url"] == f"{stack.tool.url}/lti/login"
    assert config["target_link_uri"] == f"{stack.tool.url}/lti/launch"
    assert config["public_jwk_url"] == f"{stack.tool.url}/lti/jwks"
    assert "https://purl.imsglobal.org/spec/lti-ags/scope/score" in config["scopes"]
    placements = config["extensions"][0]["settings"]["placements"]
    assert {p["message_type"] for p in placements} == {"LtiDeepLinkingRequest"}


def test_a_learner_is_signed_in_as_the_roster_student_and_sent_to_the_assignment(stack):
    browser = Browser()
    page = browser.launch(stack, "lms-alice")
    assert page.url.path == "/a/attention"
    session = next(line for line in browser.set_cookie_lines if line.startswith("qkv_session="))
    assert {"httponly", "secure", "samesite=none"} <= {
        part.strip().lower() for part in session.split(";")
    }
    state = next(line for line in browser.set_cookie_lines if line.startswith("qkv_lti_"))
    assert "samesite=none" in state.lower() and "secure" in state.lower()
    assert _users(stack)["lms-alice"] == ("student", "alice", False)


def test_learners_are_matched_by_email_then_sourcedid_and_strangers_are_added(stack):
    Browser().launch(stack, "lms-bob")  # another email, but the roster's SIS id as sourcedid
    Browser().launch(stack, "lms-nina")  # on no roster
    users = _users(stack)
    assert users["lms-bob"] == ("student", "bob", False)
    kind, nina, added = users["lms-nina"]
    assert (kind, added) == ("student", True)
    with stack.service.sessions() as db:
        assert db.get(Student, nina).email == "nina@uni.example"
    Browser().launch(stack, "lms-nina")
    assert _users(stack)["lms-nina"] == ("student", nina, True)  # the same student next time


def test_an_instructor_becomes_staff(stack):
    page = Browser().launch(stack, "lms-tess")
    assert page.url.path == "/staff"
    kind, _, _ = _users(stack)["lms-tess"]
    assert kind == "staff"


def _until_launch(browser: Browser, stack: Stack, user: str = "lms-alice"):
    course = browser.go("GET", f"{stack.lms.url}/course?user={user}&link=link-attention")
    return browser.submit(course)  # the platform's page, about to post the id token


def test_a_launch_from_another_browser_than_the_login_is_refused(stack):
    at_platform = _until_launch(Browser(), stack)
    other = Browser()
    refused = other.submit(at_platform)
    assert refused.status_code == 403
    assert "third-party cookies" in refused.text and "new window" in refused.text


def test_a_replayed_launch_is_refused(stack):
    browser = Browser()
    at_platform = _until_launch(browser, stack)
    assert browser.submit(at_platform).url.path == "/a/attention"
    again = browser.submit(at_platform)
    assert again.status_code == 403 and "refused" in again.text


def test_a_token_replayed_into_a_new_login_is_refused_for_its_nonce(stack):
    browser = Browser()
    first = _until_launch(browser, stack)
    browser.submit(first)
    _, old = _form_fields(first)
    second = _until_launch(browser, stack)
    refused = browser.submit(second, id_token=old["id_token"])
    assert refused.status_code == 403 and "nonce" in refused.text


def _form_fields(page):
    return form_of(page.text)


def test_a_login_for_an_unregistered_deployment_is_refused(stack):
    browser = Browser()
    course = browser.go("GET", f"{stack.lms.url}/course?user=lms-alice&link=link-attention")
    refused = browser.submit(course, lti_deployment_id="not-registered")
    assert refused.status_code == 403 and "not-registered" in refused.text


def test_a_graded_hand_in_sends_the_final_grade_to_one_line_item(any_db_stack):
    stack = any_db_stack
    Browser().launch(stack, "lms-alice")
    Browser().launch(stack, "lms-bob")
    sub_alice = grade(stack, "alice", 96.0, submitted_at=ON_TIME)
    grade(stack, "bob", 100.0, submitted_at=FIRST_LATE_WINDOW)
    outcome = stack.runtime.round()
    assert (outcome.sent, outcome.waiting) == (2, 0)
    assert stack.lms.final_scores() == {TITLE: {"lms-alice": 96.0, "lms-bob": 80.0}}
    (item,) = stack.lms.lineitems.values()
    assert (item["resourceId"], item["scoreMaximum"]) == ("attention", 120)
    (posted,) = [s for s in next(iter(stack.lms.scores.values())) if s["userId"] == "lms-alice"]
    assert posted["scoreMaximum"] == 120
    assert (posted["activityProgress"], posted["gradingProgress"]) == ("Submitted", "FullyGraded")
    assert posted["comment"].endswith(f"/s/{sub_alice}") and posted["timestamp"].endswith("Z")
    assert stack.runtime.round().sent == 0  # nothing changed, nothing sent again
    grade(
        stack, "alice", 100.0, submitted_at=ON_TIME
    )  # a later hand-in counts (resubmissions: last)
    stack.runtime.round()
    assert stack.lms.final_scores()[TITLE]["lms-alice"] == 100.0
    assert len(stack.lms.lineitems) == 1


@pytest.mark.parametrize("failing", ["500", "timeout"])
def test_scores_owed_while_the_platform_is_down_arrive_once_it_answers(stack, failing):
    stack.runtime.services._timeout = 0.5
    for user in ("lms-alice", "lms-bob"):
        Browser().launch(stack, user)
    stack.lms.failing = failing
    grade(stack, "alice", 96.0, submitted_at=ON_TIME)
    grade(stack, "bob", 90.0, submitted_at=ON_TIME)
    down = stack.runtime.round()
    assert down.sent == 0 and down.waiting == 2
    grade(stack, "bob", 110.0, submitted_at=FIRST_LATE_WINDOW)  # a change while it is down: 88
    assert stack.runtime.round().sent == 0  # paused: the platform's backoff has not run out
    stack.lms.failing = ""
    back = stack.runtime.round(force=True)
    assert (back.sent, back.waiting) == (2, 0)
    assert stack.lms.final_scores() == {TITLE: {"lms-alice": 96.0, "lms-bob": 88.0}}
    assert len(stack.lms.lineitems) == 1
    with stack.service.sessions() as db:
        outcomes = [s.outcome for s in db.scalars(select(LtiSent).order_by(LtiSent.id))]
    assert outcomes[-2:] == ["204", "204"] and any(o != "204" for o in outcomes)


def test_sync_sends_what_is_owed_and_says_so(stack, capsys):
    Browser().launch(stack, "lms-alice")
    stack.lms.failing = "500"
    grade(stack, "alice", 96.0, submitted_at=ON_TIME)
    stack.runtime.round()
    capsys.readouterr()
    assert main(["serve", "lti", "sync", *stack.cli_options]) == 1
    assert "1 still owed" in capsys.readouterr().out
    stack.lms.failing = ""
    assert main(["serve", "lti", "sync", "--assignment", "attention", *stack.cli_options]) == 0
    assert "1 score(s) sent" in capsys.readouterr().out
    assert stack.lms.final_scores() == {TITLE: {"lms-alice": 96.0}}


def test_the_roster_command_reads_the_course_members_and_reports_strangers(stack, capsys):
    Browser().launch(stack, "lms-tess")  # no learner has launched yet
    Browser().launch(stack, "lms-alice")
    capsys.readouterr()
    assert main(["serve", "lti", "roster", "--assignment", "attention", *stack.cli_options]) == 0
    said = capsys.readouterr().out
    assert "3 learner(s)" in said and "added: nina" in said
    users = _users(stack)
    assert users["lms-bob"][1] == "bob" and users["lms-nina"][2]
    grade(stack, "bob", 100.0, submitted_at=ON_TIME)
    stack.runtime.round()
    assert stack.lms.final_scores()[TITLE] == {"lms-bob": 100.0}


def test_deep_linking_returns_a_signed_link_to_the_chosen_assignment(stack):
    browser = Browser()
    chooser = browser.launch(stack, "lms-tess", link="deep-link")
    assert TITLE in unescape(chooser.text)
    back = browser.submit(chooser, assignment="attention")
    assert back.status_code == 200
    _, fields = _form_fields(back)
    header = jwt.get_unverified_header(fields["JWT"])
    assert header["kid"] in {
        k["kid"] for k in httpx.get(f"{stack.tool.url}/lti/jwks").json()["keys"]
    }
    returned = browser.submit(back)
    assert "Added: " + TITLE in unescape(returned.text)
    (message,) = stack.lms.deep_link_returns
    (item,) = message["https://purl.imsglobal.org/spec/lti-dl/claim/content_items"]
    assert item["type"] == "ltiResourceLink" and item["custom"] == {"assignment": "attention"}
    assert item["lineItem"] == {"scoreMaximum": 120, "label": TITLE, "resourceId": "attention"}
    assert message["https://purl.imsglobal.org/spec/lti-dl/claim/data"] == "opaque-platform-data"


def test_a_learner_cannot_add_links(stack):
    stack.lms.users["lms-alice"].roles = [
        "http://purl.imsglobal.org/vocab/lis/v2/membership#Learner"
    ]
    refused = Browser().launch(stack, "lms-alice", link="deep-link")
    assert refused.status_code == 403 and "instructor" in refused.text


def test_the_staff_section_shows_what_was_sent_and_its_button_reads_the_roster(stack):
    teacher = Browser()
    teacher.launch(stack, "lms-tess")
    Browser().launch(stack, "lms-alice")
    grade(stack, "alice", 96.0, submitted_at=ON_TIME)
    stack.runtime.round()
    session_id = stack.service.signer.read(teacher.cookies[stack.tool.url[7:]]["qkv_session"])
    with stack.service.sessions() as db:
        csrf = db.get(Session, session_id).csrf
        shown = staff.section(db, csrf)
    assert "<td>alice</td><td>96 / 120</td><td>attention</td><td>204</td>" in shown
    staff_page = teacher.go("GET", f"{stack.tool.url}/staff")
    assert staff_page.status_code == 200 and shown in staff_page.text
    page = teacher.go(
        "POST", f"{stack.tool.url}/lti/roster", {"assignment": "attention", "csrf": csrf}
    )
    assert page.status_code == 200 and "3 learner(s) read from the LMS" in page.text
    with stack.service.sessions() as db:
        assert "Not on the roster, added from the LMS: nina (Nina New)" in staff.section(db, csrf)
    forged = teacher.go("POST", f"{stack.tool.url}/lti/roster", {"assignment": "attention"})
    assert forged.status_code == 403
    student = Browser()
    student.launch(stack, "lms-alice")
    assert (
        student.go("POST", f"{stack.tool.url}/lti/roster", {"assignment": "attention"}).status_code
        == 403
    )


def test_after_a_key_rotation_both_keys_are_published_and_the_new_one_signs(stack, capsys):
    before = {k["kid"] for k in httpx.get(f"{stack.tool.url}/lti/jwks").json()["keys"]}
    assert main(["serve", "lti", "rotate-key", *stack.cli_options]) == 0
    after = {k["kid"] for k in httpx.get(f"{stack.tool.url}/lti/jwks").json()["keys"]}
    assert before < after and len(after) == 2
    Browser().launch(stack, "lms-alice")
    grade(stack, "alice", 96.0, submitted_at=ON_TIME)
    assert stack.runtime.round().sent == 1  # the LMS took a client assertion signed by the new key


def test_without_the_extra_the_lti_commands_say_how_to_get_it(stack, capsys, monkeypatch):
    monkeypatch.setattr(extra, "PACKAGES", ("jwt", "a_package_that_is_not_installed"))
    assert main(["serve", "lti", "sync", *stack.cli_options]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [
        f"qkv: error: LTI needs the optional extra 'lti' (PyJWT and cryptography): {extra.INSTALL}"
    ]
