"""Feedback pages, the class report and the terminal summary, built from results written by hand."""

from __future__ import annotations

import base64
import dataclasses
import shutil
from html.parser import HTMLParser
from xml.etree import ElementTree

import numpy as np
import pytest

from course_content import CATALOGUE, fixture
from qkv.errors import QkvError
from qkv.reports import class_report as report
from qkv.reports import feedback, heatmap, outputs
from qkv.reports.pages import feedback_href
from qkv.results import records as results
from qkv.results.records import StudentResult
from sample_class import MARKUP_ID, MARKUP_TEXT, RUN, build, write_class


class Tags(HTMLParser):
    """Every start tag with its attributes, and the page's text."""

    def __init__(self, text: str):
        super().__init__()
        self.tags: list[tuple[str, dict]] = []
        self.text: list[str] = []
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))

    def handle_data(self, data):
        self.text.append(data)

    def attr(self, tag: str, name: str) -> list[str]:
        return [a[name] for t, a in self.tags if t == tag and name in a]


@pytest.fixture
def graded(tmp_path, course, assignment, ref):
    """A graded class in tmp_path with its pages written: (out, student ids)."""
    students = write_class(tmp_path, assignment, ref)
    outputs.write(course, assignment, tmp_path, students)
    return tmp_path, students


def page_text(out, student: str) -> str:
    return (out / "feedback" / f"{student}.html").read_text(encoding="utf-8")


def tally_of(out, assignment):
    return report.Tally.of(
        assignment, report.load(out, [p.stem for p in (out / "results").glob("*.json")])
    )


def test_write_pages_writes_one_feedback_page_per_student_and_the_report(graded):
    out, students = graded
    assert sorted(p.name for p in (out / "feedback").iterdir()) == sorted(
        f"{s}.html" for s in students
    )
    assert (out / "report.html").is_file()


def test_same_results_give_byte_identical_pages(graded, tmp_path_factory, course, assignment):
    out, students = graded
    again = tmp_path_factory.mktemp("again")
    shutil.copytree(out / "results", again / "results")
    shutil.copy(out / "run.json", again / "run.json")
    heatmap._matrix_svg.cache_clear()  # draw every image afresh
    outputs.write(course, assignment, again, students)
    for page in ["report.html", *(f"feedback/{s}.html" for s in students)]:
        assert (again / page).read_bytes() == (out / page).read_bytes(), page


def test_pages_are_self_contained_without_scripts_or_outside_urls(graded):
    out, _students = graded
    for path in [out / "report.html", *(out / "feedback").iterdir()]:
        tags = Tags(path.read_text(encoding="utf-8"))
        names = {t for t, _ in tags.tags}
        assert not names & {"script", "link", "iframe", "object", "embed"}, path.name
        assert all(
            src.startswith("data:image/svg+xml;base64,") for src in tags.attr("img", "src")
        ), path.name
        assert not [h for h in tags.attr("a", "href") if "://" in h or h.startswith("//")], (
            path.name
        )


def test_every_embedded_image_is_an_svg_that_parses_without_scripts_or_links(graded):
    out, _ = graded
    for path in [out / "report.html", *(out / "feedback").iterdir()]:
        for src in Tags(path.read_text(encoding="utf-8")).attr("img", "src"):
            svg = ElementTree.fromstring(base64.b64decode(src.split(",", 1)[1]))
            assert svg.tag == "{http://www.w3.org/2000/svg}svg"
            assert int(svg.get("width")) > 100 and int(svg.get("height")) > 100
            assert not [
                e
                for e in svg.iter()
                if e.tag.split("}")[-1] in ("script", "a", "image", "foreignObject")
            ]


def test_untrusted_ids_messages_and_output_are_escaped(graded):
    out, _ = graded
    for text in (page_text(out, MARKUP_ID), (out / "report.html").read_text(encoding="utf-8")):
        assert "<script" not in text and "<b>" not in text and "example.invalid/x.png>" not in text
    mine = page_text(out, MARKUP_ID)
    assert "&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt;" in mine
    assert MARKUP_TEXT in "".join(Tags(mine).text)  # shown to the student as text, twice
    assert "".join(Tags(mine).text).count(MARKUP_TEXT) == 2


