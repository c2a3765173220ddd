"""The engine's docstrings: module docstrings at most 10 lines, and public functions with three or
more parameters say what each is (Google style, an `Args:` section)."""

import ast
from pathlib import Path

import qkv

PACKAGE = Path(qkv.__file__).parent
MAX_MODULE_LINES = 10


def _modules() -> list[Path]:
    return sorted(p for p in PACKAGE.rglob("*.py") if "templates" not in p.parts)


def _name(path: Path) -> str:
    return ".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts)


def _functions(tree: ast.Module, prefix: str = ""):
    """(qualified name, node) of every function and method, classes walked into."""
    for node in tree.body if isinstance(tree, ast.Module) else tree:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            yield prefix + node.name, node
        elif isinstance(node, ast.ClassDef):
            yield from _functions(node.body, f"{prefix}{node.name}.")


def _undocumented_parameters() -> set[str]:
    found = set()
    for path in _modules():
        for qualname, node in _functions(ast.parse(path.read_text(encoding="utf-8"))):
            if any(part.startswith("_") for part in qualname.split(".")):
                continue
            a = node.args
            params = [
                p for p in a.posonlyargs + a.args + a.kwonlyargs if p.arg not in ("self", "cls")
            ]
            if len(params) >= 3 and "Args:" not in (ast.get_docstring(node) or ""):
                found.add(f"{_name(path)}.{qualname}")
    return found


# Public functions of three or more parameters whose docstrings do not yet list them; only shrinks.
NOT_YET_DOCUMENTED = frozenset(
    {
        "qkv.content.mistakes.Catalogue.crashes",
        "qkv.content.mistakes.Catalogue.variants",
        "qkv.content.mistakes.Mistake.function",
        "qkv.course.declared.described",
        "qkv.integrations.gradescope.kit_files",
        "qkv.integrations.nbgrader_bridge.part_result",
        "qkv.integrations.nbgrader_bridge.part_score",
        "qkv.integrations.nbgrader_export.test_cell",
        "qkv.integrations.nbgrader_grade.record",
        "qkv.quiz.kinds.form",
        "qkv.quiz.kinds.parse",
        "qkv.quiz.kinds.parse_array",
        "qkv.quiz.kinds.parse_multiple",
        "qkv.quiz.kinds.parse_number",
        "qkv.quiz.kinds.parse_single",
        "qkv.quiz.kinds.parse_truefalse",
        "qkv.quiz.kinds.score_close",
        "qkv.quiz.kinds.score_equal",
        "qkv.quiz.kinds.score_multiple",
        "qkv.quiz.variants.variants",
        "qkv.release.notebook.code_cell",
        "qkv.release.notebook.master_cells",
        "qkv.release.notebook.nbgrader_meta",
        "qkv.release.notebook.text_cell",
        "qkv.reports.heatmap.curve_svg",
        "qkv.reports.pages.column_points",
        "qkv.reports.pages.img",
        "qkv.sandbox.child.Child.call",
        "qkv.sandbox.child.confine",
        "qkv.sandbox.child.main",
        "qkv.sandbox.imports.Gate.find_spec",
        "qkv.sandbox.isolation.cgroup_create",
        "qkv.sandbox.isolation.die_with_parent",
        "qkv.sandbox.isolation.landlock_ruleset",
        "qkv.sandbox.zygote.keeper",
        "qkv.sandbox.zygote.zygote",
        "qkv.shipped.cases.build",
        "qkv.shipped.checks.callees",
        "qkv.shipped.checks.chain_hint",
        "qkv.shipped.compare.close",
        "qkv.shipped.compare.same",
        "qkv.suites.calls.PlanningExpect.same",
        "qkv.suites.calls.StudentCalls.call",
        "qkv.suites.calls.planning_call",
        "qkv.suites.expect.Expect.accept",
        "qkv.suites.expect.Expect.counts_if_right",
        "qkv.suites.expect.Expect.holds",
        "qkv.suites.expect.Expect.note",
        "qkv.suites.ledger.counted",
        "qkv.suites.plugin.SuitePlugin.pytest_collection_modifyitems",
        "qkv.suites.relations.describe",
        "qkv.validate.fakes.copied_release",
        "qkv.validate.fakes.trivial",
        "qkv.validate.mutants.equivalent",
        "qkv.validate.synthetic.notebook_submission",
    }
)


def test_module_docstrings_are_at_most_ten_lines():
    long = {}
    for path in _modules():
        doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8")), clean=False)
        if doc and len(doc.strip().splitlines()) > MAX_MODULE_LINES:
            long[_name(path)] = len(doc.strip().splitlines())
    assert not long, f"move the reasoning to docs/internals/: {long}"


def test_public_functions_of_three_or_more_parameters_document_them():
    missing = _undocumented_parameters()
    assert missing <= NOT_YET_DOCUMENTED, sorted(missing - NOT_YET_DOCUMENTED)


def test_the_list_of_functions_still_to_document_holds_none_documented_since():
    assert _undocumented_parameters() >= NOT_YET_DOCUMENTED, sorted(
        NOT_YET_DOCUMENTED - _undocumented_parameters()
    )
