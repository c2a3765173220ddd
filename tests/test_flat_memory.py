"""What keeps `qkv grade`'s memory flat however large the class: the plan and the students' shares
wait on disk, the class's numbers are gathered in one pass, and the report is written a piece at a
time. Each piece is checked against what holding everything in memory gives."""

import random

import pytest

from qkv.grade import plan as plan_mod
from qkv.intake import discover
from qkv.intake.submissions import Submission
from qkv.reports import spill
from qkv.reports.class_tally import FULL, Brief, Tally
from qkv.reports.pages import default_points
from qkv.results import on_disk

# -- the spill: shares read back in student order, a batch loaded only when its turn comes ----------


def test_the_spill_gives_every_share_in_student_order_whatever_order_the_batches_came_in(tmp_path):
    students = [f"s{i:04d}" for i in range(500)]
    batches = [students[i : i + 20] for i in range(0, 500, 20)] + [
        ["s0005x", "s0300x", "s0499x"]
    ]  # one overlaps all
    random.Random(1).shuffle(batches)
    with spill.Spill(tmp_path) as shares:
        for batch in batches:
            shares.add({s: ("share of", s) for s in reversed(batch)})
        got = list(shares.in_order())
    assert [s for s, _ in got] == sorted([*students, "s0005x", "s0300x", "s0499x"])
    assert all(share == ("share of", s) for s, share in got)


def test_the_spill_holds_one_batch_of_consecutive_students_at_a_time(tmp_path, monkeypatch):
    loaded, released = [], []
    real = spill.Spill._batch

    def batch(self, where):
        loaded.append(where)
        yield from real(self, where)
        released.append(where)

    monkeypatch.setattr(spill.Spill, "_batch", batch)
    with spill.Spill(tmp_path) as shares:
        chunks = [[f"s{i:04d}" for i in range(start, start + 10)] for start in range(0, 100, 10)]
        for chunk in reversed(chunks):  # finished in another order than the class's
            shares.add(dict.fromkeys(chunk, 0))
        most = 0
        for _ in shares.in_order():
            most = max(most, len(loaded) - len(released))
    assert len(loaded) == 10 and most <= 2  # the batch being read, and perhaps the next one's first


def test_an_empty_spill_gives_nothing(tmp_path):
    with spill.Spill(tmp_path) as shares:
        shares.add({})
        assert list(shares.in_order()) == []


# -- the tally: one pass gives what the whole class in memory gave ----------------------------------


class _Assignment:
    quiz_points = 20.0
    parts = ()


def _brief(student, scores, maxes, total, **kw):
    return Brief(
        student,
        tuple(scores),
        kw.pop("status", "graded"),
        total,
        scores,
        maxes,
        kw.pop("mistakes", ()),
        kw.pop("troubles", ()),
        **kw,
    )


def _kept_whole(assignment, briefs):
    """The class's numbers from the whole class held at once (as the report computed them before)."""
    cols = list(dict.fromkeys(c for b in briefs for c in b.columns))
    n, stats = len(briefs), []
    for c in cols:
        most = max(
            b.part_max(c) if b.has_part(c) else default_points(assignment, c) for b in briefs
        )
        got = [b.part_score(c) for b in briefs]
        stats.append((c, most, sum(got) / n, sum(most > 0 and g >= most - FULL for g in got) / n))
    most = sum(s[1] for s in stats)
    totals = [b.total for b in briefs]
    stats.append(
        ("total", most, sum(totals) / n, sum(most > 0 and t >= most - FULL for t in totals) / n)
    )
    return stats


def test_full_marks_count_scores_within_a_hair_of_a_maximum_known_only_at_the_end():
    briefs = [
        _brief("a", {"p": 5 - FULL / 2}, {"p": 5.0}, 5 - FULL / 2),
        _brief("b", {"p": 3.0}, {"p": 5.0}, 3.0),
        _brief("c", {"p": 5.0}, {"p": 5.0}, 5.0),
        _brief("d", {"p": 5 - 3 * FULL}, {"p": 5.0}, 5 - 3 * FULL),
    ]
    stats = Tally.of(_Assignment(), briefs).column_stats()
    assert [(s.column, s.max, s.mean, s.full_marks) for s in stats] == _kept_whole(
        _Assignment(), briefs
    )
    assert stats[0].full_marks == 0.5


def test_a_column_that_appears_late_counts_the_students_before_it_at_zero_and_the_course_maximum():
    briefs = [
        _brief("a", {"p": 4.0}, {"p": 4.0}, 4.0),
        _brief("b", {"p": 4.0, "quiz": 20.0}, {"p": 4.0}, 24.0),  # its results hold no quiz checks
        _brief("c", {"p": 2.0, "quiz": 10.0}, {"p": 4.0, "quiz": 15.0}, 12.0),
    ]
    stats = Tally.of(_Assignment(), briefs).column_stats()
    assert [(s.column, s.max, s.mean, s.full_marks) for s in stats] == _kept_whole(
        _Assignment(), briefs
    )
    assert stats[1].max == 20.0  # from course.yaml: a student's results lack it


