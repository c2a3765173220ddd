"""Hostile submissions against the masked and training assignments, whose values are not only float
arrays: boolean masks, ints, tuples. Graded as tests/test_hostile.py grades the attention ones:
with --jobs 1 in one process, each followed by an honest neighbour that must keep its solo row.

tests/hostile_masked/ and tests/hostile_training/ hold the attacks; each grading runs once per
module, for the assignment a test asks about.
"""

import csv
import dataclasses
import json
import time
from pathlib import Path

import pytest

from leftovers import kernel_keys, leftovers, require_strong_sandbox
from qkv.content import loader
from qkv.grade.batch import grade
from qkv.results import records as results
from qkv.validate import synthetic

HERE = Path(__file__).parent
ROOT = HERE.parent
FOLDERS = {"masked": HERE / "hostile_masked", "training": HERE / "hostile_training"}
ATTACKS = {a: sorted(p.stem for p in folder.glob("*.py")) for a, folder in FOLDERS.items()}
# Attacks that compute some parts honestly: those parts must keep their points (tests below).
PARTIAL = {
    "masked": {
        "aliases_and_region",
        "exits_and_signals",
        "floods_its_output",
        "loops_for_many_heads",
        "memory_and_processes",
        "mutates_its_inputs",
        "recursion_bomb",
    },
    "training": set(),
}
EVERY = [(a, attack) for a in FOLDERS for attack in ATTACKS[a]]
ZERO = [(a, attack) for a, attack in EVERY if attack not in PARTIAL[a]]
DID_NOT_RETURN = {"timeout", "memory", "exited"}


def neighbour(attack: str) -> str:
    return f"{attack}.honest"  # sorts right after its attacker: graded next, by the same process


def _neighbour_kinds(sources: dict[str, str]) -> list[str]:
    """Full marks written several ways, and one catalogued mistake (partial credit)."""
    honest = sorted(k for k in sources if k.startswith("honest_"))
    return [*honest, next(k for k in sources if k.startswith("mistake_"))]


def _rows(out: Path) -> dict[str, list[str]]:
    with open(out / "gradebook.csv", newline="") as f:
        return {row[0]: row for row in csv.reader(f)}


def _grade(tmp: Path, course, assignment: str) -> dict:
    content = loader.load(course, course.assignment(assignment))
    sources = synthetic.class_sources(content)
    kinds = _neighbour_kinds(sources)
    code = f"{assignment}.py"
    subs, honest, out = tmp / "subs", tmp / "honest", tmp / "out"
    for i, attack in enumerate(ATTACKS[assignment]):
        text = (FOLDERS[assignment] / f"{attack}.py").read_text().replace("__REPO__", str(ROOT))
        (subs / attack).mkdir(parents=True)
        (subs / attack / code).write_text(text)
        for root in (subs, honest):
            (root / neighbour(attack)).mkdir(parents=True)
            (root / neighbour(attack) / code).write_text(sources[kinds[i % len(kinds)]])
    fast = dataclasses.replace(
        course,
        limits=dataclasses.replace(
            course.limits, call_timeout_s=1.0, import_timeout_s=2.0, memory_mb=256, cpu_s=5
        ),
    )
    started, keys = time.time(), kernel_keys()
    options = {"assignment": assignment, "jobs": 1, "progress": False, "pages": False}
    alone = grade(fast, honest, out=tmp / "alone", **options)
    summary = grade(fast, subs, out=out, **options)
    assert alone.errors == []
    return {
        "out": out,
        "summary": summary,
        "alone": _rows(tmp / "alone"),
        "mixed": _rows(out),
        "since": (started, keys),
        "kinds": {neighbour(a): kinds[i % len(kinds)] for i, a in enumerate(ATTACKS[assignment])},
    }


@pytest.fixture(scope="module")
def graded(tmp_path_factory, course):
    """graded(assignment): its hostile class, graded once for this module."""
    done: dict[str, dict] = {}

    def get(assignment: str) -> dict:
        if assignment not in done:
            require_strong_sandbox()
            done[assignment] = _grade(tmp_path_factory.mktemp(assignment), course, assignment)
        return done[assignment]

    return get


def result(batch, student):
    return results.read(batch["out"] / "results" / f"{student}.json")


def scores(r) -> dict[str, float]:
    return {part: r.part_score(part) for part in {t.part for t in r.tests} - {"quiz"}}


def full(r, *parts):
    return all(r.part_score(p) == r.part_max(p) for p in parts)


def outputs(r, part) -> str:
    return " ".join(t.output for t in r.tests if t.part == part)


@pytest.mark.parametrize("assignment, attack", EVERY)
def test_the_honest_student_after_each_attack_keeps_their_solo_row(graded, assignment, attack):
    batch = graded(assignment)
    assert batch["mixed"][neighbour(attack)] == batch["alone"][neighbour(attack)]


@pytest.mark.parametrize("assignment", FOLDERS)
def test_the_neighbours_are_graded_and_the_honest_ones_keep_every_point(graded, assignment):
    batch = graded(assignment)
    rows = [row for s, row in batch["alone"].items() if s != "student"]
    assert {row[-1] for row in rows} == {"graded"}
    honest = [s for s, kind in batch["kinds"].items() if kind.startswith("honest_")]
    assert honest
    for student in honest:  # every code part; no answers.yaml was handed in
        r = result(batch, student)
        assert r.total == r.max_total - r.part_max("quiz"), (student, scores(r))


@pytest.mark.parametrize("assignment, attack", ZERO)
def test_attacks_earn_nothing(graded, assignment, attack):
    r = result(graded(assignment), attack)
    assert r.total == 0, [(t.name, t.output) for t in r.tests if t.score]


