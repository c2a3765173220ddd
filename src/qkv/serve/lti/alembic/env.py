"""Alembic's environment for the LTI tables, on the connection `qkv.serve.lti.schema` hands over."""

from __future__ import annotations

from alembic import context

from qkv.serve.lti.models import LtiBase

connection = context.config.attributes["connection"]
context.configure(
    connection=connection,
    target_metadata=LtiBase.metadata,
    render_as_batch=True,
    version_table="lti_alembic_version",
    include_name=lambda name, kind, _parent: kind != "table" or str(name).startswith("lti_"),
)
with context.begin_transaction():
    context.run_migrations()
