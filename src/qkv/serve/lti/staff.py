"""LTI on the staff page: the LMS courses each assignment is linked to, the scores sent and owed,
and a button that reads a course's members (`POST /lti/roster`)."""

from __future__ import annotations

from datetime import UTC, datetime
from html import escape

from sqlalchemy import func, select
from sqlalchemy.orm import Session as DbSession
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from qkv.errors import QkvError
from qkv.results.gradebook import fmt
from qkv.serve import auth
from qkv.serve.lti import pages
from qkv.serve.lti.models import LtiLink, LtiMember, LtiPlatform, LtiScore, LtiSent, LtiUser
from qkv.serve.lti.roster import import_memberships
from qkv.serve.lti.services import ServiceError

SHOWN_POSTS = 50


def _when(t: float) -> str:
    return datetime.fromtimestamp(t, UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


def section(db: DbSession, csrf: str) -> str:
    """The staff page's LTI section, as HTML (empty when no LMS has launched the tool)."""
    links = list(db.execute(select(LtiLink, LtiPlatform).join(LtiPlatform).order_by(LtiLink.id)))
    if not links:
        return ""
    rows = []
    for link, platform in links:
        members = db.scalar(select(func.count()).where(LtiMember.link_id == link.id))
        owed = db.scalar(
            select(func.count()).where(
                LtiScore.link_id == link.id, LtiScore.sent_version < LtiScore.version
            )
        )
        button = (
            f'<form method="post" action="/lti/roster" style="display:inline">'
            f'<input type="hidden" name="csrf" value="{escape(csrf)}">'
            f'<button name="assignment" value="{escape(link.assignment)}">Read the roster from the '
            "LMS</button></form>"
            if link.memberships_url
            else ""
        )
        rows.append(
            f"<tr><td>{escape(link.assignment)}</td><td>{escape(platform.issuer)}</td>"
            f"<td>{escape(link.context_title or link.context_id)}</td><td>{members}</td>"
            f"<td>{owed}</td><td>{button}</td></tr>"
        )
    posts = [
        f"<tr><td>{_when(s.at)}</td><td>{escape(s.student)}</td>"
        f"<td>{fmt(s.given)} / {fmt(s.maximum)}</td><td>{escape(link.assignment)}</td>"
        f"<td>{escape(s.outcome)}</td></tr>"
        for s, link in db.execute(
            select(LtiSent, LtiLink).join(LtiLink).order_by(LtiSent.id.desc()).limit(SHOWN_POSTS)
        )
    ]
    added = [
        f"{escape(u.subject)} ({escape(u.name or u.email or u.sub)})"
        for u in db.scalars(select(LtiUser).where(LtiUser.added).order_by(LtiUser.subject))
    ]
    strangers = (
        f'<p id="lti-added">Not on the roster, added from the LMS: {", ".join(added)}</p>'
        if added
        else ""
    )
    return (
        '<section id="lti"><h2>LMS (LTI)</h2><table><tr><th>assignment</th><th>LMS</th>'
        "<th>course</th><th>students</th><th>scores owed</th><th></th></tr>"
        + "".join(rows)
        + "</table>"
        + strangers
        + '<h3>Scores sent</h3><table id="lti-sent"><tr><th>when</th><th>student</th>'
        "<th>score</th><th>assignment</th><th>LMS's answer</th></tr>"
        + "".join(posts)
        + "</table></section>"
    )


async def roster(request: Request) -> Response:
    """The staff page's button: the LMS course's members into the service's students."""
    service, runtime = request.app.state.service, request.app.state.lti
    form = await request.form()
    with service.sessions() as db:
        found = auth.session_of(db, request, service.signer)
    if found is None or not found[0].is_staff or not auth.csrf_ok(found[1], str(form.get("csrf"))):
        return pages.page("Not allowed", "<p>Staff only.</p>", status=403)
    assignment = str(form.get("assignment", ""))
    try:
        imported = await run_in_threadpool(
            import_memberships, service, runtime.services, assignment
        )
    except (QkvError, ServiceError) as error:
        return pages.page("Roster", f"<p id='roster'>{escape(str(error))}</p>", status=502)
    runtime.wake()
    return pages.page(
        "Roster",
        f"<p id='roster'>{escape(imported.line(assignment))}</p>"
        '<p><a href="/staff">Back to the staff page</a></p>',
    )


ROUTES = [Route("/lti/roster", roster, methods=["POST"])]
