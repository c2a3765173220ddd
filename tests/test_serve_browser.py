"""The service's pages in real Chromium (Selenium and Debian's chromium-driver), as people use them:
a student signs in by link, hands in, watches the status turn to a score, opens the feedback page;
staff see the class, download the gradebook and regrade; a second student sees none of it.

Skipped only when Chromium or its driver is missing and QKV_REQUIRE_BROWSER is unset; CI sets it.
"""

from __future__ import annotations

import os

import pytest

import chromium
import serve_class
import week_class
from qkv.serve.service import Service
from serve_process import Server

chromium.skip_unless_installed()

from selenium.common.exceptions import StaleElementReferenceException  # noqa: E402 - as below
from selenium.webdriver.common.by import By  # noqa: E402 - only once the browser is known to be there
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

WAIT_S = 60
READER_TZ = "Asia/Tokyo"  # UTC+9: a date shown in it cannot be mistaken for the UTC one


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    root = tmp_path_factory.mktemp("site")
    settings = serve_class.settings(root)
    tokens = serve_class.tokens(Service.open(settings))
    server = Server(settings.course, settings.data, jobs=1).start()
    (root / "attention.py").write_text(week_class.reference_source())
    try:
        yield server, tokens, root
    finally:
        server.stop()


@pytest.fixture
def browser(tmp_path):
    env = {**os.environ, "TZ": READER_TZ}
    driver = chromium.start(tmp_path / "profile", env=env, page_load_timeout=WAIT_S)
    try:
        yield driver
    finally:
        driver.quit()


def text(driver) -> str:
    return driver.find_element(By.TAG_NAME, "body").text


def until(driver, check):
    """Wait for check(driver); the pages update themselves in place, so an element read a moment
    ago may be gone: that is a reason to look again, not a failure."""
    wait = WebDriverWait(driver, WAIT_S, ignored_exceptions=(StaleElementReferenceException,))
    return wait.until(check)


# The class table, read in one step of the page's own script: its rows are replaced while it is
# polled, so reading them element by element may meet a row that has just gone.
CLASS_ROWS_JS = """
return Array.from(document.querySelectorAll('#class table tr'))
  .filter(r => r.querySelector('td'))
  .map(r => [r.querySelector('td').innerText.trim(), r.innerText]);
"""


def fetch(driver, url: str) -> tuple[int, str]:
    """What the page's own session gets for `url` (as a download link would)."""
    return tuple(
        driver.execute_async_script(
            "const done = arguments[arguments.length - 1];"
            "fetch(arguments[0], {credentials: 'same-origin'})"
            ".then(r => r.text().then(t => done([r.status, t])));",
            url,
        )
    )


def test_a_student_hands_in_and_watches_the_score_arrive_then_reads_the_feedback(site, browser):
    server, tokens, root = site
    browser.get(f"{server.url}/login?token={tokens['alice']}")
    assert browser.current_url == f"{server.url}/a/attention"
    assert "No hand-ins yet" in text(browser)
    due = browser.find_element(By.CSS_SELECTOR, "time").text
    assert "UTC" not in due and "16" in due  # 2026-12-15 23:59 UTC is the 16th in Tokyo
    browser.find_element(By.CSS_SELECTOR, "input[type=file]").send_keys(str(root / "attention.py"))
    browser.find_element(By.CSS_SELECTOR, "form.upload button").click()
    row = browser.find_element(By.CSS_SELECTOR, "#history tr[data-id]")
    submission_id = row.get_attribute("data-id")
    started = browser.execute_script("return performance.timeOrigin")
    until(browser, lambda d: d.find_element(By.CSS_SELECTOR, "#history td.status").text == "graded")
    # the page was not reloaded: the row turned to a score in place
    assert browser.execute_script("return performance.timeOrigin") == started
    assert browser.find_element(By.CSS_SELECTOR, "#history td.score").text == "100 / 120"
    browser.find_element(By.LINK_TEXT, "feedback").click()
    assert browser.current_url == f"{server.url}/s/{submission_id}"
    page = text(browser)
    assert "Feedback for alice" in page and "100" in page
    site_state["alice"] = submission_id


site_state: dict = {}


def test_staff_see_the_class_download_the_gradebook_and_regrade(site, browser):
    server, tokens, _ = site
    browser.get(f"{server.url}/login?token={tokens['ta']}")
    assert browser.current_url == f"{server.url}/staff"
    rows = dict(browser.execute_script(CLASS_ROWS_JS))
    assert {"alice", "bob", "dave"} <= set(rows)
    assert "100" in rows["alice"] and "missing" in rows["dave"]
    status, csv_text = fetch(browser, "/api/assignments/attention/gradebook.csv")
    assert status == 200
    assert csv_text.splitlines()[0].startswith("student,project,score,softmax,aggregate,attend")
    assert any(line.startswith("alice,20,20,20,20,20,0,100,") for line in csv_text.splitlines())
    status, canvas = fetch(browser, "/api/assignments/attention/canvas.csv")
    assert status == 200 and "Alice Archer" in canvas
    browser.find_element(By.XPATH, "//button[contains(., 'Regrade everyone')]").click()
    assert browser.current_url == f"{server.url}/staff"
    until(browser, lambda d: "1 hand-ins queued again" in text(d))


def test_a_second_student_sees_none_of_the_firsts_pages(site, browser):
    server, tokens, _ = site
    first = site_state.get("alice")
    assert first, "runs after the first student's hand-in"
    browser.get(f"{server.url}/login?token={tokens['bob']}")
    assert "No hand-ins yet" in text(browser)
    browser.get(f"{server.url}/s/{first}")
    assert "Not found" in text(browser) and "alice" not in text(browser)
    assert fetch(browser, f"/api/submissions/{first}")[0] == 404
    browser.get(f"{server.url}/staff")
    assert "Staff only" in text(browser)
    assert fetch(browser, "/api/assignments/attention/gradebook.csv")[0] == 403
