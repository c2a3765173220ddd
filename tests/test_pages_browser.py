"""The feedback pages and the class report in a real browser: headless Chromium, from disk, offline.

Chromium is driven over the DevTools protocol on a pipe (--remote-debugging-pipe: commands in on
fd 3, replies out on fd 4, NUL-separated JSON), so no port is opened and nothing else is needed.
Skipped only when Chromium is missing and QKV_REQUIRE_BROWSER is unset; CI sets it.
"""

from __future__ import annotations

import base64
import fcntl
import io
import json
import os
import select
import shutil
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote, urlparse

import pytest
from PIL import Image

from qkv.reports import outputs
from sample_class import write_class

CHROMIUM = next(filter(None, map(shutil.which, ("chromium", "chromium-browser"))), None)
if CHROMIUM is None and not os.environ.get("QKV_REQUIRE_BROWSER"):
    pytest.skip(
        "chromium is not installed (set QKV_REQUIRE_BROWSER=1 to make this a failure)",
        allow_module_level=True,
    )

FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-quic",
    "--disable-dev-shm-usage",
    "--remote-debugging-pipe",
    "--window-size=1200,900",
)
TIMEOUT_S = 30


class Chromium:
    """Just enough of the DevTools protocol: send a command, wait for its reply, keep the events."""

    def __init__(self, profile: Path):
        assert CHROMIUM, "QKV_REQUIRE_BROWSER is set but chromium is not installed"
        to_child, self._cmd = os.pipe()
        self._res, from_child = os.pipe()

        def pipes_on_3_and_4():  # runs in the child, between fork and exec
            a = fcntl.fcntl(
                to_child, fcntl.F_DUPFD, 10
            )  # out of the way first: the pair may sit on 3/4
            b = fcntl.fcntl(from_child, fcntl.F_DUPFD, 10)
            os.dup2(a, 3)
            os.dup2(b, 4)

        # The two pipes above took the lowest free descriptors, so 3 and 4 are in use in this process
        # and subprocess's own error pipe cannot land there; pass_fds keeps 3 and 4 open in the child.
        self.log = open(profile.parent / "chromium.log", "wb")  # noqa: SIM115 - closed with the browser
        self.proc = subprocess.Popen(
            [CHROMIUM, *FLAGS, f"--user-data-dir={profile}", "about:blank"],
            stdin=subprocess.DEVNULL,
            stdout=self.log,
            stderr=self.log,
            preexec_fn=pipes_on_3_and_4,
            pass_fds=(3, 4),
        )
        os.close(to_child)
        os.close(from_child)
        self._buf = b""
        self._next_id = 0
        self.events: list[dict] = []

    def send(self, method: str, params: dict | None = None, session: str | None = None) -> dict:
        self._next_id += 1
        message = {"id": self._next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        os.write(self._cmd, json.dumps(message).encode() + b"\0")
        reply = self._wait(lambda m: m.get("id") == self._next_id)
        if "error" in reply:
            raise RuntimeError(f"{method}: {reply['error']}")
        return reply["result"]

    def wait_event(self, method: str, session: str, since: int) -> dict:
        """The first such event after self.events[since], including any that came in with a reply."""

        def match(m):
            return m.get("method") == method and m.get("sessionId") == session

        return next((e for e in self.events[since:] if match(e)), None) or self._wait(match)

    def _wait(self, wanted) -> dict:
        deadline = time.monotonic() + TIMEOUT_S
        while True:
            while b"\0" in self._buf:
                raw, self._buf = self._buf.split(b"\0", 1)
                message = json.loads(raw)
                if "method" in message:
                    self.events.append(message)
                if wanted(message):
                    return message
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self._res], [], [], left)[0]:
                raise TimeoutError("chromium did not answer in time")
            chunk = os.read(self._res, 1 << 20)
            if not chunk:
                raise RuntimeError("chromium exited; see chromium.log next to its profile")
            self._buf += chunk

    def close(self) -> None:
        try:
            self.send("Browser.close")
        except (RuntimeError, TimeoutError, OSError):
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        os.close(self._cmd)
        os.close(self._res)
        self.log.close()


@dataclass
class Visit:
    errors: list[str]  # console errors, uncaught exceptions, browser log errors (CSP included)
    requests: list[str]  # every URL the page asked for
    images: list[dict]  # per <img>: complete, naturalWidth, decoded
    links: list[str]  # resolved href of every <a>
    screenshot: bytes


