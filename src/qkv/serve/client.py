"""`qkv submit FILE... --server URL --token TOKEN`: hand in to a `qkv serve` and print the score.

The standard library only (urllib), so a student's machine needs nothing beyond the kit; the same
code is what the released notebook's `submit()` carries.
"""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request
import uuid
from pathlib import Path

from qkv.errors import QkvError

WAIT_S = 600.0
POLL_S = 0.5


def _request(url: str, token: str, data: bytes | None = None, content_type: str | None = None):
    headers = {"Authorization": f"Bearer {token}", "Accept": "application/json"}
    if content_type:
        headers["Content-Type"] = content_type
    request = urllib.request.Request(url, data=data, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return json.loads(response.read().decode("utf-8"))
    except urllib.error.HTTPError as e:
        try:
            message = json.loads(e.read().decode("utf-8"))["error"]
        except Exception:
            message = e.reason
        raise QkvError(f"{url}: {e.code} {message}") from None
    except (urllib.error.URLError, OSError) as e:
        raise QkvError(f"{url}: cannot reach the server ({getattr(e, 'reason', e)})") from None


def multipart(files: list[Path]) -> tuple[bytes, str]:
    """A multipart body with each file as a `files` field, and its content type."""
    named = []
    for path in files:
        try:
            named.append((path.name, path.read_bytes()))
        except OSError as e:
            raise QkvError(f"{path}: {e.strerror}") from None
    return multipart_bytes(named)


def multipart_bytes(named: list[tuple[str, bytes]]) -> tuple[bytes, str]:
    boundary = uuid.uuid4().hex
    body = bytearray()
    for name, data in named:
        name = name.replace('"', "_").replace("\r", "_").replace("\n", "_")
        body += (
            f'--{boundary}\r\nContent-Disposition: form-data; name="files"; '
            f'filename="{name}"\r\nContent-Type: application/octet-stream\r\n\r\n'
        ).encode()
        body += data + b"\r\n"
    body += f"--{boundary}--\r\n".encode()
    return bytes(body), f"multipart/form-data; boundary={boundary}"


def assignment_for(server: str, token: str, files: list[Path]) -> str:
    """The assignment whose submission files these are, as the server names them.

    Args:
        server: the service's address.
        token: the student's sign-in token.
        files: the files handed in.
    """
    names = {p.name for p in files}
    listed = _request(f"{server}/api/assignments", token)
    matches = [a["id"] for a in listed if names & set(a["files"])]
    if len(matches) != 1:
        raise QkvError(
            "which assignment? add --assignment ID (" + ", ".join(a["id"] for a in listed) + ")"
        )
    return matches[0]


def submit(
    files: list[Path], *, server: str, token: str, assignment: str | None, wait: bool = True
):
    """Hand in and yield the lines to print: the hand-in, then (waiting) its score and link.

    Args:
        files: the files to hand in.
        server: the service's address.
        token: the student's sign-in token.
        assignment: the assignment id, or None to pick it by the files' names.
        wait: wait for the score (else print the link at once).
    """
    server = server.rstrip("/")
    assignment = assignment or assignment_for(server, token, files)
    body, content_type = multipart(files)
    accepted = _request(
        f"{server}/api/assignments/{assignment}/submissions", token, body, content_type
    )
    yield f"handed in {', '.join(p.name for p in files)} to {assignment}: {accepted['status']}"
    url = f"{server}{accepted['url']}"
    data = accepted
    deadline = time.monotonic() + (WAIT_S if wait else 0)
    while data["status"] in ("queued", "grading") and time.monotonic() < deadline:
        time.sleep(POLL_S)
        data = _request(url, token)
    if data["status"] == "graded":
        late = f" ({data['credit']:g} % credit: {data['final']:g})" if data["credit"] != 100 else ""
        yield f"score: {data['score']:g} / {data['max_score']:g}{late}"
    elif data["status"] == "failed":
        yield f"not graded: {data.get('error') or 'the grader failed'}; your instructor can regrade it"
    else:
        yield f"status: {data['status']} (see the link for the score)"
    yield f"feedback: {server}/s/{accepted['id']} (sign in with your link first)"
