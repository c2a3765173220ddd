"""A local LMS for the LTI tests: an ASGI app with its own key pair, as Canvas or Moodle would be.

It starts logins from a course page (a form posted into the tool), signs id tokens, publishes its
JWKS, hands out access tokens for client assertions it verifies against the tool's JWKS, keeps AGS
line items and scores and NRPS memberships, takes deep linking responses, and can be told to answer
500 or to hang, to show what the tool does when a platform is down.
"""

from __future__ import annotations

import asyncio
import html
import itertools
import secrets
import socket
import threading
import time
from dataclasses import dataclass, field
from typing import Any

import httpx
import jwt
import uvicorn
from cryptography.hazmat.primitives.asymmetric import rsa
from jwt.algorithms import RSAAlgorithm
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Route

LTI = "https://purl.imsglobal.org/spec/lti/claim/"
MEMBERSHIP = "http://purl.imsglobal.org/vocab/lis/v2/membership#"
LEARNER, INSTRUCTOR = MEMBERSHIP + "Learner", MEMBERSHIP + "Instructor"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Served:
    """An ASGI app served by uvicorn on a loopback port, in a thread, until stop()."""

    def __init__(self, app: Any, on_stop: Any = None, host: str = "127.0.0.1") -> None:
        self._on_stop = on_stop
        self.port = free_port()
        self.url = f"http://{host}:{self.port}"  # another name for loopback is another site
        config = uvicorn.Config(app, host="127.0.0.1", port=self.port, log_level="warning")
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(target=self._server.run, daemon=True)
        self._thread.start()
        deadline = time.monotonic() + 10
        while not self._server.started:
            if time.monotonic() > deadline:
                raise RuntimeError("the server did not start")
            time.sleep(0.02)

    def stop(self) -> None:
        if self._on_stop:
            self._on_stop()
        self._server.should_exit = True
        self._thread.join(10)


@dataclass
class User:
    sub: str
    name: str
    email: str
    roles: list[str]
    sourcedid: str = ""


