"""Calling a platform's services: OAuth 2 tokens, AGS line items and scores, NRPS memberships.

A token comes from the platform's token endpoint for a JWT client assertion signed by the tool's
key (client credentials, RFC 7523) and is kept until shortly before it expires. Any failure of a
call (an error status, a timeout, a reply that is not the JSON asked for) is a ServiceError: the
caller keeps what it wanted to send and tries again later.
"""

from __future__ import annotations

import secrets
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import httpx

from qkv.serve.lti import claims as c
from qkv.serve.lti.keys import ToolKey
from qkv.serve.lti.verify import Platform

TIMEOUT_S = 5.0
TOKEN_MARGIN_S = 30.0  # a token this close to its expiry is asked for again
MAX_PAGES = 100


class ServiceError(Exception):
    """A platform's service did not do what was asked; the message says what happened."""

    def __init__(self, message: str, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status  # the HTTP status, or None when no answer came

    @property
    def platform_down(self) -> bool:
        """No answer, a server error or "slow down": wait for the platform, not for this call."""
        return self.status is None or self.status >= 500 or self.status in (401, 408, 429)


def with_query(url: str, **params: str) -> str:
    parts = urlsplit(url)
    query = [*parse_qsl(parts.query), *params.items()]
    return urlunsplit(parts._replace(query=urlencode(query)))


def scores_url(lineitem: str) -> str:
    """AGS: a line item's scores are at its URL's path plus `/scores`, its query kept."""
    parts = urlsplit(lineitem)
    return urlunsplit(parts._replace(path=parts.path.rstrip("/") + "/scores"))


class Services:
    """One process's client for every platform: its tokens are shared by all its calls."""

    def __init__(self, signing_key: Callable[[], ToolKey], timeout: float = TIMEOUT_S) -> None:
        self._signing_key = signing_key
        self._timeout = timeout
        self._tokens: dict[tuple[str, str, str], tuple[str, float]] = {}
        self._lock = threading.Lock()

    def _call(self, method: str, url: str, **kwargs: Any) -> httpx.Response:
        try:
            response = httpx.request(method, url, timeout=self._timeout, **kwargs)
        except httpx.HTTPError as error:
            raise ServiceError(f"{method} {url}: {type(error).__name__}: {error}") from None
        if response.status_code >= 400:
            text = response.text.strip().splitlines()[0][:200] if response.text.strip() else ""
            message = f"{method} {url}: {response.status_code} {text}".rstrip()
            raise ServiceError(message, response.status_code)
        return response

    def _json(self, response: httpx.Response) -> Any:
        try:
            return response.json()
        except ValueError:
            raise ServiceError(f"{response.request.url}: the reply is not JSON") from None

    def token(self, platform: Platform, scopes: tuple[str, ...]) -> str:
        """An access token for `scopes`, from the cache while it lasts."""
        key = (platform.auth_token_url, platform.client_id, " ".join(sorted(scopes)))
        with self._lock:
            cached = self._tokens.get(key)
            if cached and cached[1] - TOKEN_MARGIN_S > time.time():
                return cached[0]
        now = int(time.time())
        assertion = self._signing_key().sign(
            {
                "iss": platform.client_id,
                "sub": platform.client_id,
                "aud": platform.auth_token_url,
                "iat": now,
                "exp": now + 300,
                "jti": secrets.token_urlsafe(16),
            }
        )
        form = {
            "grant_type": "client_credentials",
            "client_assertion_type": c.CLIENT_ASSERTION_TYPE,
            "client_assertion": assertion,
            "scope": key[2],
        }
        reply = self._json(self._call("POST", platform.auth_token_url, data=form))
        if not isinstance(reply, dict) or not isinstance(reply.get("access_token"), str):
            raise ServiceError(f"{platform.auth_token_url}: the reply holds no access_token")
        expires = float(reply.get("expires_in", 3600) or 3600)
        with self._lock:
            self._tokens[key] = (reply["access_token"], time.time() + expires)
        return str(reply["access_token"])

    def forget_tokens(self) -> None:
        with self._lock:
            self._tokens.clear()

    def _headers(self, platform: Platform, scopes: tuple[str, ...], accept: str) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token(platform, scopes)}", "Accept": accept}

    def _pages(self, url: str, headers: dict[str, str]) -> Iterator[Any]:
        for _ in range(MAX_PAGES):
            response = self._call("GET", url, headers=headers)
            yield self._json(response)
            following = response.links.get("next", {}).get("url")
            if not following:
                return
            url = following

    def find_or_create_lineitem(
        self,
        platform: Platform,
        lineitems_url: str,
        *,
        resource_id: str,
        label: str,
        maximum: float,
    ) -> str:
        """The URL of the line item whose resourceId is `resource_id`, made if there is none.

        Args:
            platform: the platform the line items are on.
            lineitems_url: the context's line items container (the launch's AGS claim).
            resource_id: the tool's id for what is graded (the assignment's id).
            label: the gradebook column's title, for a line item made here.
            maximum: its scoreMaximum.

        Returns:
            The line item's id, its URL.

        Raises:
            ServiceError: the platform did not answer as AGS says.
        """
        scopes = (c.SCOPE_LINEITEM,)
        headers = self._headers(platform, scopes, c.LINEITEMS_MEDIA)
        for page in self._pages(with_query(lineitems_url, resource_id=resource_id), headers):
            for item in page if isinstance(page, list) else []:
                if (
                    isinstance(item, dict)
                    and item.get("resourceId") == resource_id
                    and item.get("id")
                ):
                    return str(item["id"])
        body = {"scoreMaximum": maximum, "label": label, "resourceId": resource_id}
        headers = {
            **self._headers(platform, scopes, c.LINEITEM_MEDIA),
            "Content-Type": c.LINEITEM_MEDIA,
        }
        made = self._json(self._call("POST", lineitems_url, json=body, headers=headers))
        if not isinstance(made, dict) or not made.get("id"):
            raise ServiceError(f"{lineitems_url}: the new line item has no id")
        return str(made["id"])

    def post_score(self, platform: Platform, lineitem: str, score: dict[str, Any]) -> int:
        """Posts one score to a line item.

        Args:
            platform: the platform.
            lineitem: the line item's URL.
            score: the AGS score.

        Returns:
            The platform's status code.
        """
        headers = {
            **self._headers(platform, (c.SCOPE_SCORE,), "application/json"),
            "Content-Type": c.SCORE_MEDIA,
        }
        return self._call("POST", scores_url(lineitem), json=score, headers=headers).status_code

    def memberships(self, platform: Platform, url: str) -> list[dict[str, Any]]:
        """Every member of a context, all pages of its NRPS membership container."""
        headers = self._headers(platform, (c.SCOPE_MEMBERSHIPS,), c.MEMBERSHIPS_MEDIA)
        members: list[dict[str, Any]] = []
        for page in self._pages(url, headers):
            found = page.get("members") if isinstance(page, dict) else None
            if not isinstance(found, list):
                raise ServiceError(f"{url}: the reply holds no members")
            members += [m for m in found if isinstance(m, dict)]
        return members
