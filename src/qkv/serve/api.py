"""The JSON API: hand in, read a hand-in, and (staff) the gradebook, LMS files and regrades.

Every answer is JSON; every error one line of it, `{"error": ...}`. A hand-in of another student is
not found (404), whatever its id; staff URLs refuse a student (403).
"""

from __future__ import annotations

import time

from sqlalchemy import select
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Route

from qkv.errors import QkvError
from qkv.serve import adjust, auth, handin, views
from qkv.serve import gradebook as class_gradebook
from qkv.serve.models import Audit, Submission
from qkv.serve.queue import QUEUED, requeue
from qkv.serve.responses import error
from qkv.serve.service import Service

FORM_SLACK = 64 * 1024  # multipart boundaries and headers beyond the files themselves
DRAIN_BYTES = 256 << 20  # of an upload over the limit, at most this much is read and dropped


def _service(request: Request) -> Service:
    return request.app.state.service


def person_of(request: Request):
    service = _service(request)
    with service.sessions() as db:
        return auth.who(db, request, service.signer)


async def read_files(request: Request, limit: int) -> tuple[list[handin.Upload], str | None]:
    """The multipart `files` fields, and the form's csrf field; Refused(413) past `limit` bytes."""
    body, seen = bytearray(), 0
    async for chunk in request.stream():
        seen += len(chunk)
        if seen <= limit + FORM_SLACK:
            body += chunk
        elif seen > DRAIN_BYTES:
            break  # read no further: the connection is closed after the answer
    if seen > limit + FORM_SLACK:
        # Read (and dropped) to the end, so the client is sending no more when the answer comes.
        raise handin.Refused(413, f"the hand-in is over {limit // 1024} KiB")
    request._body = bytes(body)  # the form parser reads the body from here
    try:
        form = await request.form(max_files=64, max_fields=64)
    except Exception as e:  # a malformed multipart body
        raise handin.Refused(422, f"not a multipart form: {type(e).__name__}") from None
    uploads = []
    for item in form.getlist("files"):
        if isinstance(item, str) or not hasattr(item, "read"):
            continue
        uploads.append(handin.Upload(item.filename or "", await item.read()))
    csrf = form.get("csrf")
    await form.close()
    return uploads, csrf if isinstance(csrf, str) else None


async def hand_in(request: Request, person, session, assignment_id: str) -> str:
    """Take a hand-in from a request (API or page form); its id, or Refused.

    Args:
        request: the API or page request with its multipart files.
        person: who hands in (a student).
        session: their session when signed in by cookie (its CSRF token is checked), else None.
        assignment_id: the assignment handed in to.
    """
    service = _service(request)
    handin.assignment_of(service, assignment_id)
    if person.is_staff:
        raise handin.Refused(403, "staff tokens do not hand in; use a student's")
    uploads, csrf = await read_files(request, handin.limit_bytes(service))
    if not auth.csrf_ok(session, csrf):
        raise handin.Refused(403, "the form is out of date (CSRF token): reload the page")
    return handin.accept(service, person.id, assignment_id, uploads)


async def submit(request: Request) -> Response:
    person, session = person_of(request)
    if person is None:
        return error(401, "no valid token: send Authorization: Bearer TOKEN")
    try:
        submission_id = await hand_in(request, person, session, request.path_params["assignment"])
    except handin.Refused as e:
        return error(e.status, e.message, **e.headers)
    return JSONResponse(
        {"id": submission_id, "status": QUEUED, "url": f"/api/submissions/{submission_id}"},
        status_code=202,
    )


def own_submission(request: Request, submission_id: str):
    """(person, row) when the requester may see the hand-in; an error response otherwise."""
    person, _ = person_of(request)
    if person is None:
        return None, error(401, "no valid token: send Authorization: Bearer TOKEN")
    with _service(request).sessions() as db:
        row = db.get(Submission, submission_id[:64])
    if row is None or not views.visible_to(person, row):
        return None, error(404, "no such submission")
    return (person, row), None


async def submission(request: Request) -> Response:
    found, problem = own_submission(request, request.path_params["id"])
    if problem is not None:
        return problem
    person, row = found
    return JSONResponse(views.as_json(_service(request), person, row))


async def history(request: Request) -> Response:
    """The requester's own hand-ins to an assignment, newest first (the pages poll this)."""
    person, _ = person_of(request)
    if person is None:
        return error(401, "no valid token: send Authorization: Bearer TOKEN")
    service = _service(request)
    try:
        assignment = handin.assignment_of(service, request.path_params["assignment"])
    except handin.Refused as e:
        return error(e.status, e.message)
    with service.sessions() as db:
        rows = views.hand_ins(db, person.id, assignment.id)
    return JSONResponse([views.as_json(service, person, r) for r in reversed(rows)])


def staff_only(request: Request):
    """(person, session, assignment) for a staff request; an error response otherwise."""
    person, session = person_of(request)
    if person is None:
        return None, error(401, "no valid token: send Authorization: Bearer TOKEN")
    if not person.is_staff:
        return None, error(403, "staff only")
    try:
        assignment = handin.assignment_of(_service(request), request.path_params["assignment"])
    except handin.Refused as e:
        return None, error(e.status, e.message)
    return (person, session, assignment), None


