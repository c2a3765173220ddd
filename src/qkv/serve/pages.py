"""The server-rendered pages: sign-in landing, an assignment's hand-in page, feedback, staff.

Every page works without JavaScript (forms post, a page being graded refreshes itself); with it,
live.js shows dates in the reader's time zone and refreshes what is still being graded.
"""

from __future__ import annotations

from pathlib import Path

from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import Route

from qkv.course import deadlines
from qkv.reports.pages import CSP, esc, page_start
from qkv.serve import api, auth, handin, views
from qkv.serve.models import Submission
from qkv.serve.service import Service

SERVE_CSP = (
    "default-src 'none'; img-src data:; style-src 'unsafe-inline'; script-src 'self'; "
    "connect-src 'self'; form-action 'self'; frame-ancestors 'none'"
)
LIVE_JS = (Path(__file__).parent / "live.js").read_text(encoding="utf-8")
EXTRA_CSS = (
    "<style>nav{display:flex;gap:1rem;justify-content:flex-end;font-size:.9rem}"
    ".error{border-left:4px solid var(--bad);background:#fce8e6;padding:.5rem .8rem}"
    "form.upload{border:1px solid var(--line);padding:1rem;margin:1rem 0}</style>"
)


def when(iso: str | None) -> str:
    """A date for the page: UTC without JavaScript, the reader's own time zone with it."""
    if not iso:
        return ""
    text = iso.replace("T", " ").replace("Z", " UTC").replace("+00:00", " UTC")
    return f'<time datetime="{esc(iso)}">{esc(text)}</time>'


def document(title: str, body: str, person=None, *, live: bool = False, status: int = 200):
    """A page of the service: its CSP, its header, live.js.

    Args:
        title: the page's title, plain text.
        body: the page's HTML.
        person: who is signed in (named in the page's header), or None.
        live: refresh the page's live parts every few seconds.
        status: the HTTP status.
    """
    head = page_start(title).replace(CSP, SERVE_CSP).replace("</head>", EXTRA_CSS + "</head>")
    nav = ""
    if person is not None:
        who = f"{esc(person.id)}{' (staff)' if person.is_staff else ''}"
        staff = '<a href="/staff">Staff</a>' if person.is_staff else ""
        nav = f'<nav><span class="muted">Signed in as {who}</span>{staff}<a href="/logout">Sign out</a></nav>'
    attrs = ' data-always-live data-every="4000"' if live else ""
    html = head.replace("<body>", f"<body{attrs}>") + nav + body
    html += '\n<script src="/static/live.js"></script>\n</body>\n</html>\n'
    return HTMLResponse(html, status_code=status, headers={"Referrer-Policy": "no-referrer"})


def _service(request: Request) -> Service:
    return request.app.state.service


def signed_in(request: Request):
    service = _service(request)
    with service.sessions() as db:
        return auth.session_of(db, request, service.signer) or (None, None)


def not_signed_in() -> Response:
    return document(
        "Sign in",
        "<h1>Sign in</h1><p>Open the sign-in link your instructor sent you.</p>",
        status=401,
    )


def not_found(person) -> Response:
    return document(
        "Not found", "<h1>Not found</h1><p>There is no such page.</p>", person, status=404
    )


async def home(request: Request) -> Response:
    person, _ = signed_in(request)
    if person is None:
        return not_signed_in()
    if person.is_staff:
        return RedirectResponse("/staff", status_code=303)
    return RedirectResponse(f"/a/{_service(request).course.assignments[0].id}", status_code=303)


def _windows(assignment, student: str) -> str:
    due = deadlines.deadline_for(assignment, student)
    if due is None:
        return "<p>No deadline.</p>"
    rows = [f"<li>Due {when(deadlines.iso(due))}: full credit</li>"]
    shift = due - deadlines.parse_date(assignment.deadline, where="deadline")
    for step in assignment.late:
        until = deadlines.parse_date(step.until, where="late.until") + shift
        rows.append(f"<li>until {when(deadlines.iso(until))}: {step.credit:g} % of the points</li>")
    rows.append("<li>after that, hand-ins are closed</li>")
    return "<ul>" + "".join(rows) + "</ul>"