@dataclass
class SimulatedPlatform:
    """The platform's state; tests read and change it while the app serves."""

    tool_url: str = ""
    client_id: str = "qkv-client"
    deployment_id: str = "deployment-1"
    context_id: str = "course-101"
    key: rsa.RSAPrivateKey = field(
        default_factory=lambda: rsa.generate_private_key(public_exponent=65537, key_size=2048)
    )
    kid: str = "platform-key-1"
    url: str = ""
    users: dict[str, User] = field(default_factory=dict)
    links: dict[str, dict[str, Any]] = field(default_factory=dict)  # resource link id -> its claims
    lineitems: dict[str, dict[str, Any]] = field(default_factory=dict)
    scores: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    tokens: dict[str, str] = field(default_factory=dict)  # access token -> scopes
    deep_link_returns: list[dict[str, Any]] = field(default_factory=list)
    failing: str = ""  # "500" or "timeout": every service call (token, AGS, NRPS) fails so
    requests: list[str] = field(default_factory=list)
    _ids: Any = field(default_factory=itertools.count)

    @property
    def issuer(self) -> str:
        return self.url

    def registration(self) -> list[str]:
        """The `qkv serve lti add-platform` options for this platform."""
        return [
            "--issuer", self.issuer, "--client-id", self.client_id,
            "--deployment-id", self.deployment_id, "--auth-login-url", f"{self.url}/auth",
            "--auth-token-url", f"{self.url}/token", "--jwks-url", f"{self.url}/jwks",
        ]  # fmt: skip

    def jwks(self) -> dict[str, Any]:
        jwk = RSAAlgorithm.to_jwk(self.key.public_key(), as_dict=True)
        return {"keys": [{**jwk, "kid": self.kid, "alg": "RS256", "use": "sig"}]}

    def add_user(self, sub: str, name: str, email: str, role: str, sourcedid: str = "") -> User:
        self.users[sub] = User(sub, name, email, [role], sourcedid)
        return self.users[sub]

    def add_link(self, link_id: str, custom: dict[str, str] | None = None, **claims: Any) -> None:
        self.links[link_id] = {"custom": custom or {}, **claims}

    def claims(
        self, sub: str, link_id: str, nonce: str, changes: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        """The id token of `sub` launching `link_id` (or a deep linking request for "deep-link")."""
        user, now = self.users[sub], int(time.time())
        base = f"{self.url}/api/lti/courses/{self.context_id}"
        payload: dict[str, Any] = {
            "iss": self.issuer,
            "aud": self.client_id,
            "azp": self.client_id,
            "sub": user.sub,
            "iat": now,
            "exp": now + 300,
            "nonce": nonce,
            "name": user.name,
            "email": user.email,
            LTI + "deployment_id": self.deployment_id,
            LTI + "version": "1.3.0",
            LTI + "roles": user.roles,
            LTI + "context": {"id": self.context_id, "title": "Attention 101"},
            LTI + "lis": {"person_sourcedid": user.sourcedid},
            "https://purl.imsglobal.org/spec/lti-ags/claim/endpoint": {
                "scope": [
                    "https://purl.imsglobal.org/spec/lti-ags/scope/lineitem",
                    "https://purl.imsglobal.org/spec/lti-ags/scope/score",
                ],
                "lineitems": f"{base}/line_items",
            },
            "https://purl.imsglobal.org/spec/lti-nrps/claim/namesroleservice": {
                "context_memberships_url": f"{base}/names_and_roles",
                "service_versions": ["2.0"],
            },
        }
        if link_id == "deep-link":
            payload[LTI + "message_type"] = "LtiDeepLinkingRequest"
            payload["https://purl.imsglobal.org/spec/lti-dl/claim/deep_linking_settings"] = {
                "deep_link_return_url": f"{self.url}/deep_link_return",
                "accept_types": ["ltiResourceLink"],
                "accept_presentation_document_targets": ["iframe", "window"],
                "data": "opaque-platform-data",
            }
        else:
            link = self.links[link_id]
            payload[LTI + "message_type"] = "LtiResourceLinkRequest"
            payload[LTI + "resource_link"] = {"id": link_id, "title": link_id}
            payload[LTI + "custom"] = link["custom"]
        payload.update(changes or {})
        return {k: v for k, v in payload.items() if v is not None}

    def sign(self, payload: dict[str, Any], key: rsa.RSAPrivateKey | None = None) -> str:
        return jwt.encode(payload, key or self.key, algorithm="RS256", headers={"kid": self.kid})

    def member_list(self) -> list[dict[str, Any]]:
        return [
            {
                "user_id": u.sub,
                "name": u.name,
                "email": u.email,
                "lis_person_sourcedid": u.sourcedid,
                "roles": u.roles,
                "status": "Active",
            }
            for u in self.users.values()
        ]

    def final_scores(self) -> dict[str, dict[str, float]]:
        """Per line item label: each user's latest scoreGiven, as the platform's gradebook shows."""
        shown: dict[str, dict[str, float]] = {}
        for item_id, posted in self.scores.items():
            label = self.lineitems[item_id]["label"]
            latest: dict[str, dict[str, Any]] = {}
            for s in posted:
                if s["userId"] not in latest or s["timestamp"] >= latest[s["userId"]]["timestamp"]:
                    latest[s["userId"]] = s
            shown[label] = {user: s["scoreGiven"] for user, s in latest.items()}
        return shown


def _page(title: str, body: str) -> HTMLResponse:
    return HTMLResponse(f"<!doctype html><title>{html.escape(title)}</title><body>{body}</body>")


def _autopost(url: str, fields: dict[str, str], label: str) -> str:
    inputs = "".join(
        f'<input type="hidden" name="{html.escape(k)}" value="{html.escape(v)}">'
        for k, v in fields.items()
    )
    return (
        f'<form id="go" method="post" action="{html.escape(url)}">{inputs}'
        f'<button type="submit">{html.escape(label)}</button></form>'
    )


def build_app(p: SimulatedPlatform) -> Starlette:
    async def failing() -> Response | None:
        if p.failing == "500":
            return JSONResponse({"error": "the platform is down"}, status_code=500)
        deadline = time.monotonic() + 30
        while p.failing == "timeout" and time.monotonic() < deadline:
            await asyncio.sleep(0.05)  # hangs until told otherwise, so a test can end it
        return None

    def scopes_of(request: Request) -> str | None:
        header = request.headers.get("authorization", "")
        return p.tokens.get(header.removeprefix("Bearer ").strip())

    async def jwks(_: Request) -> Response:
        return JSONResponse(p.jwks())

    async def course(request: Request) -> Response:
        """The LMS's course page: a user opens a link, and the browser posts a login to the tool."""
        user, link = request.query_params["user"], request.query_params["link"]
        fields = {
            "iss": p.issuer,
            "login_hint": user,
            "target_link_uri": f"{p.tool_url}/lti/launch",
            "lti_message_hint": link,
            "client_id": p.client_id,
            "lti_deployment_id": p.deployment_id,
        }
        form = _autopost(f"{p.tool_url}/lti/login", fields, f"Open {link}")
        if request.query_params.get("frame"):  # as an LMS shows a tool: in a frame of its page
            form = form.replace('<form id="go"', '<form id="go" target="tool"')
            form += '<iframe name="tool" id="tool" width="1000" height="700"></iframe>'
        return _page("Course", form)

    async def auth(request: Request) -> Response:
        q = request.query_params
        if q.get("client_id") != p.client_id or q.get("redirect_uri") != f"{p.tool_url}/lti/launch":
            return _page("Refused", "unknown client or redirect_uri")
        if q.get("response_mode") != "form_post" or q.get("scope") != "openid":
            return _page("Refused", "not an LTI login")
        token = p.sign(p.claims(q["login_hint"], q["lti_message_hint"], q["nonce"]))
        return _page("Launching", _autopost(q["redirect_uri"], {"id_token": token, "state": q["state"]}, "Launch")
                     + "<script>document.getElementById('go').submit()</script>")  # fmt: skip

    async def token(request: Request) -> Response:
        p.requests.append("token")
        if (down := await failing()) is not None:
            return down
        form = await request.form()
        assertion = str(form.get("client_assertion", ""))
        try:
            async with httpx.AsyncClient() as client:
                tool_keys = (await client.get(f"{p.tool_url}/lti/jwks")).json()
            kid = jwt.get_unverified_header(assertion).get("kid")
            jwk = next(k for k in tool_keys["keys"] if k["kid"] == kid)
            claims = jwt.decode(assertion, jwt.PyJWK(jwk).key, algorithms=["RS256"],
                                audience=f"{p.url}/token")  # fmt: skip
        except (StopIteration, jwt.PyJWTError, KeyError) as error:
            return JSONResponse({"error": "invalid_client", "why": str(error)}, status_code=401)
        if claims["iss"] != p.client_id or claims["sub"] != p.client_id:
            return JSONResponse({"error": "invalid_client"}, status_code=401)
        if form.get("grant_type") != "client_credentials":
            return JSONResponse({"error": "unsupported_grant_type"}, status_code=400)
        access = secrets.token_urlsafe(16)
        p.tokens[access] = str(form.get("scope", ""))
        return JSONResponse({"access_token": access, "token_type": "Bearer", "expires_in": 3600})

    async def line_items(request: Request) -> Response:
        p.requests.append(f"{request.method} line_items")
        if (down := await failing()) is not None:
            return down
        if "lti-ags/scope/lineitem" not in (scopes_of(request) or ""):
            return JSONResponse({"error": "no token for line items"}, status_code=401)
        if request.method == "GET":
            wanted = request.query_params.get("resource_id")
            found = [i for i in p.lineitems.values() if wanted in (None, i.get("resourceId"))]
            return JSONResponse(
                found, media_type="application/vnd.ims.lis.v2.lineitemcontainer+json"
            )
        item = await request.json()
        item_id = f"{p.url}/api/lti/courses/{p.context_id}/line_items/{next(p._ids)}"
        p.lineitems[item_id] = {**item, "id": item_id}
        p.scores[item_id] = []
        return JSONResponse(p.lineitems[item_id], status_code=201)

    async def scores(request: Request) -> Response:
        p.requests.append("scores")
        if (down := await failing()) is not None:
            return down
        if "lti-ags/scope/score" not in (scopes_of(request) or ""):
            return JSONResponse({"error": "no token for scores"}, status_code=401)
        if request.headers.get("content-type") != "application/vnd.ims.lis.v1.score+json":
            return JSONResponse({"error": "not a score"}, status_code=415)
        item_id = str(request.url).rsplit("/scores", 1)[0]
        if item_id not in p.lineitems:
            return JSONResponse({"error": "no such line item"}, status_code=404)
        score = await request.json()
        if score["userId"] not in p.users:
            return JSONResponse({"error": "not a member"}, status_code=422)
        p.scores[item_id].append(score)
        return Response(status_code=204)

    async def memberships(request: Request) -> Response:
        p.requests.append("memberships")
        if (down := await failing()) is not None:
            return down
        if "contextmembership.readonly" not in (scopes_of(request) or ""):
            return JSONResponse({"error": "no token for memberships"}, status_code=401)
        body = {"id": str(request.url), "context": {"id": p.context_id}, "members": p.member_list()}
        return JSONResponse(
            body, media_type="application/vnd.ims.lti-nrps.v2.membershipcontainer+json"
        )

    async def deep_link_return(request: Request) -> Response:
        form = await request.form()
        tool_keys = httpx.get(f"{p.tool_url}/lti/jwks").json()
        message = str(form.get("JWT", ""))
        kid = jwt.get_unverified_header(message).get("kid")
        jwk = next(k for k in tool_keys["keys"] if k["kid"] == kid)
        claims = jwt.decode(message, jwt.PyJWK(jwk).key, algorithms=["RS256"], audience=p.issuer)
        p.deep_link_returns.append(claims)
        items = claims.get("https://purl.imsglobal.org/spec/lti-dl/claim/content_items", [])
        titles = ", ".join(html.escape(str(i.get("title"))) for i in items)
        return _page("Added", f"<p id='added'>Added: {titles}</p>")

    return Starlette(
        routes=[
            Route("/jwks", jwks),
            Route("/course", course),
            Route("/auth", auth),
            Route("/token", token, methods=["POST"]),
            Route("/api/lti/courses/{ctx}/line_items", line_items, methods=["GET", "POST"]),
            Route("/api/lti/courses/{ctx}/line_items/{n}/scores", scores, methods=["POST"]),
            Route("/api/lti/courses/{ctx}/names_and_roles", memberships),
            Route("/deep_link_return", deep_link_return, methods=["POST"]),
        ]
    )


def start(tool_url: str = "", host: str = "127.0.0.1") -> tuple[SimulatedPlatform, Served]:
    """The platform and its server: stop the server with `served.stop()` (it ends any hang)."""
    platform = SimulatedPlatform(tool_url=tool_url)
    stop_hanging = lambda: setattr(platform, "failing", "")  # noqa: E731 - a callback
    served = Served(build_app(platform), on_stop=stop_hanging, host=host)
    platform.url = served.url
    return platform, served
