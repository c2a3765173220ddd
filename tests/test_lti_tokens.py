"""LTI's JOSE side without a browser: the tool's keys, launch verification, logins, service calls."""

from __future__ import annotations

import stat
import time
from datetime import UTC, datetime, timedelta

import jwt
import pytest
from cryptography.hazmat.primitives.asymmetric import rsa
from sqlalchemy import create_engine
from sqlalchemy.orm import sessionmaker
from starlette.applications import Starlette
from starlette.responses import JSONResponse
from starlette.routing import Route

from lti_platform import INSTRUCTOR, LEARNER, Served, SimulatedPlatform, start
from qkv.serve.lti import keys, login, platforms, schema
from qkv.serve.lti.services import ServiceError, Services, scores_url
from qkv.serve.lti.verify import Platform, PlatformKeys, Refused, verify_id_token


def test_the_tool_key_is_made_once_and_kept_private(tmp_path):
    first = keys.keyring(tmp_path)
    again = keys.keyring(tmp_path)
    assert first.current.kid == again.current.kid
    pem = tmp_path / "lti" / "keys" / f"{first.current.kid}.pem"
    assert stat.S_IMODE(pem.stat().st_mode) == 0o600
    (published,) = first.jwks()["keys"]
    assert published["kid"] == first.current.kid and published["kty"] == "RSA"
    assert "d" not in published and "p" not in published  # the public half only


def test_a_rotated_key_stays_published_for_a_day_then_goes(tmp_path):
    now = datetime(2026, 12, 1, tzinfo=UTC)
    old = keys.keyring(tmp_path, now=now).current
    rotated = keys.rotate(tmp_path, now=now)
    assert rotated.current.kid != old.kid
    assert {k["kid"] for k in rotated.jwks()["keys"]} == {old.kid, rotated.current.kid}
    token = rotated.current.sign({"x": 1})
    assert jwt.get_unverified_header(token)["kid"] == rotated.current.kid
    later = keys.keyring(tmp_path, now=now + timedelta(hours=23))
    assert {k["kid"] for k in later.jwks()["keys"]} == {old.kid, rotated.current.kid}
    gone = keys.keyring(tmp_path, now=now + timedelta(days=1, minutes=1))
    assert [k["kid"] for k in gone.jwks()["keys"]] == [rotated.current.kid]


@pytest.fixture
def lms():
    platform = SimulatedPlatform(url="https://lms.example")
    platform.add_user("s-1", "Ada", "ada@example.edu", LEARNER)
    platform.add_user("t-1", "Tess", "tess@example.edu", INSTRUCTOR)
    platform.add_link("link-1", {"assignment": "attention"})
    return platform


def _registered(lms: SimulatedPlatform) -> Platform:
    return Platform(
        id=1,
        issuer=lms.issuer,
        client_id=lms.client_id,
        auth_login_url=f"{lms.url}/auth",
        auth_token_url=f"{lms.url}/token",
        jwks_url=f"{lms.url}/jwks",
        deployments=frozenset({lms.deployment_id}),
    )


def _verify(lms, token, *, nonce="n-1", seen=None, fetch=None):
    platform = _registered(lms)
    seen = set() if seen is None else seen

    def use(n):
        if n in seen:
            raise Refused("the id token's nonce was already used")
        seen.add(n)

    def find(iss, auds):
        return platform if iss == platform.issuer and platform.client_id in auds else None

    return verify_id_token(
        token,
        find_platform=find,
        keys=PlatformKeys(fetch or (lambda _url: lms.jwks())),
        nonce=nonce,
        use_nonce=use,
    )


def test_a_launch_signed_by_the_platform_is_read_with_its_roles_and_custom_fields(lms):
    launch = _verify(lms, lms.sign(lms.claims("s-1", "link-1", "n-1")))
    assert (launch.sub, launch.learner, launch.staff) == ("s-1", True, False)
    assert launch.custom == {"assignment": "attention"}
    assert launch.resource_link_id == "link-1" and launch.email == "ada@example.edu"
    assert launch.ags["lineitems"].endswith("/line_items")
    teacher = _verify(lms, lms.sign(lms.claims("t-1", "link-1", "n-1")))
    assert teacher.staff and not teacher.learner