def _history(service, person, rows: list[Submission]) -> str:
    if not rows:
        return '<div id="history" data-live><p>No hand-ins yet.</p></div>'
    pending = any(r.status in ("queued", "grading") for r in rows)
    lines = [
        f'<div id="history" data-live{" data-pending" if pending else ""}>',
        "<table><tr><th>handed in</th><th>status</th><th class=num>score</th>"
        "<th class=num>credit</th><th class=num>final</th><th></th></tr>",
    ]
    for row in reversed(rows):
        data = views.as_json(service, person, row)
        score = "" if data["score"] is None else f"{data['score']:g} / {data['max_score']:g}"
        final = "" if data["final"] is None else f"{data['final']:g}"
        status = esc(row.status) + (f": {esc(row.error)}" if row.status == "failed" else "")
        lines.append(
            f'<tr data-id="{esc(row.id)}"><td>{when(row.submitted_at)}</td>'
            f'<td class="status">{status}</td><td class="num score">{score}</td>'
            f"<td class=num>{data['credit']:g} %</td><td class=num>{final}</td>"
            f'<td><a href="/s/{esc(row.id)}">feedback</a></td></tr>'
        )
    return "\n".join(lines) + "</table></div>"


async def assignment_page(request: Request) -> Response:
    person, session = signed_in(request)
    if person is None:
        return not_signed_in()
    service = _service(request)
    try:
        assignment = handin.assignment_of(service, request.path_params["assignment"])
    except handin.Refused:
        return not_found(person)
    message, status = "", 200
    if request.method == "POST":
        try:
            await api.hand_in(request, person, session, assignment.id)
            return RedirectResponse(f"/a/{assignment.id}", status_code=303)
        except handin.Refused as e:
            message, status = f'<p class="error" role="alert">{esc(e.message)}</p>', e.status
    with service.sessions() as db:
        rows = [] if person.is_staff else views.hand_ins(db, person.id, assignment.id)
    names = _expected(assignment)
    body = [
        f"<h1>{esc(assignment.title)}</h1>",
        f'<p class="sub">{esc(service.course.name)}</p>',
        _windows(assignment, person.id),
        message,
        f'<form class="upload" method="post" enctype="multipart/form-data" action="/a/{esc(assignment.id)}">'
        f'<input type="hidden" name="csrf" value="{esc(session.csrf)}">'
        f'<label>Your files ({names}): <input type="file" name="files" multiple required></label> '
        '<button type="submit">Hand in</button></form>',
        "<h2>Your hand-ins</h2>",
        _history(service, person, rows),
        _other_assignments(service, assignment),
    ]
    return document(assignment.title, "\n".join(b for b in body if b), person, status=status)


def _expected(assignment) -> str:
    """'attention.py and answers.yaml, or attention.ipynb', as code."""
    from qkv.course import layout  # noqa: PLC0415 - names only

    code, *notebook = (f"<code>{esc(n)}</code>" for n in layout.submission_files(assignment))
    answers = f"<code>{esc(layout.ANSWERS_FILE)}</code>"
    return f"{code} and {answers}" + "".join(f", or {n}" for n in notebook)


def _other_assignments(service, current) -> str:
    others = [a for a in service.course.assignments if a.id != current.id]
    if not others:
        return ""
    links = ", ".join(f'<a href="/a/{esc(a.id)}">{esc(a.title)}</a>' for a in others)
    return f"<p class=muted>Other assignments: {links}</p>"


async def feedback_page(request: Request) -> Response:
    person, _ = signed_in(request)
    if person is None:
        return not_signed_in()
    service = _service(request)
    with service.sessions() as db:
        row = db.get(Submission, request.path_params["id"][:64])
    if row is None or not views.visible_to(person, row):
        return not_found(person)
    assignment = service.course.assignment(row.assignment)
    if row.status in ("queued", "grading"):
        body = (
            f"<h1>Grading…</h1><p>Handed in {when(row.submitted_at)}; this page shows the "
            f'feedback as soon as it is graded.</p><div id="wait" data-live data-pending></div>'
        )
        response = document("Grading", body, person)
        response.headers["Refresh"] = "2"
        return response
    if row.status == "failed":
        body = f"<h1>Not graded</h1><p class=error>The grader could not grade this hand-in: {esc(row.error)}. Your instructor can regrade it.</p>"
        return document("Not graded", body, person)
    if views.checks_shown(service, person, assignment, row.student):
        return HTMLResponse(row.page or "", headers={"Referrer-Policy": "no-referrer"})
    body = (
        f"<h1>Feedback for {esc(row.student)}</h1><p class=total>{row.score:g} points</p>"
        f"<p>{esc(views.HIDDEN_NOTE)}</p>"
    )
    return document("Feedback", body, person)


async def live_js(request: Request) -> Response:
    return Response(LIVE_JS, media_type="text/javascript")


ROUTES = [
    Route("/", home),
    Route("/a/{assignment}", assignment_page, methods=["GET", "POST"]),
    Route("/s/{id}", feedback_page),
    Route("/static/live.js", live_js),
]
