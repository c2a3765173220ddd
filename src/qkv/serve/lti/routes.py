"""The tool's endpoints: `/lti/jwks`, `/lti/config`, `/lti/login`, `/lti/launch`, `/lti/deep-link`.

A refused launch gets a page saying why (status 403) and a line in the service's log.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any, TypeVar
from urllib.parse import urlsplit

from itsdangerous import BadSignature, URLSafeTimedSerializer
from sqlalchemy.orm import Session as DbSession
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from qkv.serve import auth
from qkv.serve.lti import claims as c
from qkv.serve.lti import deep_linking, keys, login, pages, platforms
from qkv.serve.lti.launches import record_launch
from qkv.serve.lti.runtime import Runtime
from qkv.serve.lti.verify import Launch, Refused, verify_id_token
from qkv.serve.service import Service

log = logging.getLogger("qkv.serve.lti")
DEEP_LINK_SECONDS = 3600
T = TypeVar("T")


def _parts(request: Request) -> tuple[Service, Runtime]:
    return request.app.state.service, request.app.state.lti


def base_url(service: Service, request: Request) -> str:
    """The address people reach the service at: course.yaml's `serve.url`, else this request's."""
    configured = getattr(getattr(service.course, "serve", None), "url", None)
    return str(configured or request.base_url).rstrip("/")


def _committed(service: Service, work: Callable[[DbSession], T]) -> T:
    """Runs `work` in a transaction that commits even when it refuses (a spent state stays spent)."""
    with service.sessions() as db:
        try:
            done = work(db)
        except Refused:
            db.commit()
            raise
        db.commit()
        return done


async def jwks(request: Request) -> Response:
    service, _ = _parts(request)
    ring = keys.keyring(service.settings.data)
    return JSONResponse(ring.jwks(), headers={"Cache-Control": "public, max-age=300"})


async def config(request: Request) -> Response:
    """The JSON a Canvas developer key is made from (Developer Keys, + LTI Key, Paste JSON)."""
    service, _ = _parts(request)
    base = base_url(service, request)
    launch = f"{base}/lti/launch"
    selection = {"message_type": c.DEEP_LINKING_REQUEST, "target_link_uri": launch}
    return JSONResponse(
        {
            "title": service.course.name,
            "description": "Auto-graded exercises and quizzes on attention (qkv-kit).",
            "oidc_initiation_url": f"{base}/lti/login",
            "target_link_uri": launch,
            "public_jwk_url": f"{base}/lti/jwks",
            "scopes": list(c.SCOPES),
            "extensions": [
                {
                    "platform": "canvas.instructure.com",
                    "privacy_level": "public",
                    "domain": urlsplit(base).hostname or "",
                    "settings": {
                        "text": service.course.name,
                        "placements": [
                            {"placement": "assignment_selection", **selection},
                            {"placement": "link_selection", **selection},
                        ],
                    },
                }
            ],
            "custom_fields": {},
        }
    )


async def login_start(request: Request) -> Response:
    service, _ = _parts(request)
    params = dict(request.query_params)
    if request.method == "POST":
        params.update({k: str(v) for k, v in (await request.form()).items()})

    def begin(db: DbSession) -> login.Redirect:
        find = lambda issuer, auds: platforms.find(db, issuer, auds)  # noqa: E731 - this session
        return login.begin(
            db, params, find_platform=find, launch_url=f"{base_url(service, request)}/lti/launch"
        )

    try:
        redirect = await run_in_threadpool(_committed, service, begin)
    except Refused as refusal:
        return _refused(request, refusal)
    response = RedirectResponse(redirect.url, status_code=302)
    response.set_cookie(
        redirect.cookie,
        redirect.secret,
        max_age=login.LOGIN_TTL_S,
        httponly=True,
        secure=True,
        samesite="none",
        path="/lti/",
    )
    return response


def _refused(request: Request, refusal: Refused) -> Response:
    client = request.client.host if request.client else "?"
    log.warning("LTI launch refused (%s %s from %s): %s", request.method, request.url.path,
                client, refusal)  # fmt: skip
    relaunch = refusal.relaunch if isinstance(refusal, login.CookiesBlocked) else None
    return pages.refused(str(refusal), relaunch)


def _verify(
    service: Service, runtime: Runtime, token: str, state: str, secret: str | None
) -> Launch:
    """The launch a posted id token carries, for the browser whose login `state` started it."""
    nonce = _committed(service, lambda db: login.take(db, state, secret))

    def use(n: str) -> None:
        _committed(service, lambda db: login.use_nonce(db, n))

    def find(issuer: str, audiences: list[str]) -> platforms.Platform | None:
        with service.sessions() as db:
            return platforms.find(db, issuer, audiences)

    return verify_id_token(
        token, find_platform=find, keys=runtime.platform_keys, nonce=nonce, use_nonce=use
    )


async def launch(request: Request) -> Response:
    service, runtime = _parts(request)
    form = await request.form()
    token, state = str(form.get("id_token", "")), str(form.get("state", ""))
    secret = request.cookies.get(login.cookie_name(state))
    try:
        response, session_id = await run_in_threadpool(
            _launch, service, runtime, (token, state, secret), base_url(service, request)
        )
    except Refused as refusal:
        return _refused(request, refusal)
    response.set_cookie(
        auth.COOKIE,
        service.signer.sign(session_id),
        max_age=auth.SESSION_DAYS * 86400,
        httponly=True,
        secure=True,
        samesite="none",  # the LMS shows the tool in its frame: a Lax cookie would not be sent
        path="/",
    )
    response.delete_cookie(login.cookie_name(state), path="/lti/", secure=True, samesite="none")
    runtime.wake()
    return response


def _launch(
    service: Service, runtime: Runtime, posted: tuple[str, str, str | None], tool_url: str
) -> tuple[Response, str]:
    """The verified launch's page (or redirect) and the id of the session it signs in."""
    found = _verify(service, runtime, *posted)
    with service.sessions.begin() as db:
        target, person = record_launch(db, service, found, tool_url=tool_url)
        session = auth.start_session(db, person)
        if found.message_type == c.DEEP_LINKING_REQUEST:
            blob = _deep_link_blob(service, found)
            return pages.choose(service.course, blob, session.csrf), session.id
        return RedirectResponse(target, status_code=303), session.id


