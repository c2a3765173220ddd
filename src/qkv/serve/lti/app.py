"""Putting LTI into the service's app: its routes, its tables, and its runtime on `app.state.lti`."""

from __future__ import annotations

from starlette.applications import Starlette

from qkv.serve.lti import grades, schema, staff
from qkv.serve.lti.routes import ROUTES
from qkv.serve.lti.runtime import Runtime
from qkv.serve.service import Service


def install(app: Starlette, service: Service, counted: grades.CountedGrades) -> Runtime:
    """Adds the LTI endpoints to `app`; the runtime's sender starts with `runtime.start()`.

    Args:
        app: the service's Starlette app.
        service: the running service.
        counted: the service's counted grades, by assignment and student.

    Returns:
        The LTI runtime, also kept on `app.state.lti`.
    """
    schema.migrate(service.engine)
    runtime = Runtime(service, counted)
    app.state.lti = runtime
    app.state.staff_parts = [*getattr(app.state, "staff_parts", ()), staff.section]
    app.router.routes.extend([*ROUTES, *staff.ROUTES])
    return runtime
