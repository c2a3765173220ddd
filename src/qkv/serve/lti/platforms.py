"""Registered platforms and their deployments: `qkv serve lti add-platform`, and finding one again."""

from __future__ import annotations

import time

from sqlalchemy import select
from sqlalchemy.orm import Session as DbSession

from qkv.errors import QkvError
from qkv.serve.lti.models import LtiDeployment, LtiPlatform
from qkv.serve.lti.verify import Platform


def _url(option: str, value: str) -> str:
    if not value.startswith(("https://", "http://")):
        raise QkvError(f"{option} {value!r}: not an http(s) URL")
    return value


def add_platform(
    db: DbSession,
    *,
    issuer: str,
    client_id: str,
    deployment_id: str,
    auth_login_url: str,
    auth_token_url: str,
    jwks_url: str,
) -> tuple[LtiPlatform, bool]:
    """Registers a platform's client and deployment, or updates its URLs; (row, whether new).

    Args:
        db: an open session.
        issuer: the platform's `iss`.
        client_id: the client id the platform gave this tool.
        deployment_id: a deployment of the tool on that client (several may be added).
        auth_login_url: the platform's OIDC authorisation endpoint.
        auth_token_url: its OAuth 2 token endpoint.
        jwks_url: where it publishes its keys.

    Returns:
        The platform's row, and True when the platform was not registered before.
    """
    for option, value in (("--issuer", issuer), ("--client-id", client_id)):
        if not value.strip():
            raise QkvError(f"{option}: empty")
    if not deployment_id.strip():
        raise QkvError("--deployment-id: empty")
    urls = {
        "auth_login_url": _url("--auth-login-url", auth_login_url),
        "auth_token_url": _url("--auth-token-url", auth_token_url),
        "jwks_url": _url("--jwks-url", jwks_url),
    }
    row = db.scalar(
        select(LtiPlatform).where(LtiPlatform.issuer == issuer, LtiPlatform.client_id == client_id)
    )
    new = row is None
    if row is None:
        row = LtiPlatform(issuer=issuer, client_id=client_id, created=time.time(), **urls)
        db.add(row)
        db.flush()
    else:
        for name, value in urls.items():
            setattr(row, name, value)
    known = db.scalar(
        select(LtiDeployment).where(
            LtiDeployment.platform_id == row.id, LtiDeployment.deployment_id == deployment_id
        )
    )
    if known is None:
        db.add(LtiDeployment(platform_id=row.id, deployment_id=deployment_id))
    return row, new


def as_platform(db: DbSession, row: LtiPlatform) -> Platform:
    deployments = db.scalars(
        select(LtiDeployment.deployment_id).where(LtiDeployment.platform_id == row.id)
    )
    return Platform(
        id=row.id,
        issuer=row.issuer,
        client_id=row.client_id,
        auth_login_url=row.auth_login_url,
        auth_token_url=row.auth_token_url,
        jwks_url=row.jwks_url,
        deployments=frozenset(deployments),
    )


def find(db: DbSession, issuer: str, client_ids: list[str]) -> Platform | None:
    """The platform registered for `issuer` with one of `client_ids` (or its only one when none).

    Args:
        db: an open session.
        issuer: the `iss` a login or token names.
        client_ids: the client ids it names (its `aud`, or the login's `client_id`).

    Returns:
        The platform, or None when none or several match.
    """
    rows = list(db.scalars(select(LtiPlatform).where(LtiPlatform.issuer == issuer)))
    if client_ids:
        rows = [r for r in rows if r.client_id in client_ids]
    return as_platform(db, rows[0]) if len(rows) == 1 else None


def by_id(db: DbSession, platform_id: int) -> Platform:
    row = db.get(LtiPlatform, platform_id)
    if row is None:
        raise QkvError(f"no LTI platform with id {platform_id}")
    return as_platform(db, row)
