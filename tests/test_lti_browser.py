"""LTI in real Chromium (Selenium and Debian's chromedriver): the LMS shows the tool in a frame of its
course page, on another site (localhost beside 127.0.0.1), as Canvas and Moodle do.

This Chromium blocks third-party cookies unless told otherwise; a browser that allows them launches
in the frame, one that blocks them is offered the same launch in a new window.

Skipped only when Chromium or its driver is missing and QKV_REQUIRE_BROWSER is unset; CI sets it.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from html import unescape
from types import SimpleNamespace

import pytest

import chromium
import serve_class
import week_class
from lti_flow import Stack, grade, stand_up
from lti_platform import LEARNER, start
from qkv.cli import main
from serve_process import Server

chromium.skip_unless_installed()

from selenium import webdriver  # noqa: E402 - only once Chromium is known to be there
from selenium.webdriver.common.by import By  # noqa: E402 - only once Chromium is known to be there

TITLE = "Query, Key, Value: attention on 'two plus three'"
WAIT_S = 60  # a loaded machine grades slowly


def _chromium(profile: str, *, third_party_cookies: bool) -> webdriver.Chrome:
    allow = {"profile.cookie_controls_mode": 0, "profile.block_third_party_cookies": False}
    prefs = allow if third_party_cookies else None
    return chromium.start(profile, prefs=prefs, page_load_timeout=WAIT_S)


@pytest.fixture
def browser(tmp_path) -> Iterator[webdriver.Chrome]:
    driver = _chromium(str(tmp_path / "profile"), third_party_cookies=True)
    yield driver
    driver.quit()


@pytest.fixture
def strict_browser(tmp_path) -> Iterator[webdriver.Chrome]:
    driver = _chromium(str(tmp_path / "strict-profile"), third_party_cookies=False)
    yield driver
    driver.quit()


@pytest.fixture
def stack(tmp_path) -> Iterator[Stack]:
    found = stand_up(tmp_path, lms_host="localhost")
    yield found
    found.stop()


def _until(check: Callable[[], object], what: str) -> object:
    deadline = time.monotonic() + WAIT_S
    while time.monotonic() < deadline:
        if found := check():
            return found
        time.sleep(0.1)
    raise AssertionError(f"waited {WAIT_S} s for {what}")


def _open_in_frame(
    browser: webdriver.Chrome, stack: Stack | SimpleNamespace, user: str, link: str
) -> None:
    """The user opens the link on the LMS's course page; the tool loads in the page's frame."""
    browser.get(f"{stack.lms.url}/course?user={user}&link={link}&frame=1")
    browser.find_element(By.CSS_SELECTOR, "#go button").click()
    browser.switch_to.frame("tool")


def _frame_path(browser: webdriver.Chrome) -> str:
    return str(browser.execute_script("return location.host + location.pathname"))


def test_a_student_launched_in_the_lms_frame_is_signed_in_and_their_score_arrives(browser, stack):
    _open_in_frame(browser, stack, "lms-alice", "link-attention")
    tool_host = stack.tool.url.removeprefix("http://")
    _until(lambda: _frame_path(browser) == f"{tool_host}/a/attention", "the assignment's page")
    cookies = {c["name"]: c for c in browser.get_cookies()}
    session = cookies["qkv_session"]
    assert session["sameSite"] == "None" and session["secure"] and session["httpOnly"]
    submission = grade(stack, "alice", 96.0, submitted_at="2026-12-15T20:00:00Z")
    stack.runtime.start()  # the service's sender, as `qkv serve` runs it
    stack.runtime.wake()
    scores = _until(lambda: stack.lms.final_scores().get(TITLE), "the score at the LMS")
    assert scores == {"lms-alice": 96.0}
    (posted,) = next(iter(stack.lms.scores.values()))
    assert posted["comment"] == f"Feedback: {stack.tool.url}/s/{submission}"


def test_an_instructor_adds_an_assignment_by_deep_linking(browser, stack):
    _open_in_frame(browser, stack, "lms-tess", "deep-link")
    button = _until(
        lambda: browser.find_elements(By.CSS_SELECTOR, "button[name=assignment]"), "the choice"
    )
    assert TITLE in unescape(browser.page_source)
    button[0].click()  # type: ignore[index]
    added = _until(lambda: browser.find_elements(By.ID, "added"), "the LMS's confirmation")
    assert added[0].text == f"Added: {TITLE}"  # type: ignore[index]
    (message,) = stack.lms.deep_link_returns
    (item,) = message["https://purl.imsglobal.org/spec/lti-dl/claim/content_items"]
    assert item["lineItem"]["resourceId"] == "attention"


def test_where_third_party_cookies_are_blocked_the_launch_opens_in_a_new_window(
    strict_browser, stack
):
    _open_in_frame(strict_browser, stack, "lms-alice", "link-attention")
    link = _until(lambda: strict_browser.find_elements(By.ID, "new-window"), "the refusal")
    reason = strict_browser.find_element(By.ID, "reason").text
    assert "third-party cookies" in reason
    link[0].click()  # type: ignore[index]
    _until(lambda: len(strict_browser.window_handles) == 2, "the new window")
    strict_browser.switch_to.window(strict_browser.window_handles[1])
    tool_host = stack.tool.url.removeprefix("http://")
    _until(lambda: _frame_path(strict_browser) == f"{tool_host}/a/attention", "the launch")


def test_a_student_launched_from_the_lms_hands_in_and_the_final_grade_arrives(browser, tmp_path):
    """The whole flow against `qkv serve` itself, its grading processes and its sender."""
    settings = serve_class.settings(tmp_path)
    server = Server(settings.course, settings.data, jobs=1)
    lms, lms_served = start(server.url, host="localhost")
    lms.add_user("lms-alice", "Alice Archer", "alice@uni.example", LEARNER)
    lms.add_link("link-attention", {"assignment": "attention"})
    options = ["--course", str(settings.course), "--data", str(settings.data)]
    assert main(["serve", "lti", "add-platform", *lms.registration(), *options]) == 0
    (tmp_path / "attention.py").write_text(week_class.reference_source())
    server.start()
    try:
        _open_in_frame(browser, SimpleNamespace(lms=lms), "lms-alice", "link-attention")
        tool_host = server.url.removeprefix("http://")
        _until(lambda: _frame_path(browser) == f"{tool_host}/a/attention", "the assignment")
        upload = browser.find_element(By.CSS_SELECTOR, "input[type=file]")
        upload.send_keys(str(tmp_path / "attention.py"))
        browser.find_element(By.CSS_SELECTOR, "form.upload button").click()
        # Read in one script: the page replaces its rows as they change, which stales elements.
        rows = (
            "return [...document.querySelectorAll('#history tr[data-id]')]"
            ".map(r => [r.dataset.id, r.querySelector('td.status').textContent.trim()])"
        )
        graded = _until(
            lambda: [r for r in browser.execute_script(rows) if r[1] == "graded"],
            "the hand-in graded",
        )
        sub_id = graded[0][0]  # type: ignore[index]
        answer = browser.execute_async_script(
            "const done = arguments[arguments.length - 1];"
            "fetch(arguments[0], {credentials: 'include'}).then(r => r.json()).then(done);",
            f"/api/submissions/{sub_id}",
        )
        scores = _until(lambda: lms.final_scores().get(TITLE), "the score at the LMS")
        assert scores == {"lms-alice": answer["final"]} and answer["final"] > 0
        (posted,) = next(iter(lms.scores.values()))
        assert posted["scoreMaximum"] == answer["max_score"]
        assert posted["comment"] == f"Feedback: {server.url}/s/{sub_id}"
    finally:
        server.stop()
        lms_served.stop()
