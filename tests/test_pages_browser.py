"""The feedback pages and the class report in a real browser (Selenium, Debian's chromium and
chromedriver, headless, offline from disk), read for their meaning as a person reads them.

Every assignment is graded from real submissions (tests/graded_pages.py); the hand-made sample
class adds odd ids and markup. Skipped only when chromium or chromedriver is missing and
QKV_REQUIRE_BROWSER is unset; CI sets it, and then a missing browser is a failure.
"""

from __future__ import annotations

import base64
import io
import json
import re
from pathlib import Path
from urllib.parse import unquote, urlparse

import numpy as np
import pytest
from PIL import Image

import chromium
from course_content import COURSE
from graded_pages import graded
from qkv.content import loader
from qkv.reports import outputs
from sample_class import write_class

chromium.skip_unless_installed()

WIDTHS = (1280, 375)  # a laptop window and a phone
FRAME = "#c0392b"
RECT = re.compile(r'(<rect x="([\d.]+)" y="([\d.]+)"[^>]*>)')  # a cell or a frame

# What a page shows, measured in the page: overflow, table cells whose text runs into the next,
# images without alt text, tables without header cells, and text whose contrast with its background is under 4.5:1 (WCAG's AA).
READ_JS = r"""
function rgb(s) { const m = s.match(/[\d.]+/g); return m ? m.map(Number) : [0, 0, 0, 0]; }
function lum(c) { const f = v => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
                  return 0.2126 * f(c[0]) + 0.7152 * f(c[1]) + 0.0722 * f(c[2]); }
function background(el) {
  for (let e = el; e; e = e.parentElement) {
    const c = rgb(getComputedStyle(e).backgroundColor);
    if (c.length < 4 || c[3] > 0) return c;
  }
  return [255, 255, 255];
}
const low = [];
const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
for (let n = walker.nextNode(); n; n = walker.nextNode()) {
  if (!n.textContent.trim()) continue;
  const el = n.parentElement, style = getComputedStyle(el);
  if (style.visibility === 'hidden' || style.display === 'none' || !el.getClientRects().length) continue;
  const a = lum(rgb(style.color)), b = lum(background(el));
  const ratio = (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
  if (ratio < 4.5) low.push([n.textContent.trim().slice(0, 40), Math.round(ratio * 100) / 100]);
}
const root = document.documentElement;
return {
  overflow: root.scrollWidth - root.clientWidth,
  wide: Array.from(document.querySelectorAll('body *')).filter(e => {
    const r = e.getBoundingClientRect(); return r.right > root.clientWidth + 1 && !e.closest('.scroll');
  }).map(e => e.tagName + '.' + e.className).slice(0, 5),
  crowded: Array.from(document.querySelectorAll('td, th')).filter(c => c.scrollWidth > c.clientWidth + 1)
    .map(c => c.textContent.trim().slice(0, 30)).slice(0, 5),
  noAlt: Array.from(document.images).filter(i => !(i.getAttribute('alt') || '').trim()).length,
  tablesWithoutHeaders: Array.from(document.querySelectorAll('table')).filter(t => !t.querySelector('th')).length,
  lowContrast: low,
  text: document.body.innerText,
  images: Array.from(document.images, i => ({src: i.src, alt: i.alt, complete: i.complete, width: i.naturalWidth})),
  links: Array.from(document.links, a => a.href),
};
"""


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    driver = chromium.start(tmp_path_factory.mktemp("profile"), logs=True)
    yield driver
    driver.quit()


def read(browser, path: Path, width: int = WIDTHS[0]) -> dict:
    browser.set_window_size(width, 900)
    browser.get(path.as_uri())
    seen = browser.execute_script(READ_JS)
    seen["errors"] = [e["message"] for e in browser.get_log("browser") if e["level"] == "SEVERE"]
    events = (json.loads(e["message"])["message"] for e in browser.get_log("performance"))
    seen["requests"] = [
        e["params"]["request"]["url"] for e in events if e["method"] == "Network.requestWillBeSent"
    ]
    seen["png"] = browser.get_screenshot_as_png()
    return seen


@pytest.fixture(scope="module", params=["attention", "training", "masked"])
def graded_class(request, tmp_path_factory):
    assignment = COURSE.assignment(request.param)
    return assignment, graded(COURSE, assignment, tmp_path_factory.mktemp(request.param))


def pages_of(out: Path) -> list[Path]:
    return [out / "report.html", *sorted((out / "feedback").glob("*.html"))]


def svg_of(image: dict) -> str:
    return base64.b64decode(image["src"].split(",", 1)[1]).decode("utf-8")


@pytest.mark.parametrize("width", WIDTHS)
def test_every_page_fits_the_window_has_alt_text_header_cells_and_contrast(
    browser, graded_class, width
):
    _, out = graded_class
    for path in pages_of(out):
        seen = read(browser, path, width)
        name = path.relative_to(out).as_posix()
        assert seen["overflow"] <= 0, f"{name} runs {seen['overflow']} px past {width} px: {seen['wide']}"  # fmt: skip
        assert seen["crowded"] == [], f"{name} at {width} px: text runs out of its cell"
        assert seen["noAlt"] == 0, name
        assert seen["tablesWithoutHeaders"] == 0, name
        assert seen["lowContrast"] == [], name
        assert seen["errors"] == [], name