def test_random_classes_give_the_numbers_of_the_whole_class():
    rng = random.Random(7)
    for _ in range(200):
        briefs = []
        for i in range(rng.randint(1, 12)):
            cols = [c for c in ("p", "q", "quiz") if rng.random() < 0.8]
            scores = {c: rng.choice([0.0, 1.5, 3.0, 3.0 - FULL / 3, 3.0 + FULL * 2]) for c in cols}
            maxes = {c: rng.choice([3.0, 2.0]) for c in cols if rng.random() < 0.7}
            briefs.append(_brief(f"s{i}", scores, maxes, sum(scores.values())))
        stats = Tally.of(_Assignment(), briefs).column_stats()
        assert [(s.column, s.max, s.mean, s.full_marks) for s in stats] == _kept_whole(
            _Assignment(), briefs
        )


def test_the_tally_keeps_the_callers_copy_of_each_student_id_and_its_rows_on_disk(tmp_path):
    held = "".join(["al", "ice"])
    with Tally(_Assignment(), rows_in=tmp_path) as tally:
        tally.add(
            _brief("alice", {"p": 1.0}, {"p": 2.0}, 1.0, mistakes=("m1",), status="timed out"), held
        )
        assert tally.misconceptions()[0][1][0] is held and tally.problems[0][0] is held
        assert [r.student for r in tally.rows()] == ["alice"]
    assert list(tmp_path.iterdir()) == []  # the rows' file was never visible, and is gone


# -- the plan: hand-ins on disk, read back in order, chunked as before ---------------------------------


def _old_chunks(todo, jobs):
    cap = max(1, min(plan_mod.CHUNK, -(-len(todo) // (jobs * 16))))
    chunks, start = [], 0
    while start < len(todo):
        size = max(1, min(cap, (len(todo) - start) // (jobs * 4)))
        chunks.append(todo[start : start + size])
        start += size
    return chunks


@pytest.mark.parametrize("count, jobs", [(1, 1), (7, 2), (300, 2), (1001, 3)])
def test_the_plan_gives_back_its_hand_ins_in_order_and_chunks_them_as_the_list_did(
    tmp_path, monkeypatch, count, jobs
):
    monkeypatch.setattr(on_disk, "BATCH", 16)
    subs = [
        (Submission(f"s{i:05d}", tmp_path / f"s{i:05d}.py"), "" if i % 3 == 0 else "new")
        for i in range(count)
    ]
    with plan_mod.Plan(tmp_path) as plan:
        for sub, reason in subs:
            plan.add(sub, reason)
        assert list(plan.each()) == subs and plan.students == [s.student for s, _ in subs]
        todo = [s for s, reason in subs if reason]
        chunks = plan.chunks(jobs)
        assert len(chunks) == len(_old_chunks(todo, jobs)) and list(chunks) == _old_chunks(
            todo, jobs
        )
        assert (plan.count, plan.todo, dict(plan.regraded)) == (
            count,
            len(todo),
            {"new": [s.key for s in todo]} if todo else {},
        )
    assert list(tmp_path.iterdir()) == []


def test_a_small_plan_touches_no_disk(tmp_path):
    out = tmp_path / "out"
    with plan_mod.Plan(out) as plan:
        plan.add(Submission("bob", None), "new")
        assert [s.student for s, _ in plan.each()] == ["bob"]
    assert not out.exists()


# -- discovery one submission at a time: the same class, the same lines -----------------------------------


def test_students_come_in_id_order_and_a_students_first_entry_by_name_is_theirs(tmp_path):
    for folder in ("a-b", "bob", "carol"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "attention.py").write_text("x = 1\n")
    for file in ("a.py", "bob.py", "dave.ipynb"):
        (tmp_path / file).write_text("{}" if file.endswith("ipynb") else "x = 1\n")
    skipped: list[str] = []
    found = list(
        discover.each_submission(
            tmp_path, ("attention.py", "attention.ipynb"), "attention", skipped
        )
    )
    assert [s.student for s in found] == ["a", "a-b", "bob", "carol", "dave"]
    assert found[2].code == tmp_path / "bob" / "attention.py"  # "bob" comes before "bob.py"
    assert [line.split(": ", 1)[1] for line in skipped] == [
        "skipped, student 'bob' already has a submission"
    ]
    assert discover.discover(tmp_path, ("attention.py", "attention.ipynb"), "attention") == (
        found,
        skipped,
    )