def _not_json(name: str):
    pytest.fail(f"{name} in a results file: results are strict JSON")


@pytest.mark.parametrize("assignment", FOLDERS)
def test_no_attack_makes_the_grader_fail_or_print_a_traceback(graded, assignment):
    batch = graded(assignment)
    assert batch["summary"].errors == []
    assert len(batch["mixed"]) - 1 == 2 * len(ATTACKS[assignment])
    for attack in ATTACKS[assignment]:
        raw = (batch["out"] / "results" / f"{attack}.json").read_text()
        json.loads(raw, parse_constant=_not_json)
        assert "Traceback" not in raw, attack
        r = result(batch, attack)
        assert "\n" not in r.status, attack
        for t in r.tests:
            assert t.outcome != "grader_error", (attack, t.name, t.output)
            assert t.outcome == "passed" or (t.output and "\n" not in t.output), (attack, t.name)


@pytest.mark.parametrize("assignment", FOLDERS)
def test_nothing_of_the_run_is_left(graded, assignment):
    since, keys = graded(assignment)["since"]
    assert leftovers(since=since, keys_before=keys) == []


def test_a_number_where_an_output_is_expected_costs_the_check_not_the_grader(graded):
    r = result(graded("masked"), "scalars_and_zero_d")
    later = [t for t in r.tests if "no token sees a later one" in t.name]
    assert later and all(t.outcome == "failed" for t in later)
    assert "no token may see a later one" in later[0].output


def test_arrays_too_large_to_send_are_named_and_cost_only_their_call(graded):
    r = result(graded("masked"), "lazy_giant_arrays")
    for part, said in (
        ("scaled_score", "the result is float64 array of 7629 MiB (too large to send)"),
        ("causal_mask", "the result is bool array of 9537 MiB (too large to send)"),
    ):
        assert said in outputs(r, part), outputs(r, part)
        assert {t.outcome for t in r.tests if t.part == part} <= {"failed", "not_counted"}


def test_masks_made_of_numbers_are_told_they_must_be_booleans(graded):
    r = result(graded("masked"), "masks_of_numbers")
    assert "the result is an array of float64, expected an array of booleans" in outputs(
        r, "causal_mask"
    )
    assert "the result is an array of int64, expected an array of booleans" in outputs(
        r, "padding_mask"
    )


def test_values_that_are_not_arrays_are_named_by_their_type(graded):
    batch = graded("masked")
    said = {
        ("not_arrays", "scaled_score"): "the result is int too large to send",
        ("not_arrays", "split_heads"): "the result is set, expected an array",
        ("odd_dtypes", "scaled_score"): "the result is array of complex128",
        ("odd_dtypes", "causal_mask"): "the result is array of object",
        ("deep_and_wide", "scaled_score"): "the result is list, expected an array",
        ("subclass_tricks", "causal_mask"): "the result is Yes, expected an array of booleans",
    }
    for (attack, part), line in said.items():
        assert line in outputs(result(batch, attack), part), (attack, part)


def test_views_of_the_inputs_are_judged_by_their_values(graded):
    """split_heads and merge_heads may return views of their inputs, as the reference does."""
    r = result(graded("masked"), "aliases_and_region")
    assert full(r, "causal_mask", "split_heads", "merge_heads"), scores(r)
    assert r.part_score("scaled_score") == 0 and r.part_score("masked_softmax") == 0


def test_inputs_changed_after_the_right_value_was_computed_lose_only_the_unchanged_checks(graded):
    r = result(graded("masked"), "mutates_its_inputs")
    for part in ("padding_mask", "masked_softmax", "split_heads", "merge_heads"):
        mine = [t for t in r.tests if t.part == part]
        unchanged = [t for t in mine if "unchanged" in t.name]
        assert unchanged and all(t.outcome == "failed" for t in unchanged), part
        assert all(t.outcome == "passed" for t in mine if t not in unchanged), part


def test_calls_that_never_return_cost_only_their_parts(graded):
    batch = graded("masked")
    for attack, kept, lost in (
        ("loops_for_many_heads", ("causal_mask", "padding_mask"), ("split_heads", "merge_heads")),
        ("recursion_bomb", ("causal_mask",), ("masked_softmax",)),
        ("memory_and_processes", ("causal_mask",), ("masked_softmax",)),
        ("exits_and_signals", ("scaled_score",), ("causal_mask", "merge_heads")),
        ("floods_its_output", ("causal_mask",), ()),
    ):
        r = result(batch, attack)
        assert full(r, *kept), (attack, scores(r))
        assert sum(scores(r).values()) == sum(r.part_max(p) for p in kept), (attack, scores(r))
        for part in lost:
            assert {t.outcome for t in r.tests if t.part == part} & DID_NOT_RETURN, (attack, part)


def test_a_flood_of_output_is_capped(graded, course):
    r = result(graded("masked"), "floods_its_output")
    assert len(r.output) <= course.limits.max_output_kb * 1024


def test_searching_for_the_reference_finds_nothing_to_run(graded):
    r = result(graded("masked"), "steals_the_reference")
    assert r.total == 0 and "stole nothing" in r.output


def test_a_child_broken_by_patched_builtins_still_ends_as_a_failure(graded):
    """builtins.isinstance patched to always agree breaks the child's own reply: it exits with its
    failure code, not 0, even though printing the failure fails too."""
    r = result(graded("masked"), "monkeypatch_numpy")
    assert {t.outcome for t in r.tests if t.part != "quiz"} == {"exited"}
    assert "ended (exit code 70)" in outputs(r, "causal_mask")
