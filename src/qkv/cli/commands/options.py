"""What every command reads from its options: the course, and the assignments it names."""

from __future__ import annotations

import argparse

from qkv.course.config import Assignment, Course, load_course


def course(args: argparse.Namespace) -> Course:
    """The course that --course names, or ./course.yaml."""
    return load_course(args.course)


def assignment(course: Course, args: argparse.Namespace) -> Assignment:
    """The assignment --assignment names, or the course's first."""
    return course.assignment(args.assignment) if args.assignment else course.assignments[0]


def assignments(course: Course, args: argparse.Namespace) -> list[Assignment]:
    """The assignment --assignment names, or every assignment of the course."""
    return [course.assignment(args.assignment)] if args.assignment else list(course.assignments)


WEAK_SANDBOX_HELP = (
    "grade even if this machine lacks a sandbox layer (recorded in run.json and the report)"
)
