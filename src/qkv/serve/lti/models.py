"""The LTI tables: platforms and deployments, logins in flight, who a launch was, line items, scores.

They have their own Alembic history (version table `lti_alembic_version`), migrated after the
service's, so the service's schema never depends on this extra. Times are seconds since the epoch.
"""

from __future__ import annotations

from sqlalchemy import Float, ForeignKey, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column


class LtiBase(DeclarativeBase):
    pass


class LtiPlatform(LtiBase):
    """A registered LMS: `qkv serve lti add-platform`; `retry_at` pauses posting to it after errors."""

    __tablename__ = "lti_platforms"
    __table_args__ = (UniqueConstraint("issuer", "client_id"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    issuer: Mapped[str] = mapped_column(String(500))
    client_id: Mapped[str] = mapped_column(String(200))
    auth_login_url: Mapped[str] = mapped_column(String(1000))
    auth_token_url: Mapped[str] = mapped_column(String(1000))
    jwks_url: Mapped[str] = mapped_column(String(1000))
    created: Mapped[float] = mapped_column(Float)
    failures: Mapped[int] = mapped_column(Integer, default=0)
    retry_at: Mapped[float] = mapped_column(Float, default=0.0)
    last_error: Mapped[str] = mapped_column(Text, default="")


class LtiDeployment(LtiBase):
    __tablename__ = "lti_deployments"
    __table_args__ = (UniqueConstraint("platform_id", "deployment_id"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    platform_id: Mapped[int] = mapped_column(ForeignKey("lti_platforms.id"))
    deployment_id: Mapped[str] = mapped_column(String(200))


class LtiLogin(LtiBase):
    """A login on its way through the platform: its state, the browser's cookie hash, its nonce."""

    __tablename__ = "lti_logins"

    state: Mapped[str] = mapped_column(String(64), primary_key=True)
    browser: Mapped[str] = mapped_column(String(64))
    nonce: Mapped[str] = mapped_column(String(64), unique=True)
    created: Mapped[float] = mapped_column(Float)
    params: Mapped[str] = mapped_column(Text, default="{}")  # to start it again in a new window


class LtiNonce(LtiBase):
    """A nonce an accepted id token carried: seen once, refused ever after."""

    __tablename__ = "lti_nonces"

    nonce: Mapped[str] = mapped_column(String(200), primary_key=True)
    used: Mapped[float] = mapped_column(Float)


class LtiUser(LtiBase):
    """A platform's user (`sub`) as the service knows them: a roster student or a staff member."""

    __tablename__ = "lti_users"
    __table_args__ = (UniqueConstraint("platform_id", "sub"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    platform_id: Mapped[int] = mapped_column(ForeignKey("lti_platforms.id"))
    sub: Mapped[str] = mapped_column(String(300))
    kind: Mapped[str] = mapped_column(String(10))  # student | staff
    subject: Mapped[str] = mapped_column(String(100))  # student id or staff name
    name: Mapped[str] = mapped_column(String(200), default="")
    email: Mapped[str] = mapped_column(String(200), default="")
    added: Mapped[bool] = mapped_column(default=False)  # not on the roster: added by a launch


class LtiLink(LtiBase):
    """An assignment as one platform context launches it, with the services that launch named."""

    __tablename__ = "lti_links"
    __table_args__ = (UniqueConstraint("platform_id", "context_id", "assignment"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    platform_id: Mapped[int] = mapped_column(ForeignKey("lti_platforms.id"))
    deployment_id: Mapped[str] = mapped_column(String(200))
    context_id: Mapped[str] = mapped_column(String(300))
    context_title: Mapped[str] = mapped_column(String(300), default="")
    assignment: Mapped[str] = mapped_column(String(100))
    resource_link_id: Mapped[str] = mapped_column(String(300), default="")
    lineitems_url: Mapped[str] = mapped_column(String(1000), default="")
    lineitem_url: Mapped[str] = mapped_column(String(1000), default="")
    memberships_url: Mapped[str] = mapped_column(String(1000), default="")
    scopes: Mapped[str] = mapped_column(Text, default="")
    tool_url: Mapped[str] = mapped_column(String(1000), default="")  # links in score comments
    updated: Mapped[float] = mapped_column(Float)


class LtiScore(LtiBase):
    """The score one student is owed on one line item: `version` counts changes, `sent` what arrived."""

    __tablename__ = "lti_scores"
    __table_args__ = (UniqueConstraint("link_id", "student"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    link_id: Mapped[int] = mapped_column(ForeignKey("lti_links.id"))
    student: Mapped[str] = mapped_column(String(100))
    user_sub: Mapped[str] = mapped_column(String(300))
    given: Mapped[float] = mapped_column(Float)
    maximum: Mapped[float] = mapped_column(Float)
    comment: Mapped[str] = mapped_column(Text, default="")
    changed: Mapped[float] = mapped_column(Float)
    version: Mapped[int] = mapped_column(Integer, default=1)
    sent_version: Mapped[int] = mapped_column(Integer, default=0)
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    retry_at: Mapped[float] = mapped_column(Float, default=0.0)  # after a refusal of this score
    last_error: Mapped[str] = mapped_column(Text, default="")


class LtiSent(LtiBase):
    """Every score post, answered or not: what the staff page shows as sent."""

    __tablename__ = "lti_sent"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    at: Mapped[float] = mapped_column(Float)
    link_id: Mapped[int] = mapped_column(ForeignKey("lti_links.id"))
    student: Mapped[str] = mapped_column(String(100))
    given: Mapped[float] = mapped_column(Float)
    maximum: Mapped[float] = mapped_column(Float)
    outcome: Mapped[str] = mapped_column(Text)  # "200" or the error, in one line


class LtiMember(LtiBase):
    """A student of a link's context (by a launch, or read from its memberships): owed its scores."""

    __tablename__ = "lti_members"
    __table_args__ = (UniqueConstraint("link_id", "student"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    link_id: Mapped[int] = mapped_column(ForeignKey("lti_links.id"))
    student: Mapped[str] = mapped_column(String(100))
    user_sub: Mapped[str] = mapped_column(String(300))
