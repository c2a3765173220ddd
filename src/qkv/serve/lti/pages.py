"""The few pages LTI shows itself: a refused launch, the deep linking choice, and a form that posts
itself to the platform (with a button for a browser without JavaScript)."""

from __future__ import annotations

from html import escape

from starlette.responses import HTMLResponse

from qkv.course.config import Course
from qkv.results.gradebook import fmt, max_points

_STYLE = (
    "body{font-family:system-ui,sans-serif;max-width:40rem;margin:2rem auto;padding:0 1rem}"
    "button{font-size:1rem;padding:.4rem .9rem;margin:.2rem 0}li{margin:.6rem 0}"
)


def page(title: str, body: str, status: int = 200) -> HTMLResponse:
    """A small HTML page.

    Args:
        title: its title.
        body: its body, as HTML.
        status: the HTTP status.

    Returns:
        The response.
    """
    text = (
        f'<!doctype html><html lang="en"><meta charset="utf-8">'
        f'<meta name="viewport" content="width=device-width,initial-scale=1">'
        f"<title>{escape(title)}</title><style>{_STYLE}</style><body>{body}</body></html>"
    )
    return HTMLResponse(text, status_code=status)


def refused(reason: str, relaunch: str | None = None) -> HTMLResponse:
    """Why a launch was refused; with `relaunch`, a link that starts it again in a new window."""
    again = (
        f'<p><a id="new-window" href="{escape(relaunch)}" target="_blank">Open the tool in a new '
        "window</a>: there its cookies are its own, and the launch goes through.</p>"
        if relaunch
        else "<p>Go back to your course and open the link again; if it is refused again, show "
        "this page to your instructor.</p>"
    )
    return page(
        "Launch refused",
        f'<h1>This launch was refused</h1><p id="reason">{escape(reason)}.</p>{again}',
        status=403,
    )


def post_form(url: str, fields: dict[str, str], label: str) -> HTMLResponse:
    """A page whose form posts `fields` to `url` at once (or when its button is pressed).

    Args:
        url: where the form posts.
        fields: its hidden fields.
        label: the button's text and the page's title.

    Returns:
        The response.
    """
    inputs = "".join(
        f'<input type="hidden" name="{escape(k)}" value="{escape(v)}">' for k, v in fields.items()
    )
    return page(
        label,
        f'<form id="post" method="post" action="{escape(url)}">{inputs}'
        f'<button type="submit">{escape(label)}</button></form>'
        "<script>document.getElementById('post').submit()</script>",
    )


def choose(course: Course, request_blob: str, csrf: str) -> HTMLResponse:
    """Deep linking: the course's assignments, each a button that adds it to the LMS course.

    Args:
        course: the service's course.
        request_blob: the signed deep linking request, posted back with the choice.
        csrf: the staff session's CSRF token.

    Returns:
        The response.
    """
    items = "".join(
        f"<li><strong>{escape(a.title)}</strong> ({fmt(max_points(a))} points) "
        f'<form method="post" action="/lti/deep-link" style="display:inline">'
        f'<input type="hidden" name="request" value="{escape(request_blob)}">'
        f'<input type="hidden" name="csrf" value="{escape(csrf)}">'
        f'<button name="assignment" value="{escape(a.id)}">Add {escape(a.id)}</button>'
        "</form></li>"
        for a in course.assignments
    )
    return page(
        "Choose an assignment",
        f"<h1>Add an assignment of {escape(course.name)}</h1><ul>{items}</ul>",
    )
