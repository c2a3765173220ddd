"""Grading a class: submissions read once, the hidden suites run against the sandbox, results and gradebook."""
