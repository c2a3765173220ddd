"""Who is asking: a bearer token (the API, `qkv submit`) or a signed session cookie (the pages).

`/login?token=` turns a token into a session: a random id in the database, signed into an HttpOnly,
SameSite=Lax cookie (Secure when the request came over https, as a proxy's forwarded headers say).
A form posted with the cookie must carry the session's CSRF token.
"""

from __future__ import annotations

import hmac
import secrets
import time

from itsdangerous import BadSignature, URLSafeSerializer
from sqlalchemy import select
from starlette.requests import Request
from starlette.responses import Response

from qkv.serve.models import Session, Token
from qkv.serve.people import Person, person_for

COOKIE = "qkv_session"
SESSION_DAYS = 14


class SessionSigner:
    def __init__(self, secret: bytes):
        self._serializer = URLSafeSerializer(secret, salt="qkv-session")

    def sign(self, session_id: str) -> str:
        return self._serializer.dumps(session_id)

    def read(self, cookie: str | None) -> str | None:
        if not cookie or len(cookie) > 400:
            return None
        try:
            value = self._serializer.loads(cookie)
        except BadSignature:
            return None
        return value if isinstance(value, str) else None


def bearer(request: Request) -> str | None:
    header = request.headers.get("authorization", "")
    scheme, _, token = header.partition(" ")
    return token.strip() if scheme.lower() == "bearer" and token.strip() else None


def start_session(db, person: Person) -> Session:
    now = time.time()
    row = Session(
        id=secrets.token_urlsafe(24),
        token_id=person.token_id,
        csrf=secrets.token_urlsafe(24),
        created=now,
        expires=now + SESSION_DAYS * 86400,
    )
    db.add(row)
    return row


def set_cookie(response: Response, request: Request, signer: SessionSigner, row: Session) -> None:
    """Set the session cookie.

    Args:
        response: the response that carries it.
        request: the request it answers (its scheme decides Secure).
        signer: the service's cookie signer.
        row: the session it names.
    """
    response.set_cookie(
        COOKIE,
        signer.sign(row.id),
        max_age=SESSION_DAYS * 86400,
        httponly=True,
        samesite="lax",
        secure=request.url.scheme == "https",
        path="/",
    )


def session_of(db, request: Request, signer: SessionSigner) -> tuple[Person, Session] | None:
    """The live session the request's cookie names, with its person; None otherwise.

    Args:
        db: an open database session.
        request: the request whose cookie is read.
        signer: the service's cookie signer.
    """
    session_id = signer.read(request.cookies.get(COOKIE))
    if session_id is None:
        return None
    row = db.get(Session, session_id)
    if row is None or row.expires < time.time():
        return None
    token = db.scalar(select(Token).where(Token.id == row.token_id, Token.revoked.is_(None)))
    if token is None:
        return None
    return Person(token.kind, token.subject, token.id), row


def who(db, request: Request, signer: SessionSigner) -> tuple[Person | None, Session | None]:
    """(person, session): a bearer token wins over a cookie; a request with neither is nobody.

    Args:
        db: an open database session.
        request: the request (bearer token or cookie).
        signer: the service's cookie signer.
    """
    token = bearer(request)
    if token is not None:
        return person_for(db, token), None
    found = session_of(db, request, signer)
    return found if found else (None, None)


def csrf_ok(session: Session | None, sent: object) -> bool:
    """A form posted under a session carries its CSRF token; a bearer request has no session."""
    if session is None:
        return True
    return isinstance(sent, str) and bool(sent) and hmac.compare_digest(session.csrf, sent)
