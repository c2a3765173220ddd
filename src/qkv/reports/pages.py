"""What the student feedback pages and the class report share: the page shell, its style, and helpers.

Pages are self-contained: inline CSS, images as data: URIs, no scripts. A Content-Security-Policy
forbids everything else, so a page never makes a request even if some text slipped through
unescaped. Text from results (student ids, messages, submission output) is untrusted: it goes
through `esc`.
"""

from __future__ import annotations

import html
from collections.abc import Iterator
from urllib.parse import quote

from qkv.results.outcomes import label
from qkv.results.records import _num

FEEDBACK_DIR = "feedback"
REPORT_FILE = "report.html"

CSP = "default-src 'none'; img-src data:; style-src 'unsafe-inline'"

CSS = """
:root { --ok: #1e7b34; --bad: #b3261e; --warn: #8a5a00; --muted: #5f6368; --line: #dadce0; }
body { font: 15px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif; color: #202124; background: #fff;
       max-width: 60rem; margin: 2rem auto; padding: 0 1rem;
       overflow-wrap: break-word; }  /* a long id in a heading wraps on a phone */
h1 { font-size: 1.6rem; margin-bottom: .2rem; } h2 { font-size: 1.25rem; margin-top: 2rem;
     border-bottom: 1px solid var(--line); padding-bottom: .2rem; } h3 { font-size: 1.05rem; margin-bottom: .3rem; }
.sub { color: var(--muted); margin-top: 0; }
.total { font-size: 1.3rem; font-weight: 600; }
.banner { border-left: 4px solid var(--bad); background: #fce8e6; padding: .6rem .9rem; margin: 1rem 0; }
table { border-collapse: collapse; width: 100%; margin: .4rem 0 1rem; }
table.checks { table-layout: fixed; } table.summary { width: auto; min-width: min(24rem, 100%); }
.scroll { overflow-x: auto; max-width: 100%; }
img { max-width: 100%; height: auto; }
.checks col.name { width: 30%; } .checks col.outcome { width: 18%; } .checks col.points { width: 7rem; }
th, td { text-align: left; vertical-align: top; padding: .35rem .5rem; border-bottom: 1px solid var(--line);
         overflow-wrap: anywhere; }
th { font-weight: 600; background: #f8f9fa; }
td.num, th.num { text-align: right; white-space: nowrap; font-variant-numeric: tabular-nums; }
.outcome { font-weight: 600; }
td.ident { white-space: nowrap; overflow-wrap: normal; }  /* a part's name is read whole */
.passed { color: var(--ok); } .failed { color: var(--bad); } .other { color: var(--warn); }
.tag { font: 12px ui-monospace, monospace; background: #f1f3f4; border-radius: 3px; padding: 0 .3rem; }
.maps { display: flex; flex-wrap: wrap; gap: 1.5rem; align-items: flex-start; }
figure { margin: 0; } figcaption { color: var(--muted); font-size: .9rem; max-width: 28rem; }
.missing { border: 1px dashed var(--line); padding: 1rem; max-width: 24rem; }
.bar { background: #e8eaed; height: .7rem; width: 8rem; display: inline-block; vertical-align: middle; }
.bar > span { background: #2f6fad; height: 100%; display: block; }
pre { background: #f8f9fa; border: 1px solid var(--line); padding: .6rem; overflow-x: auto;
      white-space: pre-wrap; word-break: break-word; }
dl { display: grid; grid-template-columns: max-content minmax(0, 1fr); gap: .2rem 1rem; }
dt { font-weight: 600; } dd { margin: 0; overflow-wrap: anywhere; }
.muted { color: var(--muted); }
@media (max-width: 30rem) { .bar { width: 3rem; } body { margin: 1rem auto; } }
@media (max-width: 30rem) {  /* a phone: points wrap at " / ", no cell runs into the next */
  .checks th, .checks td { padding: .3rem .25rem; font-size: .875rem; }
  .checks col.name { width: 25%; } .checks col.outcome { width: 25%; } .checks col.points { width: 17%; }
  .checks td.num, .checks th.num { white-space: normal; }
  .checks th { overflow-wrap: normal; } .checks .outcome { overflow-wrap: break-word; }
}
"""


def esc(text) -> str:
    """Escape text for HTML content and attribute values."""
    return html.escape(str(text), quote=True)


def page_start(title: str) -> str:
    """A whole HTML document's start, up to where its body's HTML goes; `title` is plain text."""
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        '<meta name="robots" content="noindex">\n'
        f"<title>{esc(title)}</title>\n<style>{CSS}</style>\n</head>\n<body>\n"
    )


PAGE_END = "\n</body>\n</html>\n"


def page(title: str, body: str) -> str:
    """A whole HTML document around `body` (already HTML); `title` is plain text."""
    return page_start(title) + body + PAGE_END


def table(head: str, rows) -> Iterator[str]:
    """A table's HTML in pieces: `head` (up to and with its header row's newline), the rows (each a
    string, or an iterable of pieces) one per line, then the table's end. Written piece by piece, a
    table of every student costs no more memory than one of a few."""
    yield head.replace("<table", '<div class="scroll"><table', 1)
    for i, row in enumerate(rows):
        if i:
            yield "\n"
        if isinstance(row, str):
            yield row
        else:
            yield from row
    yield "\n</table></div>"


def listed(items) -> Iterator[str]:
    """Items separated by commas, in pieces."""
    for i, item in enumerate(items):
        yield ", " + item if i else item


def img(uri: str, alt: str, width: int | None = None) -> str:
    """An <img> element, its alternative text escaped.

    Args:
        uri: where the image is: a data: URI (heatmap.data_uri), so the page carries it.
        alt: what the image shows, for a reader who cannot see it.
        width: its width in CSS pixels, or None for its own.
    """
    size = f' width="{width}"' if width else ""
    return f'<img src="{uri}" alt="{esc(alt)}"{size}>'


def feedback_href(student: str) -> str:
    """The link from report.html to a student's page (ids may hold any character a file name can)."""
    return esc(f"{FEEDBACK_DIR}/{quote(student + '.html')}")


def bar(share: float) -> str:
    """A small horizontal bar filled to `share` (0 to 1), drawn in CSS."""
    return (
        f'<span class="bar"><span style="width: {100 * min(max(share, 0), 1):.0f}%"></span></span>'
    )


def outcome_label(outcome: str) -> str:
    """The words for an outcome, with a class that colours it."""
    css = "passed" if outcome == "passed" else "failed" if outcome == "failed" else "other"
    return f'<span class="outcome {css}">{esc(label(outcome))}</span>'


num = _num  # points as the gradebook writes them: 20, 12.5, 3.33


def column_points(assignment, result, column: str) -> float:
    """The most a student can get in a gradebook column: from the results, else from course.yaml.

    Args:
        assignment: the assignment, whose course.yaml points count when the results lack the column.
        result: the student's results.
        column: a part's id, or "quiz".
    """
    return (
        result.part_max(column) if result.has_part(column) else default_points(assignment, column)
    )


def default_points(assignment, column: str) -> float:
    """The most points of a gradebook column from course.yaml, for results that do not hold it."""
    if column == "quiz":
        return assignment.quiz_points
    return next((p.points for p in assignment.parts if p.id == column), 0.0)