OTHER_KEY = rsa.generate_private_key(public_exponent=65537, key_size=2048)
REFUSALS = {
    "another key's signature": ({}, OTHER_KEY, "signature"),
    "wrong aud": ({"aud": "someone-else", "azp": None}, None, "no platform is registered"),
    "aud list without azp": ({"aud": ["qkv-client", "x"], "azp": None}, None, "azp"),
    "expired": ({"exp": int(time.time()) - 600, "iat": int(time.time()) - 900}, None, "expired"),
    "issued in the future": ({"iat": int(time.time()) + 900}, None, "future"),
    "unregistered deployment": (
        {"https://purl.imsglobal.org/spec/lti/claim/deployment_id": "d-9"},
        None,
        "deployment 'd-9' is not registered",
    ),
    "another login's nonce": ({"nonce": "n-2"}, None, "nonce is not the one"),
    "LTI 1.1": ({"https://purl.imsglobal.org/spec/lti/claim/version": "1.1"}, None, "version"),
    "unknown message": (
        {"https://purl.imsglobal.org/spec/lti/claim/message_type": "X"},
        None,
        "message type",
    ),
    "no user": ({"sub": None}, None, "no user"),
}


@pytest.mark.parametrize("case", REFUSALS, ids=list(REFUSALS))
def test_a_launch_that_fails_a_check_is_refused_saying_which(lms, case):
    changes, key, reason = REFUSALS[case]
    token = lms.sign(lms.claims("s-1", "link-1", "n-1", changes), key=key)
    with pytest.raises(Refused, match=reason):
        _verify(lms, token)


def test_a_replayed_nonce_is_refused(lms):
    seen: set[str] = set()
    token = lms.sign(lms.claims("s-1", "link-1", "n-1"))
    _verify(lms, token, seen=seen)
    with pytest.raises(Refused, match="already used"):
        _verify(lms, token, seen=seen)


def test_an_unknown_key_id_fetches_the_platform_keys_again(lms):
    fetched = []

    def fetch(url):
        fetched.append(url)
        return lms.jwks()

    platform_keys = PlatformKeys(fetch)
    platform_keys.key(f"{lms.url}/jwks", lms.kid)
    platform_keys.key(f"{lms.url}/jwks", lms.kid)
    assert len(fetched) == 1  # cached
    lms.key, lms.kid = OTHER_KEY, "platform-key-2"  # the platform rotates its key
    assert platform_keys.key(f"{lms.url}/jwks", "platform-key-2").key_id == "platform-key-2"
    assert len(fetched) == 2
    with pytest.raises(Refused, match="does not publish"):
        platform_keys.key(f"{lms.url}/jwks", "never-published")


@pytest.fixture
def db(tmp_path):
    engine = create_engine(f"sqlite:///{tmp_path / 'lti.sqlite3'}")
    schema.migrate(engine)
    schema.migrate(engine)  # a second start finds the schema current
    return sessionmaker(engine, expire_on_commit=False)


def _begin(s, params):
    find = lambda issuer, auds: platforms.find(s, issuer, auds)  # noqa: E731 - read at the call
    return login.begin(s, params, find_platform=find, launch_url="https://tool/lti/launch")


def test_a_login_redirects_to_the_platform_with_a_state_only_its_browser_can_use(db, lms):
    with db.begin() as s:
        platforms.add_platform(s, **_options(lms))
    params = {"iss": lms.issuer, "login_hint": "s-1", "lti_message_hint": "link-1",
              "target_link_uri": "https://tool/lti/launch", "client_id": lms.client_id}  # fmt: skip
    with db.begin() as s:
        found = _begin(s, params)
    assert found.url.startswith(f"{lms.url}/auth?")
    query = dict(x.split("=", 1) for x in found.url.split("?", 1)[1].split("&"))
    assert query["response_mode"] == "form_post" and query["prompt"] == "none"
    state, nonce = query["state"], query["nonce"]
    assert found.cookie == login.cookie_name(state)
    with db.begin() as s, pytest.raises(Refused, match="does not match this browser"):
        login.take(s, state, "another-browser's-secret")
    # The state is spent by the failed try, as by a good one.
    with db.begin() as s, pytest.raises(Refused, match="unknown or was already used"):
        login.take(s, state, found.secret)
    with db.begin() as s:
        again = _begin(s, params)
    with db.begin() as s:
        assert login.take(s, again.url.split("state=")[1].split("&")[0], again.secret) != nonce
    with db.begin() as s, pytest.raises(Refused, match="third-party cookies"):
        third = _begin(s, params)
        login.take(s, third.url.split("state=")[1].split("&")[0], None)


