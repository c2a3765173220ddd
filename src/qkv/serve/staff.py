"""The staff page: the class live, per assignment: roster with counted score, late credit and
status, the misconceptions the class shows, downloads, a regrade of everyone, the audit log."""

from __future__ import annotations

from collections import Counter
from itertools import groupby

from sqlalchemy import select
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route

from qkv.content import loader
from qkv.course import roster as roster_mod
from qkv.errors import QkvError
from qkv.reports import items
from qkv.reports.pages import esc
from qkv.results import gradebook
from qkv.serve import adjust, api, auth
from qkv.serve import gradebook as class_gradebook
from qkv.serve.models import Audit, Submission
from qkv.serve.pages import document, not_signed_in, signed_in, when
from qkv.serve.views import counted, result_of

AUDIT_SHOWN = 50


def _staff(request: Request):
    person, session = signed_in(request)
    if person is None:
        return None, None, not_signed_in()
    if not person.is_staff:
        return None, None, document("Staff only", "<h1>Staff only</h1>", person, status=403)
    return person, session, None


def _section(service, db, assignment, session) -> str:
    roster = roster_mod.load(service.course)
    found = db.scalars(
        select(Submission)
        .where(Submission.assignment == assignment.id)
        .order_by(Submission.student, Submission.created, Submission.id)
    )
    by_student = {s: list(g) for s, g in groupby(found, key=lambda r: r.student)}
    students = sorted(set(by_student) | set(roster.ids if roster else ()))
    mistakes: Counter = Counter()
    rows = []
    for student in students:
        handed = by_student.get(student, [])
        chosen = counted(assignment, handed, service.course.resubmissions)
        waiting = sum(r.status in ("queued", "grading") for r in handed)
        if chosen is None:
            state = "grading" if waiting else ("failed" if handed else gradebook.MISSING)
            rows.append(
                f"<tr><td>{esc(student)}</td><td class=num></td><td class=num></td>"
                f"<td class=num></td><td>{state}</td><td>{len(handed)}</td><td></td></tr>"
            )
            continue
        result = result_of(chosen)
        row = gradebook.row(assignment, result)
        total, credit, final, status = row[-5], row[-3], row[-2], row[-1]
        mistakes.update({t.mistake for t in result.tests if t.mistake})
        state = esc(status) + (f" ({waiting} grading)" if waiting else "")
        rows.append(
            f"<tr><td>{esc(student)}</td><td class=num>{total}</td><td class=num>{credit} %</td>"
            f"<td class=num>{final}</td><td>{state}</td><td>{len(handed)}</td>"
            f'<td><a href="/s/{esc(chosen.id)}">feedback</a></td></tr>'
        )
    pending = any(r.status in ("queued", "grading") for g in by_student.values() for r in g)
    a = esc(assignment.id)
    catalogue = loader.load(service.course, assignment).catalogue
    common = "".join(
        f"<li>{n} student{'s' if n > 1 else ''}: <span class=tag>{esc(m)}</span> "
        f"{esc(_message(catalogue, m))}</li>"
        for m, n in mistakes.most_common()
    )
    return "\n".join(
        [
            f'<section id="a-{a}"{" data-pending" if pending else ""}>',
            f"<h2>{esc(assignment.title)} <span class=tag>{a}</span></h2>",
            "<table><tr><th>student</th><th class=num>score</th><th class=num>credit</th>"
            "<th class=num>final</th><th>status</th><th>hand-ins</th><th></th></tr>",
            *rows,
            "</table>",
            "<h3>Misconceptions in the class</h3>",
            f"<ul>{common}</ul>" if common else "<p class=muted>None named so far.</p>",
            f'<p>Downloads: <a href="/api/assignments/{a}/gradebook.csv">gradebook.csv</a> · '
            f'<a href="/api/assignments/{a}/canvas.csv">Canvas</a> · '
            f'<a href="/api/assignments/{a}/moodle.csv">Moodle</a> · '
            f'<a href="/api/assignments/{a}/items.csv">items.csv</a></p>',
            items.section(class_gradebook.item_analysis(service, db, assignment)),
            f'<form method="post" action="/staff/regrade"><input type="hidden" name="csrf" '
            f'value="{esc(session.csrf)}"><input type="hidden" name="assignment" value="{a}">'
            f'<button type="submit">Regrade everyone on {a}</button> '
            "<span class=muted>(after a change of the course or its suites)</span></form>",
            f'<form method="post" action="/staff/override"><input type="hidden" name="csrf" '
            f'value="{esc(session.csrf)}"><input type="hidden" name="assignment" value="{a}">'
            '<label>Adjust: student <input name="student" size="10" required></label> '
            '<label>part <input name="part" size="10" required></label> '
            '<label>points <input name="points" size="4" placeholder="+2" required></label> '
            '<label>why <input name="comment" size="24"></label> '
            '<button type="submit">Adjust</button></form>',
            "</section>",
        ]
    )


