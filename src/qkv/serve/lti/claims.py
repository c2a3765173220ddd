"""The names LTI 1.3 gives its claims, roles, scopes and media types: one owner for every URI."""

from __future__ import annotations

VERSION = "1.3.0"

_LTI = "https://purl.imsglobal.org/spec/lti/claim/"
MESSAGE_TYPE = _LTI + "message_type"
VERSION_CLAIM = _LTI + "version"
DEPLOYMENT_ID = _LTI + "deployment_id"
TARGET_LINK_URI = _LTI + "target_link_uri"
RESOURCE_LINK = _LTI + "resource_link"
ROLES = _LTI + "roles"
CONTEXT = _LTI + "context"
CUSTOM = _LTI + "custom"
LIS = _LTI + "lis"

AGS_ENDPOINT = "https://purl.imsglobal.org/spec/lti-ags/claim/endpoint"
NRPS_SERVICE = "https://purl.imsglobal.org/spec/lti-nrps/claim/namesroleservice"

_DL = "https://purl.imsglobal.org/spec/lti-dl/claim/"
DL_SETTINGS = _DL + "deep_linking_settings"
DL_CONTENT_ITEMS = _DL + "content_items"
DL_DATA = _DL + "data"
DL_MSG = _DL + "msg"

RESOURCE_LINK_REQUEST = "LtiResourceLinkRequest"
DEEP_LINKING_REQUEST = "LtiDeepLinkingRequest"
DEEP_LINKING_RESPONSE = "LtiDeepLinkingResponse"
MESSAGE_TYPES = (RESOURCE_LINK_REQUEST, DEEP_LINKING_REQUEST)

SCOPE_LINEITEM = "https://purl.imsglobal.org/spec/lti-ags/scope/lineitem"
SCOPE_LINEITEM_READONLY = "https://purl.imsglobal.org/spec/lti-ags/scope/lineitem.readonly"
SCOPE_RESULT_READONLY = "https://purl.imsglobal.org/spec/lti-ags/scope/result.readonly"
SCOPE_SCORE = "https://purl.imsglobal.org/spec/lti-ags/scope/score"
SCOPE_MEMBERSHIPS = "https://purl.imsglobal.org/spec/lti-nrps/scope/contextmembership.readonly"
SCOPES = (
    SCOPE_LINEITEM,
    SCOPE_LINEITEM_READONLY,
    SCOPE_RESULT_READONLY,
    SCOPE_SCORE,
    SCOPE_MEMBERSHIPS,
)

LINEITEM_MEDIA = "application/vnd.ims.lis.v2.lineitem+json"
LINEITEMS_MEDIA = "application/vnd.ims.lis.v2.lineitemcontainer+json"
SCORE_MEDIA = "application/vnd.ims.lis.v1.score+json"
MEMBERSHIPS_MEDIA = "application/vnd.ims.lti-nrps.v2.membershipcontainer+json"

CLIENT_ASSERTION_TYPE = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"

# Context roles only: Canvas also sends institution roles, and a teacher taking a course is a learner.
_MEMBERSHIP = "http://purl.imsglobal.org/vocab/lis/v2/membership"
STAFF_ROLES = frozenset(
    {
        f"{_MEMBERSHIP}#Instructor",
        f"{_MEMBERSHIP}#TeachingAssistant",
        f"{_MEMBERSHIP}/Instructor#TeachingAssistant",
        f"{_MEMBERSHIP}#Administrator",
        f"{_MEMBERSHIP}#ContentDeveloper",
        "Instructor",
        "TeachingAssistant",
    }
)
LEARNER_ROLES = frozenset({f"{_MEMBERSHIP}#Learner", "Learner"})


def is_staff(roles: list[str]) -> bool:
    return any(role in STAFF_ROLES for role in roles)


def is_learner(roles: list[str]) -> bool:
    return any(
        role in LEARNER_ROLES or role.startswith(f"{_MEMBERSHIP}/Learner#") for role in roles
    )