def test_a_login_from_an_unregistered_platform_or_deployment_is_refused(db, lms):
    with db.begin() as s:
        platforms.add_platform(s, **_options(lms))
    find = platforms.find
    with db.begin() as s:
        with pytest.raises(Refused, match="no platform"):
            login.begin(s, {"iss": "https://elsewhere", "login_hint": "x"},
                        find_platform=lambda i, a: find(s, i, a), launch_url="u")  # fmt: skip
        with pytest.raises(Refused, match="deployment"):
            login.begin(s, {"iss": lms.issuer, "login_hint": "x", "lti_deployment_id": "d-9"},
                        find_platform=lambda i, a: find(s, i, a), launch_url="u")  # fmt: skip


def test_a_nonce_is_accepted_once(db):
    with db.begin() as s:
        login.use_nonce(s, "n-1")
    with db.begin() as s, pytest.raises(Refused, match="already used"):
        login.use_nonce(s, "n-1")


def test_registering_a_platform_twice_adds_deployments_not_platforms(db, lms):
    with db.begin() as s:
        _, new = platforms.add_platform(s, **_options(lms))
        assert new
    with db.begin() as s:
        _, new = platforms.add_platform(s, **{**_options(lms), "deployment_id": "deployment-2"})
        assert not new
    with db.begin() as s:
        found = platforms.find(s, lms.issuer, [])
        assert found is not None
        assert found.deployments == {"deployment-1", "deployment-2"}


def _options(lms):
    return {"issuer": lms.issuer, "client_id": lms.client_id, "deployment_id": lms.deployment_id,
            "auth_login_url": f"{lms.url}/auth", "auth_token_url": f"{lms.url}/token",
            "jwks_url": f"{lms.url}/jwks"}  # fmt: skip


@pytest.fixture
def live(tmp_path):
    """The simulated platform served, and a stand-in tool publishing its JWKS."""
    ring = keys.keyring(tmp_path)
    tool = Served(Starlette(routes=[Route("/lti/jwks", lambda _: JSONResponse(ring.jwks()))]))
    lms, served = start(tool.url)
    lms.add_user("s-1", "Ada", "ada@example.edu", LEARNER)
    yield lms, Services(lambda: ring.current), _registered(lms)
    served.stop()
    tool.stop()


def test_scores_go_to_one_line_item_found_by_resource_id_with_a_cached_token(live):
    lms, services, platform = live
    lineitems = f"{lms.url}/api/lti/courses/{lms.context_id}/line_items"
    made = services.find_or_create_lineitem(
        platform, lineitems, resource_id="attention", label="Attention", maximum=120
    )
    found = services.find_or_create_lineitem(
        platform, lineitems, resource_id="attention", label="Attention", maximum=120
    )
    assert made == found and len(lms.lineitems) == 1
    assert lms.lineitems[made]["scoreMaximum"] == 120
    score = {"userId": "s-1", "scoreGiven": 96.0, "scoreMaximum": 120,
             "activityProgress": "Submitted", "gradingProgress": "FullyGraded",
             "timestamp": "2026-12-01T10:00:00.000Z"}  # fmt: skip
    services.post_score(platform, made, score)
    assert lms.final_scores() == {"Attention": {"s-1": 96.0}}
    assert lms.requests.count("token") <= 2  # one per set of scopes, not one per call


def test_a_platform_that_fails_or_hangs_is_a_service_error(live):
    lms, services, platform = live
    services._timeout = 0.5
    for failing in ("500", "timeout"):
        lms.failing = failing
        services.forget_tokens()
        with pytest.raises(ServiceError):
            services.token(platform, ("x",))


def test_the_scores_url_keeps_the_line_items_query():
    assert scores_url("https://lms/items/7?type=x") == "https://lms/items/7/scores?type=x"
    assert scores_url("https://lms/items/7/") == "https://lms/items/7/scores"
