"""`qkv serve`: the submission service, and its invite, staff and backup subcommands.

Nothing of the `serve` extra is imported until a command runs, so `qkv --help` works without it.
"""

from __future__ import annotations

import argparse
import ipaddress
import os
from pathlib import Path

from qkv.errors import QkvError
from qkv.serve.lti import commands as lti_commands
from qkv.serve.settings import DEFAULT_DATA, Settings


def _data_options(p: argparse.ArgumentParser, *, course: bool = True) -> None:
    if course:
        p.add_argument(
            "--course", metavar="PATH", help="course.yaml or its folder (default: ./course.yaml)"
        )
    p.add_argument(
        "--data",
        metavar="DIR",
        default=DEFAULT_DATA,
        help=f"the service's database and uploads (default: ./{DEFAULT_DATA})",
    )
    p.add_argument(
        "--db",
        metavar="URL",
        help="a database instead of SQLite in --data: postgresql+psycopg://USER@HOST/NAME",
    )


def settings_of(args) -> Settings:
    return Settings(
        course=Path(args.course) if getattr(args, "course", None) else None,
        data=Path(args.data),
        db=args.db,
        host=getattr(args, "host", "127.0.0.1"),
        port=getattr(args, "port", 8000),
        jobs=getattr(args, "jobs", None) or os.cpu_count() or 1,
        executor=getattr(args, "executor", "local"),
        scheduler=getattr(args, "scheduler", None),
        forwarded_allow_ips=trusted_proxies(getattr(args, "trusted_proxy", None) or ["127.0.0.1"]),
    )


def trusted_proxies(given: list[str]) -> str:
    """The --trusted-proxy addresses as the proxy-headers middleware takes them (comma-separated),
    each checked to be an IP address or network: a typo would otherwise believe no proxy, or all."""
    for address in given:
        try:
            ipaddress.ip_network(address, strict=False)
        except ValueError:
            raise QkvError(
                f"--trusted-proxy {address!r} is not an IP address or network (e.g. 10.0.0.0/8)"
            ) from None
    return ",".join(given)


def _database(args):
    from qkv.serve import db, extra  # noqa: PLC0415 - the extra, only once a command runs

    extra.require()
    return db.open_database(settings_of(args).database_url)[1]


def cmd_serve(args) -> int:
    from qkv.serve import extra  # noqa: PLC0415 - loaded when the command runs

    if args.executor == "dask" and not args.scheduler:
        raise QkvError("--executor dask needs --scheduler ADDRESS (e.g. tcp://10.0.0.5:8786)")
    if args.executor == "local" and args.scheduler:
        raise QkvError("--scheduler is only for --executor dask")
    if args.jobs is not None and args.jobs < 1:
        raise QkvError(f"--jobs: must be at least 1, got {args.jobs}")
    extra.require()
    from qkv.serve import runner  # noqa: PLC0415 - loaded when the command runs

    return runner.run(settings_of(args))


def cmd_invite(args) -> int:
    from qkv.course import roster as roster_mod  # noqa: PLC0415 - loaded when the command runs
    from qkv.course.config import load_course  # noqa: PLC0415 - loaded when the command runs
    from qkv.serve import people  # noqa: PLC0415 - loaded when the command runs

    course = load_course(args.course)
    roster = roster_mod.load(course)
    if roster is None:
        raise QkvError("course.yaml has no roster: invitations go to the roster's students")
    if args.student and not args.rotate:
        raise QkvError("--student replaces one student's token: give --rotate with it")
    base = args.base_url or course.serve.url or "http://127.0.0.1:8000"
    with _database(args).begin() as session:
        rows = list(
            people.invite(session, roster, base_url=base, rotate=args.rotate, only=args.student)
        )
        count = people.write_links(Path(args.out), rows)
    print(f"wrote {args.out}: {count} sign-in links (tokens are shown only there; keep it private)")
    return 0


def cmd_staff_add(args) -> int:
    from qkv.serve import people  # noqa: PLC0415 - loaded when the command runs

    with _database(args).begin() as session:
        token = people.add_staff(session, args.name)
    print(f"staff member {args.name} added; sign in with /login?token=<token>. Their token:")
    print(token)
    return 0


def cmd_staff_revoke(args) -> int:
    from qkv.serve import people  # noqa: PLC0415 - loaded when the command runs

    with _database(args).begin() as session:
        count = people.revoke_staff(session, args.name)
    print(f"revoked {count} token(s) of {args.name}; their sessions are signed out")
    return 0


def cmd_backup(args) -> int:
    from qkv.serve import backup, extra  # noqa: PLC0415 - loaded when the command runs

    extra.require()
    path = backup.backup(settings_of(args), Path(args.out))
    print(f"wrote {path}")
    return 0


def add_parser(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    """`qkv serve` and its invite, staff and backup subcommands."""
    p = sub.add_parser("serve", help="the submission service: students hand in through a browser")
    _data_options(p)
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default: 127.0.0.1)")
    p.add_argument("--port", type=int, default=8000, help="port to listen on (default: 8000)")
    p.add_argument(
        "--jobs", type=int, metavar="N", help="grading processes (default: this machine's cores)"
    )
    p.add_argument(
        "--executor",
        choices=["local", "dask"],
        default="local",
        help="where grading runs: processes here, or a Dask cluster (default: local)",
    )
    p.add_argument("--scheduler", metavar="ADDRESS", help="the Dask scheduler for --executor dask")
    p.add_argument(
        "--trusted-proxy",
        action="append",
        metavar="ADDRESS",
        help="a proxy (IP address or network) whose X-Forwarded-* headers are believed; "
        "repeat for more (default: 127.0.0.1)",
    )
    p.set_defaults(func=cmd_serve)
    serve_sub = p.add_subparsers(dest="serve_command")

    q = serve_sub.add_parser("invite", help="a sign-in token and link per roster student")
    _data_options(q)
    q.add_argument("--base-url", metavar="URL", help="the service's address (default: serve.url)")
    q.add_argument("--out", required=True, metavar="CSV", help="links.csv to write")
    q.add_argument("--rotate", action="store_true", help="replace the tokens (old ones stop)")
    q.add_argument("--student", metavar="ID", help="with --rotate: only this student's token")
    q.set_defaults(func=cmd_invite)

    q = serve_sub.add_parser("staff", help="staff tokens: add or revoke")
    staff_sub = q.add_subparsers(dest="staff_command", required=True)
    r = staff_sub.add_parser("add", help="add a staff member; their token is the last line")
    r.add_argument("name", metavar="NAME")
    _data_options(r, course=False)
    r.set_defaults(func=cmd_staff_add)
    r = staff_sub.add_parser("revoke", help="revoke a staff member's tokens and sessions")
    r.add_argument("name", metavar="NAME")
    _data_options(r, course=False)
    r.set_defaults(func=cmd_staff_revoke)

    q = serve_sub.add_parser("backup", help="copy the database consistently, while it runs")
    q.add_argument("out", metavar="OUT")
    _data_options(q, course=False)
    q.set_defaults(func=cmd_backup)

    lti_commands.add_commands(serve_sub, _data_options, settings_of)
