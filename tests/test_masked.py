"""The masked assignment end to end: its example is causal and has a head for the numbers and one
for the operator, its release is in sync, correct code written as students write it (ints as
ints, boolean masks) keeps full marks, wrong code nobody catalogued loses its own part only, and
the feedback page draws each head."""

import csv
import json
import shutil
import subprocess
import sys

import numpy as np
import pytest
from tests.conftest import ROOT

from qkv.cli import main
from qkv.content import loader
from qkv.quiz import master
from qkv.release import notebook as build
from qkv.release import steps as release
from qkv.validate import synthetic


@pytest.fixture(scope="module")
def masked(course):
    return course.assignment("masked")


@pytest.fixture(scope="module")
def content(course, masked):
    return loader.load(course, masked)


def test_fixture_json_shows_a_causal_plus_and_an_equals_that_reads_five(capsys, course):
    assert main(["fixture", "--course", str(course.root), "--assignment", "masked", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    tokens, A, out = data["tokens"], np.array(data["A"]), np.array(data["O"])
    plus, three, equals = (tokens.index(t) for t in ("plus", "three", "equals"))
    assert A.shape == (2, 4, 4) and np.all(np.triu(A, k=1) == 0)  # no head sees a later token
    assert A[0, plus, three] == 0 and np.array(data["A_both_ways"])[0, plus, three] > 0.4
    numbers = A[0, equals, [tokens.index("two"), three]]
    assert numbers.min() > 0.45 and A[1, equals, plus] > 0.9  # one head per job
    assert abs(out[equals, 0] - 5) < 0.1 and abs(out[plus, 0] - 4) < 0.1


def test_the_released_stub_keeps_every_signature_and_no_solution(course, masked):
    files = release.build(course, masked)
    stub = files["masked.py"]
    assert stub.count("raise NotImplementedError()") == 7
    assert "np.tril" not in stub and "swapaxes" not in stub and "transpose(1, 0, 2)" not in stub
    assert "def multi_head_attend(X, W_q, W_k, W_v, W_o, n_heads, mask=None):" in stub
    assert not any(name.startswith("suites/") for name in files)


def test_bundle_checks_pass_on_the_reference_under_plain_pytest(tmp_path, content):
    out = tmp_path / "bundle"
    shutil.copytree(ROOT / "exercises" / "masked", out)
    (out / "masked.py").write_text(content.reference_source)
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"],
        cwd=out,
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0 and "7 passed" in run.stdout, run.stdout + run.stderr


def _grade(tmp_path, course, sources: dict[str, str]) -> tuple[dict, object]:
    """Grade one masked.py per student through the command line: (gradebook rows, out folder)."""
    for student, source in sources.items():
        (tmp_path / "subs" / student).mkdir(parents=True)
        (tmp_path / "subs" / student / "masked.py").write_text(source)
    out = tmp_path / "out"
    args = ["grade", str(tmp_path / "subs"), "--course", str(course.root)]
    args += ["--assignment", "masked", "--out", str(out), "--quiet", "--weak-sandbox"]
    assert main(args) == 0
    return {r["student"]: r for r in csv.DictReader((out / "gradebook.csv").open())}, out


# Correct code as students write it, with the values as they arrive: no int(), no bool().
AS_STUDENTS_WRITE_IT = {
    "ones_bool": (
        "def causal_mask(n):\n"
        "    mask = np.ones((n, n), dtype=bool)\n"
        "    mask[np.triu_indices(n, k=1)] = False\n"
        "    return mask\n"
    ),
    "range_heads": (
        "def split_heads(X, n_heads):\n"
        "    width = X.shape[1] // n_heads\n"
        "    return np.array([X[:, h * width:(h + 1) * width] for h in range(n_heads)])\n"
    ),
    "fill_copy": (
        "def masked_softmax(S, mask):\n"
        "    S = S.copy()\n"
        "    S[~mask] = -np.inf\n"
        "    out = np.zeros_like(S)\n"
        "    keep = mask.any(axis=-1)\n"
        "    rows = S[keep]\n"
        "    e = np.exp(rows - rows.max(axis=-1, keepdims=True))\n"
        "    out[keep] = e / e.sum(axis=-1, keepdims=True)\n"
        "    return out\n"
    ),
    "where_inf": (
        "def masked_softmax(S, mask):\n"
        "    kept = np.where(mask, S, -np.inf)\n"
        "    top = np.max(kept, axis=-1, keepdims=True)\n"
        "    e = np.exp(kept - np.where(np.isinf(top), 0.0, top))\n"
        "    total = e.sum(axis=-1, keepdims=True)\n"
        "    return np.divide(e, total, out=np.zeros_like(e), where=total != 0)\n"
    ),
    "lengths_loop": (
        "def padding_mask(lengths, n):\n"
        "    out = []\n"
        "    for length in lengths:\n"
        "        real = np.array([i < length for i in range(n)])\n"
        "        out.append(np.logical_and.outer(real, real))\n"
        "    return np.array(out)\n"
    ),
}


def test_correct_code_written_as_students_write_it_keeps_full_marks(tmp_path, course, content):
    sources = {
        student: synthetic._splice(content.reference_source, {text.split("(")[0][4:]: text})
        for student, text in AS_STUDENTS_WRITE_IT.items()
    }
    rows, _ = _grade(tmp_path, course, sources)
    full = sum(p.points for p in content.assignment.parts)
    for student in sources:
        parts = sum(float(rows[student][p.id]) for p in content.assignment.parts)
        assert parts == full, (student, rows[student])


# Wrong code the catalogue does not hold: each must lose its own part, with a sentence, and cost
# nothing in the parts that do not call it.
HELD_OUT = {
    "scaled_score": "def scaled_score(Q, K):\n    return Q @ np.swapaxes(K, -1, -2) / 2.0\n",
    "causal_mask": "def causal_mask(n):\n    return np.eye(n, dtype=bool)\n",
    "padding_mask": (
        "def padding_mask(lengths, n):\n"
        "    real = np.arange(n) < np.asarray(lengths)[:, None] - 1\n"
        "    return real[:, :, None] & real[:, None, :]\n"
    ),
    "masked_softmax": (  # at a temperature of 2
        "def masked_softmax(S, mask):\n"
        "    kept = np.where(mask, S, -np.inf) / 2.0\n"
        "    top = kept.max(axis=-1, keepdims=True)\n"
        "    e = np.exp(kept - np.where(np.isfinite(top), top, 0.0))\n"
        "    total = e.sum(axis=-1, keepdims=True)\n"
        "    return e / np.where(total > 0, total, 1.0)\n"
    ),
    "split_heads": (
        "def split_heads(X, n_heads):\n"
        "    n, width = X.shape\n"
        "    return X[:, ::-1].reshape(n, n_heads, width // n_heads).transpose(1, 0, 2)\n"
    ),
    "merge_heads": (
        "def merge_heads(H):\n    return H.transpose(1, 0, 2).reshape(H.shape[1], -1)[::-1]\n"
    ),
    "multi_head_attend": (
        "def multi_head_attend(X, W_q, W_k, W_v, W_o, n_heads, mask=None):\n"
        "    Q, K, V = (split_heads(X @ W, n_heads) for W in (W_q, W_k, W_v))\n"
        "    S = scaled_score(K, Q)\n"
        "    if mask is None:\n"
        "        mask = np.ones(S.shape[-2:], dtype=bool)\n"
        "    A = masked_softmax(S, np.broadcast_to(mask, S.shape))\n"
        "    return merge_heads(A @ V) @ W_o, A\n"
    ),
}


@pytest.fixture(scope="module")
def held_out(tmp_path_factory, course, content):
    sources = {
        f"wrong_{function}": synthetic._splice(content.reference_source, {function: text})
        for function, text in HELD_OUT.items()
    }
    return _grade(tmp_path_factory.mktemp("held-out"), course, sources)


@pytest.mark.parametrize("function", list(HELD_OUT))
def test_wrong_code_nobody_catalogued_loses_its_part_only(held_out, masked, content, function):
    rows, out = held_out
    row = rows[f"wrong_{function}"]
    points = {p.id: p.points for p in masked.parts}
    assert float(row[function]) < points[function]
    callers = set(content.chain) & {
        f for f in content.functions if function in content.catalogue.callees(f, [function])
    }
    for part in points:
        if part not in callers and part != function:
            assert float(row[part]) == points[part], (part, row)
    result = json.loads((out / "results" / f"wrong_{function}.json").read_text())
    failed = [
        t
        for t in result["tests"]
        if t["name"].startswith(f"{function}:") and t["score"] < t["max_score"]
    ]
    assert failed and all(t["output"].strip() for t in failed)


def test_feedback_page_draws_each_head_beside_the_reference(held_out):
    _, out = held_out
    page = (out / "feedback" / "wrong_multi_head_attend.html").read_text()
    assert "What each head attends to" in page and page.count("data:image/svg+xml") >= 4
    assert "Your attention of head 1 (operator)" in page and "differ from the reference" in page
    right = (out / "feedback" / "wrong_causal_mask.html").read_text()  # its heads are right
    assert right.count("It matches the reference") == 2


def test_a_mask_of_numbers_is_not_a_mask_of_booleans(tmp_path, course, content):
    """np.tril(np.ones((n, n))) spells the right pattern in 0.0 and 1.0: ~mask and S[mask] then
    fail, so causal_mask loses the check that asks for booleans, and only that part."""
    floats = synthetic._splice(
        content.reference_source,
        {"causal_mask": "def causal_mask(n):\n    return np.tril(np.ones((n, n)))\n"},
    )
    rows, out = _grade(tmp_path, course, {"floats": floats})
    assert float(rows["floats"]["causal_mask"]) < 10
    assert float(rows["floats"]["multi_head_attend"]) == 30
    tests = json.loads((out / "results" / "floats.json").read_text())["tests"]
    assert any("dtype=bool" in t["output"] for t in tests if t["score"] < t["max_score"])


def test_the_notebook_runs_top_to_bottom_with_the_reference_and_draws_the_heads(
    tmp_path, course, masked
):
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    for name in ("public_checks.py", "compare.py", "public_cases.json"):
        shutil.copy(ROOT / "exercises" / "masked" / name, tmp_path / name)
    cells = build.master_cells(
        course,
        masked,
        master=course.path(masked.source).read_text(),
        quiz=master.load_quiz(course, masked),
    )
    nb = nbformat.reads(build.dumps(build.notebook_json(cells)), as_version=4)
    nbclient.NotebookClient(
        nb, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}
    ).execute()
    outputs = {c.id: c.get("outputs", []) for c in nb.cells if c.cell_type == "code"}
    checks = [
        "".join(o.get("text", "") for o in out)
        for cid, out in outputs.items()
        if cid.startswith("check_")
    ]
    assert len(checks) == 7 and all(text.startswith("PASS") for text in checks), checks
    for snippet in ("spread", "heads"):
        assert any("image/png" in o.get("data", {}) for o in outputs[snippet]), snippet
    spread = "".join(o.get("text", "") for o in outputs["spread"])
    assert "raw scores spread" in spread


def test_the_honest_variants_use_the_values_as_they_arrive(content):
    sources = "".join(s for v in content.honest_variants.values() for s in v.values())
    for idiom in (
        "np.ones((n, n), dtype=bool)",
        "range(n_heads)",
        "S[~mask] = -np.inf",
        "np.where(mask, S, -np.inf)",
    ):
        assert idiom in sources, idiom
    assert "int(" not in sources and "bool(" not in sources


def test_demo_gives_honest_code_full_marks_and_each_mistake_loses_its_own_part(
    tmp_path, course, masked, content
):
    out = tmp_path / "demo"
    args = ["demo", "--course", str(course.root), "--assignment", "masked"]
    assert main([*args, "--out", str(out), "--quiet"]) == 0
    graded = out / "masked" / "graded" / "gradebook.csv"
    rows = {r["student"]: r for r in csv.DictReader(graded.open())}
    points = {p.id: p.points for p in masked.parts}
    full = sum(points.values()) + masked.quiz_points
    for variant in content.honest_variants:
        assert float(rows[f"honest_{variant}"]["total"]) == full, variant
    assert len(content.catalogue) >= 30
    for mistake in content.catalogue:
        row = rows[f"mistake_{mistake.id}"]
        assert float(row[mistake.part]) < points[mistake.part], mistake.id
        for part in set(points) - {mistake.part} - set(content.chain):
            assert float(row[part]) == points[part], (mistake.id, part)
