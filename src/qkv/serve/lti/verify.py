"""Verifying a launch's id token: every claim LTI 1.3 asks a tool to check, each refusal one line.

The platform's keys come from its JWKS, cached, and fetched again when a token names a key id the
cache does not hold (a platform that rotated its keys).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

import httpx
import jwt

from qkv.serve.lti import claims as c

LEEWAY = timedelta(seconds=5)  # for clocks a little apart, not for stale tokens
JWKS_MAX_AGE_S = 3600.0
HTTP_TIMEOUT_S = 5.0


class Refused(Exception):
    """A launch the tool will not accept; the message says why, in one line."""


@dataclass(frozen=True)
class Platform:
    id: int
    issuer: str
    client_id: str
    auth_login_url: str
    auth_token_url: str
    jwks_url: str
    deployments: frozenset[str] = frozenset()


@dataclass(frozen=True)
class Launch:
    """What a verified id token says, in the names the tool uses."""

    platform: Platform
    message_type: str
    deployment_id: str
    sub: str
    roles: tuple[str, ...]
    context_id: str
    context_title: str
    resource_link_id: str
    custom: dict[str, str]
    name: str
    email: str
    sourcedid: str
    ags: dict[str, Any] = field(default_factory=dict)
    memberships_url: str = ""
    deep_linking: dict[str, Any] = field(default_factory=dict)

    @property
    def staff(self) -> bool:
        return c.is_staff(list(self.roles))

    @property
    def learner(self) -> bool:
        return c.is_learner(list(self.roles))


def fetch_jwks(url: str) -> dict[str, Any]:
    response = httpx.get(url, timeout=HTTP_TIMEOUT_S, follow_redirects=True)
    response.raise_for_status()
    jwks: dict[str, Any] = response.json()
    return jwks


class PlatformKeys:
    """Each platform's published keys, by JWKS URL, shared by every launch of the process."""

    def __init__(self, fetch: Callable[[str], dict[str, Any]] = fetch_jwks) -> None:
        self._fetch = fetch
        self._sets: dict[str, tuple[float, dict[str, jwt.PyJWK]]] = {}
        self._lock = threading.Lock()

    def _refresh(self, url: str) -> dict[str, jwt.PyJWK]:
        try:
            found = self._fetch(url)
            keys = {}
            for jwk in found.get("keys", []):
                if jwk.get("kty") == "RSA" and jwk.get("use", "sig") == "sig":
                    keys[str(jwk.get("kid", ""))] = jwt.PyJWK(
                        jwk, algorithm=jwk.get("alg", "RS256")
                    )
        except (httpx.HTTPError, ValueError, AttributeError, jwt.PyJWTError) as error:
            raise Refused(f"the platform's keys at {url} could not be read: {error}") from None
        self._sets[url] = (time.monotonic(), keys)
        return keys

    def key(self, url: str, kid: str | None) -> jwt.PyJWK:
        with self._lock:
            fetched, keys = self._sets.get(url, (0.0, {}))
            stale = time.monotonic() - fetched > JWKS_MAX_AGE_S
            if stale or not _pick(keys, kid):
                keys = self._refresh(url)
        key = _pick(keys, kid)
        if key is None:
            raise Refused(f"the id token is signed by a key the platform does not publish ({kid})")
        return key


def _pick(keys: dict[str, jwt.PyJWK], kid: str | None) -> jwt.PyJWK | None:
    if kid is None:
        return next(iter(keys.values())) if len(keys) == 1 else None
    return keys.get(kid)