def _message(catalogue, mistake_id: str) -> str:
    try:
        return catalogue.by_id(mistake_id).message
    except KeyError:
        return "(no longer in the misconception catalogue)"


def _audit(db) -> str:
    rows = db.scalars(select(Audit).order_by(Audit.id.desc()).limit(AUDIT_SHOWN))
    lines = [
        f"<tr><td>{when(_iso(r.at))}</td><td>{esc(r.actor)}</td><td>{esc(r.action)}</td>"
        f"<td>{esc(r.detail)}</td></tr>"
        for r in rows
    ]
    if not lines:
        return "<p class=muted>No overrides or regrades yet.</p>"
    return (
        "<table><tr><th>when</th><th>who</th><th>what</th><th></th></tr>"
        + "".join(lines)
        + "</table>"
    )


def _iso(epoch: float) -> str:
    from datetime import UTC, datetime  # noqa: PLC0415

    return datetime.fromtimestamp(epoch, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


async def staff_page(request: Request) -> Response:
    person, session, refused = _staff(request)
    if refused is not None:
        return refused
    service = request.app.state.service
    with service.sessions() as db:
        sections = [_section(service, db, a, session) for a in service.course.assignments]
        # Parts an extra adds (LTI's links and scores sent), each given the database and the CSRF.
        sections += [
            part(db, session.csrf) for part in getattr(request.app.state, "staff_parts", ())
        ]
        audit = _audit(db)
    body = [
        f"<h1>{esc(service.course.name)}</h1>",
        '<p class="sub">The class, live</p>',
        '<div id="class" data-live>',
        *sections,
        "<h2>Audit log</h2>",
        audit,
        "</div>",
    ]
    return document("Staff", "\n".join(body), person, live=True)


async def regrade_form(request: Request) -> Response:
    person, session, refused = _staff(request)
    if refused is not None:
        return refused
    service = request.app.state.service
    form = await request.form()
    if not auth.csrf_ok(session, form.get("csrf")):
        return document("Out of date", "<h1>Reload the page</h1>", person, status=403)
    assignment_id = str(form.get("assignment", ""))
    ids = [a.id for a in service.course.assignments]
    if assignment_id not in ids:
        return document("Not found", "<h1>No such assignment</h1>", person, status=404)
    api.regrade_all(service, person.id, service.course.assignment(assignment_id))
    return RedirectResponse("/staff", status_code=303)


async def override_form(request: Request) -> Response:
    person, session, refused = _staff(request)
    if refused is not None:
        return refused
    service = request.app.state.service
    form = await request.form()
    if not auth.csrf_ok(session, form.get("csrf")):
        return document("Out of date", "<h1>Reload the page</h1>", person, status=403)
    try:
        assignment = service.course.assignment(str(form.get("assignment", "")))
        values = [str(form.get(k, "")) for k in ("student", "part", "points", "comment")]
        adjust.add(service, person.id, assignment, *values)
    except QkvError as e:
        body = f"<h1>Not adjusted</h1><p class=error>{esc(e)}</p><p><a href=/staff>Back</a></p>"
        return document("Not adjusted", body, person, status=422)
    return RedirectResponse("/staff", status_code=303)


ROUTES = [
    Route("/staff", staff_page),
    Route("/staff/regrade", regrade_form, methods=["POST"]),
    Route("/staff/override", override_form, methods=["POST"]),
]