def _serializer(service: Service) -> URLSafeTimedSerializer:
    return URLSafeTimedSerializer(service.settings.secret(), salt="qkv-lti-deep-link")


def _deep_link_blob(service: Service, found: Launch) -> str:
    """The request's return address and data, signed, for the choice to post back."""
    settings = found.deep_linking
    return str(
        _serializer(service).dumps(
            {
                "platform": found.platform.id,
                "deployment": found.deployment_id,
                "return": settings["deep_link_return_url"],
                "data": settings.get("data"),
            }
        )
    )


async def deep_link(request: Request) -> Response:
    """The staff member's choice: a signed LtiDeepLinkingResponse posted back to the platform."""
    service, _ = _parts(request)
    form = await request.form()
    with service.sessions() as db:
        found = auth.session_of(db, request, service.signer)
    if found is None or not found[0].is_staff or not auth.csrf_ok(found[1], str(form.get("csrf"))):
        return _refused(request, Refused("only a staff member's launch can add an assignment"))
    try:
        asked: dict[str, Any] = _serializer(service).loads(
            str(form.get("request", "")), max_age=DEEP_LINK_SECONDS
        )
    except BadSignature:
        return _refused(request, Refused("the deep linking request is not this tool's, or expired"))
    ids = {a.id: a for a in service.course.assignments}
    chosen = ids.get(str(form.get("assignment", "")))
    if chosen is None:
        return _refused(request, Refused("no such assignment in this course"))
    with service.sessions() as db:
        platform = platforms.by_id(db, int(asked["platform"]))
    item = deep_linking.content_item(chosen, f"{base_url(service, request)}/lti/launch")
    message = deep_linking.response(
        keys.keyring(service.settings.data).current,
        platform,
        str(asked["deployment"]),
        asked.get("data"),
        [item],
    )
    return pages.post_form(str(asked["return"]), {"JWT": message}, f"Add {chosen.title}")


ROUTES = [
    Route("/lti/jwks", jwks),
    Route("/lti/config", config),
    Route("/lti/login", login_start, methods=["GET", "POST"]),
    Route("/lti/launch", launch, methods=["POST"]),
    Route("/lti/deep-link", deep_link, methods=["POST"]),
]