IMAGES_JS = """Promise.all(Array.from(document.images, img =>
    img.decode().then(() => true, () => false).then(decoded =>
        ({src: img.src.slice(0, 40), complete: img.complete, naturalWidth: img.naturalWidth, decoded}))))"""


def visit(browser: Chromium, path: Path) -> Visit:
    target = browser.send("Target.createTarget", {"url": "about:blank"})["targetId"]
    session = browser.send("Target.attachToTarget", {"targetId": target, "flatten": True})[
        "sessionId"
    ]
    for domain in ("Page", "Runtime", "Log", "Network"):
        browser.send(f"{domain}.enable", session=session)
    first = len(browser.events)
    browser.send("Page.navigate", {"url": path.as_uri()}, session=session)
    browser.wait_event("Page.loadEventFired", session, since=first)
    images = browser.send(
        "Runtime.evaluate",
        {"expression": IMAGES_JS, "awaitPromise": True, "returnByValue": True},
        session=session,
    )["result"]["value"]
    links = browser.send(
        "Runtime.evaluate",
        {"expression": "Array.from(document.links, a => a.href)", "returnByValue": True},
        session=session,
    )["result"]["value"]
    shot = browser.send("Page.captureScreenshot", {"format": "png"}, session=session)["data"]
    events = [e for e in browser.events[first:] if e.get("sessionId") == session]
    browser.send("Target.closeTarget", {"targetId": target})
    errors = []
    for e in events:
        p = e["params"]
        if e["method"] == "Runtime.exceptionThrown":
            details = p["exceptionDetails"]
            errors.append(
                details.get("exception", {}).get("description") or details.get("text", "exception")
            )
        elif e["method"] == "Runtime.consoleAPICalled" and p["type"] in ("error", "assert"):
            errors.append(
                " ".join(str(a.get("value", a.get("description", ""))) for a in p["args"])
            )
        elif e["method"] == "Log.entryAdded" and p["entry"]["level"] == "error":
            errors.append(p["entry"]["text"])
    requests = [
        e["params"]["request"]["url"] for e in events if e["method"] == "Network.requestWillBeSent"
    ]
    return Visit(errors, requests, images, links, base64.b64decode(shot))


@pytest.fixture(scope="module")
def visits(tmp_path_factory, course, assignment, ref):
    """Every page of a small graded class, each loaded once from disk."""
    out = tmp_path_factory.mktemp("graded")
    students = write_class(out, assignment, ref)
    outputs.write(course, assignment, out, students)
    pages = [out / "report.html", *sorted((out / "feedback").glob("*.html"))]
    browser = Chromium(tmp_path_factory.mktemp("browser") / "profile")
    try:
        yield {p.relative_to(out).as_posix(): visit(browser, p) for p in pages}
    finally:
        browser.close()


def test_every_page_loads_from_disk_without_console_errors(visits):
    assert len(visits) == 6
    assert {name: v.errors for name, v in visits.items() if v.errors} == {}


def test_every_page_asks_for_nothing_but_itself(visits):
    for name, v in visits.items():
        assert [u for u in v.requests if not u.startswith(("file:", "data:"))] == [], name


def test_every_image_decodes(visits):
    for name, v in visits.items():
        assert v.images, f"{name} has no images"
        for image in v.images:
            assert image["complete"] and image["naturalWidth"] > 0 and image["decoded"], (
                name,
                image,
            )


def test_feedback_pages_with_a_matrix_show_two_heatmaps_and_the_report_one_histogram(visits):
    counts = {name: len(v.images) for name, v in visits.items()}
    assert counts["report.html"] == 1
    assert counts["feedback/alice.html"] == counts["feedback/bob.html"] == 2
    assert counts["feedback/carol.html"] == counts["feedback/dave.html"] == 1  # the reference only


def test_screenshots_are_not_blank(visits):
    for name, v in visits.items():
        shot = Image.open(io.BytesIO(v.screenshot)).convert("RGB")
        assert shot.width > 0 and len(shot.getcolors(maxcolors=1 << 24)) > 1, f"{name} looks blank"


def test_report_links_open_every_feedback_page_even_for_odd_ids(visits):
    links = [Path(unquote(urlparse(u).path)) for u in visits["report.html"].links]
    pages = {p.name for p in links}
    assert {f"{s}.html" for s in ("alice", "bob", "carol", "dave", "mallory<b>&'")} <= pages
    assert all(p.is_file() for p in links)