def _audiences(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [str(a) for a in value]
    return []


def verify_id_token(
    token: str,
    *,
    find_platform: Callable[[str, list[str]], Platform | None],
    keys: PlatformKeys,
    nonce: str,
    use_nonce: Callable[[str], None],
) -> Launch:
    """The launch an id token carries, once every claim has been checked.

    Args:
        token: the `id_token` the platform posted.
        find_platform: the registered platform for an issuer and the token's audiences, if any.
        keys: the cache of platforms' published keys.
        nonce: the nonce this browser's login sent to the platform.
        use_nonce: marks a nonce seen, refusing one seen before.

    Returns:
        The verified launch.

    Raises:
        Refused: with the reason, for anything a tool must not accept.
    """
    try:
        header = jwt.get_unverified_header(token)
        unverified = jwt.decode(token, options={"verify_signature": False})
    except jwt.PyJWTError:
        raise Refused("the id_token is not a JSON Web Token") from None
    if header.get("alg") != "RS256":
        raise Refused(f"the id token is signed with {header.get('alg')!r}, not RS256")
    issuer = str(unverified.get("iss", ""))
    audiences = _audiences(unverified.get("aud"))
    platform = find_platform(issuer, audiences)
    if platform is None:
        raise Refused(
            f"no platform is registered with issuer {issuer!r} and client id {audiences!r}"
        )
    key = keys.key(platform.jwks_url, header.get("kid"))
    try:
        payload = jwt.decode(
            token,
            key,
            algorithms=["RS256"],
            audience=platform.client_id,
            issuer=platform.issuer,
            leeway=LEEWAY,
            options={"require": ["exp", "iat", "iss", "aud", "nonce"]},
        )
    except jwt.ExpiredSignatureError:
        raise Refused("the id token has expired") from None
    except jwt.ImmatureSignatureError:
        raise Refused("the id token is issued in the future") from None
    except jwt.InvalidAudienceError:
        raise Refused(f"the id token is not meant for client id {platform.client_id}") from None
    except jwt.InvalidSignatureError:
        raise Refused("the id token's signature does not verify with the platform's key") from None
    except jwt.PyJWTError as error:
        raise Refused(f"the id token is not valid: {error}") from None
    use_nonce(str(payload["nonce"]))
    return _launch(platform, payload, nonce)


def _launch(platform: Platform, payload: dict[str, Any], nonce: str) -> Launch:
    audiences = _audiences(payload.get("aud"))
    azp = payload.get("azp")
    if (len(audiences) > 1 or azp is not None) and azp != platform.client_id:
        raise Refused(f"the id token's azp {azp!r} is not client id {platform.client_id}")
    if payload.get("nonce") != nonce:
        raise Refused("the id token's nonce is not the one this browser's login sent")
    if payload.get(c.VERSION_CLAIM) != c.VERSION:
        raise Refused(f"LTI version {payload.get(c.VERSION_CLAIM)!r} is not {c.VERSION}")
    message_type = payload.get(c.MESSAGE_TYPE)
    if message_type not in c.MESSAGE_TYPES:
        raise Refused(f"message type {message_type!r} is not one this tool handles")
    deployment = str(payload.get(c.DEPLOYMENT_ID, ""))
    if deployment not in platform.deployments:
        raise Refused(f"deployment {deployment!r} is not registered for {platform.issuer}")
    roles = payload.get(c.ROLES)
    if not isinstance(roles, list):
        raise Refused("the id token has no roles claim")
    if not payload.get("sub"):
        raise Refused("the launch names no user (sub)")
    link = _dict(payload.get(c.RESOURCE_LINK))
    if message_type == c.RESOURCE_LINK_REQUEST and not link.get("id"):
        raise Refused("the launch names no resource link")
    settings = _dict(payload.get(c.DL_SETTINGS))
    if message_type == c.DEEP_LINKING_REQUEST and not settings.get("deep_link_return_url"):
        raise Refused("the deep linking request names no return URL")
    context = _dict(payload.get(c.CONTEXT))
    lis = _dict(payload.get(c.LIS))
    return Launch(
        platform=platform,
        message_type=str(message_type),
        deployment_id=deployment,
        sub=str(payload.get("sub", "")),
        roles=tuple(str(r) for r in roles),
        context_id=str(context.get("id", "")),
        context_title=str(context.get("title", "")),
        resource_link_id=str(link.get("id", "")),
        custom={str(k): str(v) for k, v in _dict(payload.get(c.CUSTOM)).items()},
        name=str(payload.get("name", "")),
        email=str(payload.get("email", "")),
        sourcedid=str(lis.get("person_sourcedid", "")),
        ags=_dict(payload.get(c.AGS_ENDPOINT)),
        memberships_url=str(_dict(payload.get(c.NRPS_SERVICE)).get("context_memberships_url", "")),
        deep_linking=settings,
    )


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}
