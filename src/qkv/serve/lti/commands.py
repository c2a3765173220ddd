"""`qkv serve lti`: add-platform, sync, roster and rotate-key; options parsed here.

Nothing of the extras is imported until a command runs, so `qkv --help` works without them.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

from qkv.errors import QkvError


def _open(args: argparse.Namespace, settings_of: Callable[[Any], Any]) -> Any:
    from qkv.serve import extra as serve_extra  # noqa: PLC0415 - the extras only once a command runs
    from qkv.serve.lti import extra  # noqa: PLC0415 - the extras, only once a command runs

    serve_extra.require()
    extra.require()
    from qkv.serve.lti import schema  # noqa: PLC0415 - the extras, only once a command runs
    from qkv.serve.service import Service  # noqa: PLC0415 - the extras, only once a command runs

    service = Service.open(settings_of(args))
    schema.migrate(service.engine)
    return service


def _database(args: argparse.Namespace, settings_of: Callable[[Any], Any]) -> Any:
    """The migrated database's session maker, for the commands that need no course."""
    from qkv.serve import db  # noqa: PLC0415 - the extras only once a command runs
    from qkv.serve import extra as serve_extra  # noqa: PLC0415 - the extras, only once a command runs
    from qkv.serve.lti import extra  # noqa: PLC0415 - the extras, only once a command runs

    serve_extra.require()
    extra.require()
    from qkv.serve.lti import schema  # noqa: PLC0415 - the extras, only once a command runs

    engine, sessions = db.open_database(settings_of(args).database_url)
    schema.migrate(engine)
    return sessions


def _runtime(service: Any) -> Any:
    from qkv.serve.lti.grades import counted_grades  # noqa: PLC0415 - the extras
    from qkv.serve.lti.runtime import Runtime  # noqa: PLC0415 - the extras, only once a command runs

    return Runtime(service, counted_grades(service))


def cmd_add_platform(args: argparse.Namespace, settings_of: Callable[[Any], Any]) -> int:
    from qkv.serve.lti import keys, platforms  # noqa: PLC0415 - the extras, only once a command runs

    sessions = _database(args, settings_of)
    with sessions.begin() as db:
        row, new = platforms.add_platform(
            db,
            issuer=args.issuer,
            client_id=args.client_id,
            deployment_id=args.deployment_id,
            auth_login_url=args.auth_login_url,
            auth_token_url=args.auth_token_url,
            jwks_url=args.jwks_url,
        )
        what = "registered" if new else "updated"
        print(f"platform {row.issuer} (client id {row.client_id}) {what}, "
              f"deployment {args.deployment_id}")  # fmt: skip
    key = keys.keyring(settings_of(args).data).current
    print(f"the tool's key {key.kid} is published at /lti/jwks")
    return 0


def cmd_sync(args: argparse.Namespace, settings_of: Callable[[Any], Any]) -> int:
    service = _open(args, settings_of)
    if args.assignment and args.assignment not in {a.id for a in service.course.assignments}:
        raise QkvError(f"--assignment {args.assignment}: not an assignment of this course")
    outcome = _runtime(service).round(force=True, assignment=args.assignment)
    print(outcome.line())
    return 0 if outcome.waiting == 0 else 1


def cmd_roster(args: argparse.Namespace, settings_of: Callable[[Any], Any]) -> int:
    from qkv.serve.lti.roster import import_memberships  # noqa: PLC0415 - the extras, only once a command runs
    from qkv.serve.lti.services import ServiceError  # noqa: PLC0415 - the extras, only once a command runs

    service = _open(args, settings_of)
    runtime = _runtime(service)
    try:
        imported = import_memberships(service, runtime.services, args.assignment)
    except ServiceError as error:
        raise QkvError(f"the LMS did not give the memberships: {error}") from None
    print(imported.line(args.assignment))
    runtime.round(force=True, assignment=args.assignment)
    return 0


def cmd_rotate_key(args: argparse.Namespace, settings_of: Callable[[Any], Any]) -> int:
    from qkv.serve.lti import extra  # noqa: PLC0415 - the extra only once a command runs

    extra.require()
    from qkv.serve.lti import keys  # noqa: PLC0415 - the extras, only once a command runs

    ring = keys.rotate(settings_of(args).data)
    print(f"the tool now signs with {ring.current.kid}; the old key stays published for a day")
    return 0


def add_commands(
    serve_sub: Any,
    data_options: Callable[..., None],
    settings_of: Callable[[Any], Any],
) -> None:
    """Adds `qkv serve lti ...` under `qkv serve`.

    Args:
        serve_sub: the subparsers of `qkv serve`.
        data_options: adds `--course`, `--data` and `--db` to a parser, as `qkv serve` has them.
        settings_of: the service's settings from parsed options.
    """
    p = serve_sub.add_parser("lti", help="LTI 1.3: platforms, grades back to the LMS, rosters")
    sub = p.add_subparsers(dest="lti_command", required=True)

    def command(name: str, run: Callable[..., int], help_text: str) -> argparse.ArgumentParser:
        q = sub.add_parser(name, help=help_text)
        data_options(q)
        q.set_defaults(func=lambda args: run(args, settings_of))
        return q

    q = command("add-platform", cmd_add_platform, "register an LMS (several may be)")
    for option, meaning in (
        ("--issuer", "the platform's issuer (iss), e.g. https://canvas.instructure.com"),
        ("--client-id", "the client id the LMS gave this tool (Canvas: the developer key's id)"),
        ("--deployment-id", "the deployment id of the tool in the LMS"),
        ("--auth-login-url", "the LMS's OIDC authorisation endpoint"),
        ("--auth-token-url", "the LMS's OAuth 2 token endpoint"),
        ("--jwks-url", "where the LMS publishes its keys"),
    ):
        q.add_argument(
            option,
            required=True,
            metavar=option.removeprefix("--").upper().replace("-", "_"),
            help=meaning,
        )
    q = command("sync", cmd_sync, "send the LMS every score still owed, now")
    q.add_argument("--assignment", metavar="A", help="only this assignment's scores")
    q = command("roster", cmd_roster, "read an assignment's LMS course members into the roster")
    q.add_argument("--assignment", metavar="A", required=True, help="the assignment")
    command("rotate-key", cmd_rotate_key, "sign with a new key; the old one stays published a day")
