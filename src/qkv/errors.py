"""The one user-facing error type: printed as a single line at the CLI boundary, exit code 2."""

import difflib


class QkvError(Exception):
    """A problem the user can fix: bad input, a missing file, an unknown id."""


def did_you_mean(word: str, choices) -> str:
    """Return ' (did you mean 'x'?)' when a close match exists, else ''."""
    close = difflib.get_close_matches(word, list(choices), n=1)
    return f" (did you mean '{close[0]}'?)" if close else ""
