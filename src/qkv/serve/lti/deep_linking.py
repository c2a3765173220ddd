"""Deep Linking 2.0: the message that tells the platform which assignment a new link opens."""

from __future__ import annotations

import secrets
import time
from typing import Any

from qkv.course.config import Assignment
from qkv.results.gradebook import max_points
from qkv.serve.lti import claims as c
from qkv.serve.lti.keys import ToolKey
from qkv.serve.lti.verify import Platform


def content_item(assignment: Assignment, launch_url: str) -> dict[str, Any]:
    """An ltiResourceLink to `launch_url` with its line item: the assignment's points and title."""
    return {
        "type": "ltiResourceLink",
        "title": assignment.title,
        "url": launch_url,
        "custom": {"assignment": assignment.id},
        "lineItem": {
            "scoreMaximum": max_points(assignment),
            "label": assignment.title,
            "resourceId": assignment.id,
        },
    }


def response(
    key: ToolKey, platform: Platform, deployment_id: str, data: Any, items: list[dict[str, Any]]
) -> str:
    """The signed LtiDeepLinkingResponse (the JWT the browser posts to the return URL).

    Args:
        key: the tool's signing key.
        platform: the platform that asked.
        deployment_id: the deployment of the request.
        data: the request's `data` setting, returned as it came (None when there was none).
        items: the content items chosen.

    Returns:
        The compact JWT.
    """
    now = int(time.time())
    message: dict[str, Any] = {
        "iss": platform.client_id,
        "aud": platform.issuer,
        "azp": platform.client_id,
        "iat": now,
        "exp": now + 600,
        "nonce": secrets.token_urlsafe(16),
        c.DEPLOYMENT_ID: deployment_id,
        c.MESSAGE_TYPE: c.DEEP_LINKING_RESPONSE,
        c.VERSION_CLAIM: c.VERSION,
        c.DL_CONTENT_ITEMS: items,
    }
    if data is not None:
        message[c.DL_DATA] = data
    return key.sign(message)