def test_feedback_shows_the_students_heatmap_beside_the_reference(graded):
    out, _ = graded
    tags = Tags(page_text(out, "bob"))
    assert [a["alt"] for t, a in tags.tags if t == "img"] == [
        "Your attention matrix for 'two plus three'",
        "The reference attention matrix for 'two plus three'",
    ]
    said = "".join(tags.text)
    assert "9 of 9 cells (framed in red) differ from the reference: two → two," in said
    assert "the softmax was taken along the wrong axis" in said
    assert "Nothing differs: it matches the reference in every cell." in page_text(out, "alice")


def test_feedback_says_why_there_is_no_heatmap(graded):
    out, _ = graded
    assert "did not return an attention matrix" in page_text(out, "dave")
    assert "not a matrix of numbers" in page_text(out, MARKUP_ID)


def test_student_and_reference_heatmaps_are_different_images(ref):
    fx = fixture.build(ref)
    wrong = CATALOGUE.by_id("softmax_axis0").function(ref, CATALOGUE.functions)(fx.S)
    assert heatmap.matrix_svg(wrong, fx.tokens, fx.tokens, title="Yours") != heatmap.matrix_svg(
        fx.A, fx.tokens, fx.tokens, title="Yours"
    )


def test_heatmap_draws_nan_and_inf_cells_without_failing(ref):
    svg = heatmap.matrix_svg(
        [[np.nan, 1, 0], [0.2, 0.3, 0.5], [np.inf, 0, 0]], "abc", "abc", title="x"
    )
    text = "".join(ElementTree.fromstring(svg).itertext())
    assert "nan" in text and "inf" in text and "1.00" in text


def test_axis0_softmax_is_named_with_its_catalogue_message_in_feedback(graded):
    out, _ = graded
    text = "".join(Tags(page_text(out, "bob")).text)
    assert CATALOGUE.by_id("softmax_axis0").message in text
    assert "softmax · 5 / 20" in text and "Total: 80 / 120" in text


def test_ungradable_submission_is_explained_at_the_top(graded):
    out, _ = graded
    text = "".join(Tags(page_text(out, "carol")).text)
    assert "Your submission could not be graded: syntax error on line 3." in text
    assert text.index("could not be graded") < text.index("Checks, part by part")


def test_timeouts_are_shown_as_timeouts(graded):
    out, _ = graded
    text = "".join(Tags(page_text(out, "dave")).text)
    assert text.count("timed out") >= 5 and "softmax timed out after 2 s" in text


def test_quiz_results_have_their_own_section_only_when_there_is_a_quiz(graded):
    out, _ = graded
    bob = "".join(Tags(page_text(out, "bob")).text)
    assert "Quiz · 10 / 20" in bob and "quiz: question 1" in bob and "0.48, 0.08, 0.44" in bob
    assert "Quiz" not in "".join(Tags(page_text(out, "dave")).text)


def test_report_counts_misconceptions_by_student_with_message_and_links(graded, assignment):
    out, _ = graded
    text = (out / "report.html").read_text(encoding="utf-8")
    assert tally_of(out, assignment).misconceptions() == [("softmax_axis0", ["bob"])]
    assert CATALOGUE.by_id("softmax_axis0").message in "".join(Tags(text).text)
    assert 'href="feedback/bob.html"' in text


def test_report_lists_timeouts_and_ungradable_submissions(graded, assignment):
    out, _ = graded
    assert tally_of(out, assignment).problems == [
        ("carol", "syntax error on line 3"),
        ("dave", "timed out (softmax, attend)"),
    ]


def test_report_links_every_feedback_page_with_odd_ids_quoted(graded):
    out, students = graded
    hrefs = Tags((out / "report.html").read_text(encoding="utf-8")).attr("a", "href")
    assert "feedback/mallory%3Cb%3E%26%27.html" in hrefs
    assert set(hrefs) == {feedback_href(s) for s in students}


