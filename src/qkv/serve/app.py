"""The ASGI application: `create_app(settings)` gives the API and the pages over one service."""

from __future__ import annotations

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, RedirectResponse, Response
from starlette.routing import Route
from uvicorn.middleware.proxy_headers import ProxyHeadersMiddleware

from qkv.serve import api, auth, pages, staff
from qkv.serve.lti import extra as lti_extra
from qkv.serve.service import Service
from qkv.serve.settings import Settings


async def health(request: Request) -> Response:
    return JSONResponse({"status": "ok"})


async def login(request: Request) -> Response:
    service: Service = request.app.state.service
    token = request.query_params.get("token")
    with service.sessions.begin() as db:
        person, _ = auth.who(db, _with_token(request, token), service.signer)
        if person is None:
            return PlainTextResponse(
                "This sign-in link is not valid (it may have been replaced by a newer one); "
                "ask your instructor for yours.",
                status_code=401,
            )
        row = auth.start_session(db, person)
        target = "/staff" if person.is_staff else f"/a/{service.course.assignments[0].id}"
        response = RedirectResponse(target, status_code=303)
        auth.set_cookie(response, request, service.signer, row)
    response.headers["Referrer-Policy"] = "no-referrer"
    return response


def _with_token(request: Request, token: str | None) -> Request:
    """The request as if it had sent the link's token as a bearer token."""
    scope = dict(request.scope)
    headers = [(k, v) for k, v in scope["headers"] if k != b"authorization"]
    headers.append((b"authorization", f"Bearer {token or ''}".encode("latin-1", "replace")))
    scope["headers"] = headers
    return Request(scope)


async def logout(request: Request) -> Response:
    service: Service = request.app.state.service
    with service.sessions.begin() as db:
        found = auth.session_of(db, request, service.signer)
        if found is not None:
            db.delete(found[1])
    response = RedirectResponse("/", status_code=303)
    response.delete_cookie(auth.COOKIE, path="/")
    return response


def routes() -> list[Route]:
    return [
        Route("/api/health", health),
        Route("/login", login),
        Route("/logout", logout, methods=["GET", "POST"]),
        *api.ROUTES,
        *pages.ROUTES,
        *staff.ROUTES,
    ]


def create_app(settings: Settings, service: Service | None = None):
    """The service's ASGI app; `service` (opened from `settings` when not given) is its context."""
    service = service or Service.open(settings)
    app = Starlette(routes=routes())
    app.state.service = service
    if lti_extra.available():
        from qkv.serve.lti.app import install  # noqa: PLC0415 - only with the extra `lti`
        from qkv.serve.lti.grades import counted_grades  # noqa: PLC0415 - only with the extra `lti`

        install(app, service, counted_grades(service))
    # Behind a TLS proxy the request's scheme and client are what its X-Forwarded-* headers say.
    app.add_middleware(ProxyHeadersMiddleware, trusted_hosts=settings.forwarded_allow_ips)
    return app