def framed_cells(svg: str) -> set[tuple[int, int]]:
    """(row, column) of each cell the heatmap frames in red, from where the frames are drawn."""
    rects = [(float(x), float(y), tag) for tag, x, y in RECT.findall(svg)]
    xs = sorted({x for x, _, tag in rects if 'width="56"' in tag})
    ys = sorted({y for _, y, tag in rects if 'width="56"' in tag})
    # Each frame is drawn 2 px inside its cell: its position says which cell it is.
    return {(ys.index(y - 2), xs.index(x - 2)) for x, y, tag in rects if FRAME in tag}


def differing(recorded, reference) -> set[tuple[int, int]]:
    tol = COURSE.tolerance
    off = ~np.isclose(np.array(recorded), reference, rtol=tol.rtol, atol=tol.atol)
    return {(int(i), int(j)) for i, j in zip(*np.nonzero(off))}


def test_a_full_marks_page_frames_nothing_and_says_nothing_differs(browser, graded_class):
    assignment, out = graded_class
    seen = read(browser, out / "feedback" / "full.html")
    assert not any(FRAME in svg_of(i) for i in seen["images"])
    assert "differ from the reference" not in seen["text"]
    assert "wrong result" not in seen["text"]
    if assignment.id == "attention":
        assert "Nothing differs" in seen["text"]
    if assignment.id == "masked":
        heads = loader.load(COURSE, assignment).example.n_heads
        yours = [i for i in seen["images"] if i["alt"].startswith("Your attention of head")]
        assert len(yours) == heads and all(framed_cells(svg_of(i)) == set() for i in yours)
        assert seen["text"].count("It matches the reference.") == heads


def test_a_wrong_softmax_frames_exactly_the_cells_that_differ_and_names_the_axis(
    browser, graded_class
):
    assignment, out = graded_class
    seen = read(browser, out / "feedback" / "axis.html")
    assert "axis" in seen["text"]
    if assignment.id == "training":
        return
    recorded = json.loads((out / "results" / "axis.json").read_text())["extra_data"]["recorded"]
    worked = loader.load(COURSE, assignment).example
    if assignment.id == "attention":
        differ = differing(recorded["attention"], worked.A)
        yours = next(svg_of(i) for i in seen["images"] if i["alt"].startswith("Your attention"))
        assert differ and framed_cells(yours) == differ
        assert f"{len(differ)} of 9 cells" in seen["text"]
        return
    # masked: every head's attention beside the reference's, each framed where it differs
    for h in range(worked.n_heads):
        differ = differing(recorded["heads"][h], worked.A[h])
        alt = f"Your attention of head {h} "
        yours = next(svg_of(i) for i in seen["images"] if i["alt"].startswith(alt))
        assert differ and framed_cells(yours) == differ, h
        assert f"{len(differ)} of {worked.A[h].size} cells" in seen["text"]
    heads_section = seen["text"].split("Checks, part by part")[0]
    assert heads_section.count("wrong axis") == worked.n_heads


def test_a_syntax_error_page_says_it_a_few_times_and_quiz_rows_show_questions(
    browser, graded_class
):
    _, out = graded_class
    seen = read(browser, out / "feedback" / "syntax.html")
    assert 1 <= seen["text"].count("SyntaxError") + seen["text"].count("syntax error") <= 3
    quiz = read(browser, out / "feedback" / "quiz.html")["text"]
    first = quiz.split("quiz 1, ", 1)[1].split("\n", 1)[0]  # "query-role: In attention, what ...?"
    assert ": " in first and "?" in first.split(": ", 1)[1]


def test_the_report_links_open_every_feedback_page(browser, graded_class):
    _, out = graded_class
    links = [Path(unquote(urlparse(u).path)) for u in read(browser, out / "report.html")["links"]]
    pages = {p.name for p in links if p.parent.name == "feedback"}
    assert pages == {p.name for p in (out / "feedback").glob("*.html")}


# -- the hand-made sample class: odd ids, markup in untrusted text, images that decode -----------


@pytest.fixture(scope="module")
def sample(tmp_path_factory, course, assignment, ref):
    out = tmp_path_factory.mktemp("sample")
    students = write_class(out, assignment, ref)
    outputs.write(course, assignment, out, students)
    return out


def test_sample_pages_load_without_errors_and_their_images_decode(browser, sample):
    for path in pages_of(sample):
        seen = read(browser, path)
        assert seen["errors"] == [], path.name
        assert [u for u in seen["requests"] if not u.startswith(("file:", "data:"))] == []
        assert seen["images"] and all(i["complete"] and i["width"] > 0 for i in seen["images"])
        shot = Image.open(io.BytesIO(seen["png"])).convert("RGB")
        assert len(shot.getcolors(maxcolors=1 << 24)) > 1, f"{path.name} looks blank"


def test_report_links_open_every_feedback_page_even_for_odd_ids(browser, sample):
    links = [
        Path(unquote(urlparse(u).path)) for u in read(browser, sample / "report.html")["links"]
    ]
    assert {f"{s}.html" for s in ("alice", "bob", "carol", "dave", "mallory<b>&'")} <= {
        p.name for p in links
    }
    assert all(p.is_file() for p in links)