def test_report_shows_the_run_metadata(graded):
    out, _ = graded
    text = "".join(Tags((out / "report.html").read_text(encoding="utf-8")).text)
    for shown in (
        RUN["isolation"],
        "numpy 1.26.4",
        "qkv-kit 0.1.0",
        "20261129",
        "12.3 s",
        RUN["skipped"][0],
    ):
        assert shown in text


def test_report_without_run_json_says_so(tmp_path, course, assignment, ref):
    students = write_class(tmp_path, assignment, ref, run=None)
    outputs.write(course, assignment, tmp_path, students)
    assert "No run.json was written for this run." in (tmp_path / "report.html").read_text(
        encoding="utf-8"
    )


def test_part_statistics_are_mean_over_max_and_share_with_full_marks(graded, assignment):
    out, _ = graded
    stats = {s.column: s for s in tally_of(out, assignment).column_stats()}
    # softmax: alice 20, bob 5, carol 0, dave 15, mallory 20
    assert (stats["softmax"].max, stats["softmax"].mean, stats["softmax"].full_marks) == (
        20,
        12,
        0.4,
    )
    assert (stats["quiz"].max, stats["quiz"].mean, stats["quiz"].full_marks) == (20, 6, 0.2)
    assert (stats["total"].max, stats["total"].mean, stats["total"].full_marks) == (120, 74, 0.2)


def test_terminal_summary_shows_pass_rates_and_top_misconceptions(graded, course, assignment):
    out, students = graded
    text = report.terminal_summary(course, assignment, out, students)
    lines = text.splitlines()
    assert lines[0] == "attention: 5 students"
    words = [line.split() for line in lines]
    assert ["softmax", "12.00", "/", "20", "40", "%"] in words
    assert ["total", "74.00", "/", "120", "20", "%"] in words
    assert "    1  softmax_axis0 (softmax)" in lines
    assert (
        "  carol: syntax error on line 3" in lines
        and "  dave: timed out (softmax, attend)" in lines
    )


def test_a_missing_result_is_one_clear_error(tmp_path, course, assignment, ref):
    students = write_class(tmp_path, assignment, ref)
    with pytest.raises(QkvError, match=r"results/nobody\.json: no result for student 'nobody'"):
        outputs.write(course, assignment, tmp_path, [*students, "nobody"])


def test_a_corrupt_result_is_one_clear_error(tmp_path, course, assignment, ref):
    students = write_class(tmp_path, assignment, ref)
    (tmp_path / "results" / "bob.json").write_text('{"score": 1', encoding="utf-8")
    with pytest.raises(QkvError, match=r"results/bob\.json: not a readable result"):
        report.terminal_summary(course, assignment, tmp_path, students)


def test_feedback_render_needs_only_a_result_and_the_assignments_section(
    course, assignment, ref, content
):
    alice = build(assignment, ref)[0]
    text = feedback.render(
        course, assignment, alice, content.feedback_section(alice.recorded, course.tolerance)
    )
    assert (
        text.startswith("<!DOCTYPE html>")
        and "Feedback for alice" in text
        and "Total: 120 / 120" in text
    )


def test_an_empty_class_still_gets_a_report_and_a_summary(tmp_path, course, assignment):
    outputs.write(course, assignment, tmp_path, [])
    assert "0 students" in (tmp_path / "report.html").read_text(encoding="utf-8")
    assert report.terminal_summary(course, assignment, tmp_path, []).startswith(
        "attention: 0 students"
    )


def test_terminal_summary_shows_control_characters_instead_of_obeying_them(
    tmp_path, course, assignment
):
    results.write(StudentResult("eve", (), ("project",), status="bad file\x1b[2J"), tmp_path)
    text = report.terminal_summary(course, assignment, tmp_path, ["eve"])
    assert "\x1b" not in text and "eve: bad file\\x1b[2J" in text


def test_checks_with_hidden_visibility_are_counted_but_not_shown(course, assignment, ref):

    alice = build(assignment, ref)[0]
    secret = dataclasses.replace(alice.tests[0], name="project: secret check", visibility="hidden")
    page = feedback.render(
        course, assignment, dataclasses.replace(alice, tests=(secret, *alice.tests[1:])), None
    )
    assert "secret check" not in page
    assert "1 more check is hidden by your course." in page
    assert alice.tests[1].name in page
