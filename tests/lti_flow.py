"""The tool served on loopback beside a simulated LMS, and a browser-like client for the launch.

The client keeps cookies by hand: the launch's cookies are `Secure`, which an HTTP client's jar
sends only over https, while a browser (and Chromium in the browser tests) sends them to loopback.
"""

from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass, field
from html import unescape
from pathlib import Path

import httpx

import serve_class
from lti_platform import INSTRUCTOR, LEARNER, Served, SimulatedPlatform, start
from qkv.cli import main
from qkv.results.records import StudentResult, TestResult
from qkv.serve.app import create_app
from qkv.serve.lti.runtime import Runtime
from qkv.serve.models import Submission
from qkv.serve.service import Service


@dataclass
class Stack:
    service: Service
    tool: Served
    lms: SimulatedPlatform
    lms_served: Served
    runtime: Runtime
    cli_options: list[str]

    def stop(self) -> None:
        self.runtime.stop()
        self.lms_served.stop()
        self.tool.stop()


def stand_up(root: Path, lms_host: str = "127.0.0.1", db: str | None = None) -> Stack:
    """The week's class served with LTI, an LMS that knows alice, a newcomer and a teacher."""
    settings = serve_class.settings(root, db=db)
    service = Service.open(settings)
    app = create_app(settings, service)
    tool = Served(app)
    lms, lms_served = start(tool.url, host=lms_host)
    lms.add_user("lms-alice", "Alice Archer", "alice@uni.example", LEARNER)
    lms.add_user("lms-bob", "Bob Baker", "other@mail.example", LEARNER, sourcedid="S002")
    lms.add_user("lms-nina", "Nina New", "nina@uni.example", LEARNER)
    lms.add_user("lms-tess", "Tess Teach", "tess@uni.example", INSTRUCTOR)
    lms.add_link("link-attention", {"assignment": "attention"})
    options = ["--course", str(settings.course), "--data", str(settings.data)]
    options += ["--db", db] if db else []
    assert main(["serve", "lti", "add-platform", *lms.registration(), *options]) == 0
    return Stack(service, tool, lms, lms_served, app.state.lti, options)


def form_of(page: str) -> tuple[str, dict[str, str]]:
    action = re.search(r'<form[^>]*action="([^"]+)"', page)
    assert action, page
    fields = re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)"', page)
    return unescape(action.group(1)), {unescape(k): unescape(v) for k, v in fields}


@dataclass
class Browser:
    """Follows forms and redirects the way a browser would, keeping every cookie it is given."""

    cookies: dict[str, dict[str, str]] = field(default_factory=dict)  # host -> name -> value
    set_cookie_lines: list[str] = field(default_factory=list)

    def _send(self, method: str, url: str, data: dict[str, str] | None = None) -> httpx.Response:
        host = httpx.URL(url).netloc.decode()
        jar = self.cookies.setdefault(host, {})
        headers = {"Cookie": "; ".join(f"{k}={v}" for k, v in jar.items())} if jar else {}
        response = httpx.request(method, url, data=data, headers=headers, timeout=30)
        for line in response.headers.get_list("set-cookie"):
            self.set_cookie_lines.append(line)
            name, _, rest = line.partition("=")
            value = rest.split(";", 1)[0]
            if "max-age=0" in line.lower() or "expires=thu, 01 jan 1970" in line.lower():
                jar.pop(name, None)
            else:
                jar[name] = value.strip('"')
        return response

    def go(self, method: str, url: str, data: dict[str, str] | None = None) -> httpx.Response:
        response = self._send(method, url, data)
        while response.status_code in (302, 303):
            response = self._send("GET", str(response.url.join(response.headers["location"])))
        return response

    def submit(self, page: httpx.Response, **overrides: str) -> httpx.Response:
        action, fields = form_of(page.text)
        return self.go("POST", str(page.url.join(action)), {**fields, **overrides})

    def launch(self, stack: Stack, user: str, link: str = "link-attention") -> httpx.Response:
        """Opens `link` as `user` from the LMS's course page: login, the platform, the launch."""
        course = self.go("GET", f"{stack.lms.url}/course?user={user}&link={link}")
        at_platform = self.submit(course)  # the login, redirected to the platform's auth page
        return self.submit(at_platform)  # the platform posts the id token into the tool


def _result(student: str, score: float, submitted_at: str) -> dict:
    """A result as the grader writes one: one check on each part, the points on the first."""
    parts = ["project", "score", "softmax", "aggregate", "attend"]
    tests = [
        TestResult(f"{p}: values", p, score if i == 0 else 0.0, 120.0 if i == 0 else 0.0, "passed")
        for i, p in enumerate(parts)
    ]
    result = StudentResult(student, tuple(tests), (*parts, "quiz"), "graded", "", {}, {})
    return {**result.to_json(), "extra_data": {**result.to_json()["extra_data"],
                                                "submitted_at": submitted_at}}  # fmt: skip


def grade(stack: Stack, student: str, score: float, *, submitted_at: str) -> str:
    """A hand-in of `student` graded as the service's grader leaves one; its id."""
    sub_id = f"sub-{student}-{time.monotonic_ns()}"
    with stack.service.sessions.begin() as db:
        db.add(
            Submission(
                id=sub_id,
                student=student,
                assignment="attention",
                created=time.time(),
                submitted_at=submitted_at,
                status="graded",
                score=score,
                result=json.dumps(_result(student, score, submitted_at)),
                graded=time.time(),
                gradings=1,
            )
        )
    return sub_id