def _download(text: str, name: str) -> Response:
    return PlainTextResponse(
        text,
        media_type="text/csv; charset=utf-8",
        headers={"Content-Disposition": f'attachment; filename="{name}"'},
    )


async def gradebook_csv(request: Request) -> Response:
    found, problem = staff_only(request)
    if problem is not None:
        return problem
    service, assignment = _service(request), found[2]
    with service.sessions() as db:
        text = class_gradebook.csv_text(service, db, assignment)
    return _download(text, f"{assignment.id}-gradebook.csv")


async def items_csv(request: Request) -> Response:
    found, problem = staff_only(request)
    if problem is not None:
        return problem
    service, assignment = _service(request), found[2]
    with service.sessions() as db:
        text = class_gradebook.items_text(service, db, assignment)
    return _download(text, f"{assignment.id}-items.csv")


async def lms_csv(request: Request) -> Response:
    found, problem = staff_only(request)
    if problem is not None:
        return problem
    service, assignment, fmt = _service(request), found[2], request.path_params["fmt"]
    if fmt not in ("canvas", "moodle"):
        return error(404, f"no export '{fmt}': canvas or moodle")
    with service.sessions() as db:
        try:
            text = class_gradebook.lms_text(service, db, assignment, fmt)
        except QkvError as e:
            return error(409, str(e))
    return _download(text, f"{assignment.id}-{fmt}.csv")


def regrade_all(service: Service, actor: str, assignment) -> int:
    """Queue every hand-in of the assignment again (after a course change); kept in the audit log.

    Args:
        service: the running service (qkv.serve.service.Service).
        actor: who asked (a staff name).
        assignment: the course's assignment.
    """
    with service.sessions.begin() as db:
        ids = list(db.scalars(select(Submission.id).where(Submission.assignment == assignment.id)))
        for submission_id in ids:
            requeue(db, submission_id)
        db.add(
            Audit(
                at=time.time(),
                actor=actor,
                action="regrade",
                detail=f"{assignment.id}: {len(ids)} hand-ins queued again",
            )
        )
    service.wake()
    return len(ids)


async def regrade(request: Request) -> Response:
    found, problem = staff_only(request)
    if problem is not None:
        return problem
    person, session, assignment = found
    form = await request.form()
    if not auth.csrf_ok(session, form.get("csrf")):
        return error(403, "the form is out of date (CSRF token): reload the page")
    count = regrade_all(_service(request), person.id, assignment)
    return JSONResponse({"queued": count}, status_code=202)


async def regrade_one(request: Request) -> Response:
    """Grade one hand-in again (staff): a `failed` one is retried so."""
    person, _ = person_of(request)
    if person is None:
        return error(401, "no valid token: send Authorization: Bearer TOKEN")
    if not person.is_staff:
        return error(403, "staff only")
    service = _service(request)
    with service.sessions.begin() as db:
        row = db.get(Submission, request.path_params["id"][:64])
        if row is None:
            return error(404, "no such submission")
        requeue(db, row.id)
        db.add(
            Audit(
                at=time.time(),
                actor=person.id,
                action="regrade",
                detail=f"{row.assignment}: {row.student}'s hand-in {row.id} queued again",
            )
        )
    service.wake()
    return JSONResponse({"queued": 1}, status_code=202)


async def override(request: Request) -> Response:
    """Adjust a student's part (staff): {student, part, points, comment}, as JSON or a form."""
    found, problem = staff_only(request)
    if problem is not None:
        return problem
    person, session, assignment = found
    if request.headers.get("content-type", "").startswith("application/json"):
        try:
            fields = await request.json()
        except ValueError:
            return error(422, "not JSON")
        if not isinstance(fields, dict):
            return error(422, "expected an object {student, part, points, comment}")
    else:
        fields = dict(await request.form())
        if not auth.csrf_ok(session, fields.get("csrf")):
            return error(403, "the form is out of date (CSRF token): reload the page")
    values = [str(fields.get(k, "")) for k in ("student", "part", "points", "comment")]
    try:
        count = adjust.add(_service(request), person.id, assignment, *values)
    except QkvError as e:
        return error(422, str(e))
    return JSONResponse({"queued": count}, status_code=202)


async def assignments(request: Request) -> Response:
    """The course's assignments and the code files each takes (`qkv submit` picks by them)."""
    from qkv.course import layout  # noqa: PLC0415 - names only

    person, _ = person_of(request)
    if person is None:
        return error(401, "no valid token: send Authorization: Bearer TOKEN")
    return JSONResponse(
        [
            {"id": a.id, "title": a.title, "files": list(layout.submission_files(a))}
            for a in _service(request).course.assignments
        ]
    )


ROUTES = [
    Route("/api/assignments", assignments),
    Route("/api/assignments/{assignment}/submissions", submit, methods=["POST"]),
    Route("/api/assignments/{assignment}/submissions", history, methods=["GET"]),
    Route("/api/submissions/{id}", submission),
    Route("/api/submissions/{id}/regrade", regrade_one, methods=["POST"]),
    Route("/api/assignments/{assignment}/gradebook.csv", gradebook_csv),
    Route("/api/assignments/{assignment}/items.csv", items_csv),
    Route("/api/assignments/{assignment}/{fmt}.csv", lms_csv),
    Route("/api/assignments/{assignment}/regrade", regrade, methods=["POST"]),
    Route("/api/assignments/{assignment}/overrides", override, methods=["POST"]),
]
