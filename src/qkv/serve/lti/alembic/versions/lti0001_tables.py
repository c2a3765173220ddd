"""The LTI tables: platforms, deployments, logins, nonces, users, links, members, scores, posts.

Revision ID: lti0001
Revises:
"""

import sqlalchemy as sa
from alembic import op

revision = "lti0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "lti_logins",
        sa.Column("state", sa.String(length=64), nullable=False),
        sa.Column("browser", sa.String(length=64), nullable=False),
        sa.Column("nonce", sa.String(length=64), nullable=False),
        sa.Column("created", sa.Float(), nullable=False),
        sa.Column("params", sa.Text(), nullable=False),
        sa.PrimaryKeyConstraint("state"),
        sa.UniqueConstraint("nonce"),
    )
    op.create_table(
        "lti_nonces",
        sa.Column("nonce", sa.String(length=200), nullable=False),
        sa.Column("used", sa.Float(), nullable=False),
        sa.PrimaryKeyConstraint("nonce"),
    )
    op.create_table(
        "lti_platforms",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("issuer", sa.String(length=500), nullable=False),
        sa.Column("client_id", sa.String(length=200), nullable=False),
        sa.Column("auth_login_url", sa.String(length=1000), nullable=False),
        sa.Column("auth_token_url", sa.String(length=1000), nullable=False),
        sa.Column("jwks_url", sa.String(length=1000), nullable=False),
        sa.Column("created", sa.Float(), nullable=False),
        sa.Column("failures", sa.Integer(), nullable=False),
        sa.Column("retry_at", sa.Float(), nullable=False),
        sa.Column("last_error", sa.Text(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("issuer", "client_id"),
    )
    op.create_table(
        "lti_deployments",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("platform_id", sa.Integer(), nullable=False),
        sa.Column("deployment_id", sa.String(length=200), nullable=False),
        sa.ForeignKeyConstraint(
            ["platform_id"],
            ["lti_platforms.id"],
        ),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("platform_id", "deployment_id"),
    )
    op.create_table(
        "lti_links",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("platform_id", sa.Integer(), nullable=False),
        sa.Column("deployment_id", sa.String(length=200), nullable=False),
        sa.Column("context_id", sa.String(length=300), nullable=False),
        sa.Column("context_title", sa.String(length=300), nullable=False),
        sa.Column("assignment", sa.String(length=100), nullable=False),
        sa.Column("resource_link_id", sa.String(length=300), nullable=False),
        sa.Column("lineitems_url", sa.String(length=1000), nullable=False),
        sa.Column("lineitem_url", sa.String(length=1000), nullable=False),
        sa.Column("memberships_url", sa.String(length=1000), nullable=False),
        sa.Column("scopes", sa.Text(), nullable=False),
        sa.Column("tool_url", sa.String(length=1000), nullable=False),
        sa.Column("updated", sa.Float(), nullable=False),
        sa.ForeignKeyConstraint(
            ["platform_id"],
            ["lti_platforms.id"],
        ),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("platform_id", "context_id", "assignment"),
    )
    op.create_table(
        "lti_users",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("platform_id", sa.Integer(), nullable=False),
        sa.Column("sub", sa.String(length=300), nullable=False),
        sa.Column("kind", sa.String(length=10), nullable=False),
        sa.Column("subject", sa.String(length=100), nullable=False),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("email", sa.String(length=200), nullable=False),
        sa.Column("added", sa.Boolean(), nullable=False),
        sa.ForeignKeyConstraint(
            ["platform_id"],
            ["lti_platforms.id"],
        ),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("platform_id", "sub"),
    )
    op.create_table(
        "lti_members",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("link_id", sa.Integer(), nullable=False),
        sa.Column("student", sa.String(length=100), nullable=False),
        sa.Column("user_sub", sa.String(length=300), nullable=False),
        sa.ForeignKeyConstraint(
            ["link_id"],
            ["lti_links.id"],
        ),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("link_id", "student"),
    )
    op.create_table(
        "lti_scores",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("link_id", sa.Integer(), nullable=False),
        sa.Column("student", sa.String(length=100), nullable=False),
        sa.Column("user_sub", sa.String(length=300), nullable=False),
        sa.Column("given", sa.Float(), nullable=False),
        sa.Column("maximum", sa.Float(), nullable=False),
        sa.Column("comment", sa.Text(), nullable=False),
        sa.Column("changed", sa.Float(), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("sent_version", sa.Integer(), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("retry_at", sa.Float(), nullable=False),
        sa.Column("last_error", sa.Text(), nullable=False),
        sa.ForeignKeyConstraint(
            ["link_id"],
            ["lti_links.id"],
        ),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("link_id", "student"),
    )
    op.create_table(
        "lti_sent",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("at", sa.Float(), nullable=False),
        sa.Column("link_id", sa.Integer(), nullable=False),
        sa.Column("student", sa.String(length=100), nullable=False),
        sa.Column("given", sa.Float(), nullable=False),
        sa.Column("maximum", sa.Float(), nullable=False),
        sa.Column("outcome", sa.Text(), nullable=False),
        sa.ForeignKeyConstraint(
            ["link_id"],
            ["lti_links.id"],
        ),
        sa.PrimaryKeyConstraint("id"),
    )


def downgrade() -> None:
    op.drop_table("lti_sent")
    op.drop_table("lti_scores")
    op.drop_table("lti_members")
    op.drop_table("lti_users")
    op.drop_table("lti_links")
    op.drop_table("lti_deployments")
    op.drop_table("lti_platforms")
    op.drop_table("lti_nonces")
    op.drop_table("lti_logins")
