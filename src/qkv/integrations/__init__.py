"""Integrations with the tools a course already uses: Gradescope, nbgrader."""
