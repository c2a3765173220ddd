"""The OIDC third-party login that starts a launch, and the checks that end it.

`/lti/login` leaves a random secret in the browser (a cookie named after the state) and sends the
browser to the platform with the state and a fresh nonce; `/lti/launch` takes that state once and
only from the browser holding its cookie, and each nonce an accepted token carries once.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from urllib.parse import urlencode

from sqlalchemy import delete
from sqlalchemy.orm import Session as DbSession

from qkv.serve.lti.models import LtiLogin, LtiNonce
from qkv.serve.lti.verify import Platform, Refused

LOGIN_TTL_S = 600
COOKIE_PREFIX = "qkv_lti_"
BLOCKED_COOKIES = (
    "this browser did not send back the cookie of its login: it may block third-party cookies "
    "in the LMS's frame (open the tool in a new window)"
)


class CookiesBlocked(Refused):
    """The browser did not send the login's cookie back: the same login, in a new window, will."""

    def __init__(self, message: str, relaunch: str) -> None:
        super().__init__(message)
        self.relaunch = relaunch  # /lti/login?... with the login's own fields


LOGIN_FIELDS = (
    "iss",
    "login_hint",
    "target_link_uri",
    "lti_message_hint",
    "client_id",
    "lti_deployment_id",
)


@dataclass(frozen=True)
class Redirect:
    url: str
    cookie: str  # the cookie's name: COOKIE_PREFIX + state
    secret: str  # its value


def _hash(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def cookie_name(state: str) -> str:
    return COOKIE_PREFIX + state


def begin(
    db: DbSession,
    params: Mapping[str, str],
    *,
    find_platform: Callable[[str, list[str]], Platform | None],
    launch_url: str,
) -> Redirect:
    """Where to send the browser for a login the platform started, and the cookie to set first.

    Args:
        db: an open session; the login's row is added to it.
        params: the login request's fields (`iss`, `login_hint`, `target_link_uri`, and optionally
            `lti_message_hint`, `client_id`, `lti_deployment_id`).
        find_platform: the registered platform for an issuer and client ids.
        launch_url: this tool's `/lti/launch`, where the platform posts the id token.

    Returns:
        The platform's authorisation URL with the request, and the state cookie.

    Raises:
        Refused: an unregistered platform or deployment, or a request missing a field.
    """
    issuer, hint = params.get("iss", ""), params.get("login_hint", "")
    if not issuer or not hint:
        raise Refused("the login request names no issuer (iss) or no login_hint")
    client_id = params.get("client_id", "")
    platform = find_platform(issuer, [client_id] if client_id else [])
    if platform is None:
        raise Refused(
            f"no platform is registered with issuer {issuer!r} and client id {client_id!r}"
        )
    deployment = params.get("lti_deployment_id")
    if deployment and deployment not in platform.deployments:
        raise Refused(f"deployment {deployment!r} is not registered for {issuer}")
    now = time.time()
    db.execute(delete(LtiLogin).where(LtiLogin.created < now - LOGIN_TTL_S))
    state, nonce, secret = (secrets.token_urlsafe(24) for _ in range(3))
    kept = json.dumps({k: params[k] for k in LOGIN_FIELDS if params.get(k)})
    db.add(LtiLogin(state=state, browser=_hash(secret), nonce=nonce, created=now, params=kept))
    query = {
        "scope": "openid",
        "response_type": "id_token",
        "response_mode": "form_post",
        "prompt": "none",
        "client_id": platform.client_id,
        "redirect_uri": launch_url,
        "login_hint": hint,
        "state": state,
        "nonce": nonce,
    }
    if params.get("lti_message_hint"):
        query["lti_message_hint"] = params["lti_message_hint"]
    joiner = "&" if "?" in platform.auth_login_url else "?"
    return Redirect(platform.auth_login_url + joiner + urlencode(query), cookie_name(state), secret)


def take(db: DbSession, state: str, secret: str | None) -> str:
    """The nonce of the login `state` names, once, for the browser that started it.

    Args:
        db: an open session; the login's row is deleted from it, refused or not.
        state: the `state` the platform posted back.
        secret: the value of the browser's cookie for that state, if it sent one.

    Returns:
        The nonce the id token must carry.

    Raises:
        Refused: an unknown, spent or stale state, or another browser's.
    """
    row = db.get(LtiLogin, state) if state and len(state) <= 64 else None
    if row is None:
        raise Refused("the launch's state is unknown or was already used")
    db.delete(row)
    if time.time() - row.created > LOGIN_TTL_S:
        raise Refused("the login took longer than 10 minutes: launch the tool again")
    if not secret:
        raise CookiesBlocked(BLOCKED_COOKIES, "/lti/login?" + urlencode(json.loads(row.params)))
    if not hmac.compare_digest(_hash(secret), row.browser):
        raise Refused("the launch's state does not match this browser's login")
    return row.nonce


def use_nonce(db: DbSession, nonce: str) -> None:
    """Marks the nonce of an accepted token seen; a token replayed with it is refused."""
    if db.get(LtiNonce, nonce) is not None:
        raise Refused("the id token's nonce was already used: a launch is accepted once")
    db.add(LtiNonce(nonce=nonce, used=time.time()))
    db.flush()
