"""Headless Chromium for the browser tests: Debian's chromium and chromedriver, driven by Selenium.

A test module calls skip_unless_installed() before it imports selenium, so that a machine without
the browser skips it; CI sets QKV_REQUIRE_BROWSER, and then a missing browser is a failure.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

try:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
except ImportError:  # the test extra installs it
    webdriver = None

REQUIRED = bool(os.environ.get("QKV_REQUIRE_BROWSER"))
CHROMIUM = next(filter(None, map(shutil.which, ("chromium", "chromium-browser"))), None)
DRIVER = shutil.which("chromedriver")
MISSING = [
    what
    for what, found in (("chromium", CHROMIUM), ("chromedriver", DRIVER), ("selenium", webdriver))
    if not found
]
# Headless, offline and quiet: nothing starts that could reach the network or slow a loaded CI box.
FLAGS = (
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
)


def skip_unless_installed() -> None:
    """Skip the calling test module when the browser is missing, unless it is required."""
    if MISSING and not REQUIRED:
        pytest.skip(
            f"{', '.join(MISSING)} not installed (set QKV_REQUIRE_BROWSER=1 to make this a failure)",
            allow_module_level=True,
        )


def start(
    profile: Path | str,
    *,
    env: dict[str, str] | None = None,
    prefs: dict | None = None,
    logs: bool = False,
    page_load_timeout: float | None = None,
) -> webdriver.Chrome:
    """A new headless Chromium with its own profile folder.

    Args:
        profile: an empty folder for the browser's profile (cookies, storage).
        env: the environment of chromedriver and so of the browser (e.g. its TZ); default ours.
        prefs: Chromium preferences to set, e.g. which cookies it accepts.
        logs: keep the console and the network log, for driver.get_log("browser" or "performance").
        page_load_timeout: seconds a page may take to load before driver.get raises.

    Returns:
        The driver; the caller quits it.
    """
    assert not MISSING, f"QKV_REQUIRE_BROWSER is set but {', '.join(MISSING)} is missing"
    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for flag in (*FLAGS, f"--user-data-dir={profile}"):
        options.add_argument(flag)
    if prefs:
        options.add_experimental_option("prefs", prefs)
    if logs:
        options.set_capability("goog:loggingPrefs", {"browser": "ALL", "performance": "ALL"})
    service = Service(executable_path=str(DRIVER), env=env)
    driver = webdriver.Chrome(options=options, service=service)
    if page_load_timeout is not None:
        driver.set_page_load_timeout(page_load_timeout)
    return driver
