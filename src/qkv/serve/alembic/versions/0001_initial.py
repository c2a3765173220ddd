"""The first schema: people, tokens, sessions, hand-ins and their files, jobs, adjustments and
the audit log.

Revision ID: 0001
Revises:
"""

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "students",
        sa.Column("id", sa.String(100), primary_key=True),
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("email", sa.String(200), nullable=False),
        sa.Column("created", sa.Float, nullable=False),
    )
    op.create_table(
        "staff",
        sa.Column("name", sa.String(100), primary_key=True),
        sa.Column("created", sa.Float, nullable=False),
        sa.Column("revoked", sa.Float, nullable=True),
    )
    op.create_table(
        "tokens",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("digest", sa.String(64), nullable=False, unique=True),
        sa.Column("kind", sa.String(10), nullable=False),
        sa.Column("subject", sa.String(100), nullable=False, index=True),
        sa.Column("created", sa.Float, nullable=False),
        sa.Column("revoked", sa.Float, nullable=True),
    )
    op.create_table(
        "sessions",
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column("token_id", sa.Integer, sa.ForeignKey("tokens.id"), nullable=False, index=True),
        sa.Column("csrf", sa.String(64), nullable=False),
        sa.Column("created", sa.Float, nullable=False),
        sa.Column("expires", sa.Float, nullable=False),
    )
    op.create_table(
        "submissions",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("student", sa.String(100), nullable=False),
        sa.Column("assignment", sa.String(100), nullable=False),
        sa.Column("created", sa.Float, nullable=False),
        sa.Column("submitted_at", sa.String(32), nullable=False),
        sa.Column("status", sa.String(10), nullable=False),
        sa.Column("score", sa.Float, nullable=True),
        sa.Column("result", sa.Text, nullable=True),
        sa.Column("page", sa.Text, nullable=True),
        sa.Column("error", sa.Text, nullable=False),
        sa.Column("graded", sa.Float, nullable=True),
        sa.Column("gradings", sa.Integer, nullable=False),
    )
    op.create_index("ix_submissions_student", "submissions", ["student", "assignment", "created"])
    op.create_table(
        "submission_files",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column(
            "submission_id",
            sa.String(32),
            sa.ForeignKey("submissions.id"),
            nullable=False,
            index=True,
        ),
        sa.Column("name", sa.String(300), nullable=False),
        sa.Column("digest", sa.String(64), nullable=False),
        sa.Column("size", sa.Integer, nullable=False),
    )
    op.create_table(
        "jobs",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column(
            "submission_id",
            sa.String(32),
            sa.ForeignKey("submissions.id"),
            nullable=False,
            index=True,
        ),
        sa.Column("state", sa.String(10), nullable=False),
        sa.Column("owner", sa.String(200), nullable=False),
        sa.Column("lease_until", sa.Float, nullable=False),
        sa.Column("attempts", sa.Integer, nullable=False),
        sa.Column("created", sa.Float, nullable=False),
        sa.Column("finished", sa.Float, nullable=True),
    )
    op.create_index("ix_jobs_state", "jobs", ["state", "id"])
    op.create_table(
        "adjustments",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("student", sa.String(100), nullable=False),
        sa.Column("assignment", sa.String(100), nullable=False),
        sa.Column("part", sa.String(100), nullable=False),
        sa.Column("points", sa.String(20), nullable=False),
        sa.Column("comment", sa.Text, nullable=False),
        sa.Column("actor", sa.String(100), nullable=False),
        sa.Column("at", sa.Float, nullable=False),
    )
    op.create_table(
        "audit",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("at", sa.Float, nullable=False),
        sa.Column("actor", sa.String(100), nullable=False),
        sa.Column("action", sa.String(40), nullable=False),
        sa.Column("detail", sa.Text, nullable=False),
    )


def downgrade() -> None:
    for table in (
        "audit",
        "adjustments",
        "jobs",
        "submission_files",
        "submissions",
        "sessions",
        "tokens",
        "staff",
        "students",
    ):
        op.drop_table(table)
