"""`qkv validate --mutants`: mutation testing of the hidden suites, beyond the named mistakes.

Small changes are made to the reference's syntax tree, one at a time, inside the functions students
write: an operator swapped, a transpose dropped or added, an axis or a constant changed, arguments
or returned items reordered, a call replaced by its argument, a reduction replaced by another. A
mutant that returns what the reference returns on every trusted input (public cases and random
draws) is equivalent and set aside; the others are graded together, in the sandbox, through the
normal grading path, each handed in by STUDENTS students. A mutant is caught when it loses points in
some part for every one of them (a check that catches it on some draws only lets some students
through); the survivors are listed so that an instructor can add a check or a catalogue entry.
"""

from __future__ import annotations

import ast
import copy
import itertools
import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from qkv.content import loader
from qkv.content import reference as reference_mod
from qkv.course import layout
from qkv.course.config import Assignment, Course
from qkv.errors import QkvError
from qkv.grade import batch as grade_mod
from qkv.results import records as results
from qkv.shipped.compare import copy_value, problem
from qkv.validate import synthetic

TARGET = 95.0  # per cent of non-equivalent mutants the suites should catch
CONTROL = "unmutated"  # the reference as the mutants are written (unparsed), graded alongside them
DRAWS = 6  # random inputs per function, besides the public cases, to tell equivalent mutants apart
STUDENTS = 3  # students handing in each mutant, each drawing cases of their own: caught only if caught for all

BINOPS = {
    ast.Add: (ast.Sub, ast.Mult),
    ast.Sub: (ast.Add, ast.Mult, ast.Div),
    ast.Mult: (ast.Div, ast.Add),
    ast.Div: (ast.Mult, ast.Sub, ast.FloorDiv),
    ast.MatMult: (ast.Mult, ast.Add, ast.Sub),
    ast.Pow: (ast.Mult,),
}
NON_COMMUTATIVE = (ast.Sub, ast.Div, ast.MatMult, ast.Pow)
# numpy reductions and elementwise functions, and what each may be mistaken for
NAMES = {
    "max": ("min", "mean", "sum"),
    "min": ("max", "mean"),
    "sum": ("mean", "max", "prod"),
    "mean": ("sum", "max"),
    "exp": ("log", "exp2", "sqrt", "abs", "square"),
    "log": ("exp", "log2"),
    "sqrt": ("square", "abs"),
    "matmul": ("multiply", "add"),
    "dot": ("multiply", "add"),
    "einsum": (),
    "argmax": ("argmin",),
    "argmin": ("argmax",),
}
AXES = (0, 1, -1, -2, None)


@dataclass(frozen=True)
class Mutant:
    function: str
    line: int
    change: str  # "`a - b` -> `a + b`"
    source: str  # the whole mutated module

    def __str__(self) -> str:
        return f"{self.function} line {self.line}: {self.change}"


def _const(value) -> ast.expr:
    if isinstance(value, (int, float)) and value < 0:
        return ast.UnaryOp(ast.USub(), ast.Constant(-value))
    return ast.Constant(value)


def _number(node: ast.AST) -> float | None:
    """The value of a numeric literal (a negative one included), else None."""
    value = node.value if isinstance(node, ast.Constant) else None
    if isinstance(value, int | float) and not isinstance(value, bool):
        return value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        inner = _number(node.operand)
        return None if inner is None else -inner
    return None


def _edits(node: ast.AST, params: tuple[str, ...] = ()) -> list[tuple[str, ast.AST]]:
    """(what changes, replacement node) for one node of a function with parameters `params`; the
    node itself is left as it is."""
    out: list[ast.AST] = []
    if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id in params:
        out += [
            ast.Name(other, ast.Load()) for other in params if other != node.id
        ]  # the wrong input used
    elif isinstance(node, ast.BinOp):
        for op in BINOPS.get(type(node.op), ()):
            out.append(ast.BinOp(node.left, op(), node.right))
        if isinstance(node.op, NON_COMMUTATIVE):
            out.append(ast.BinOp(node.right, node.op, node.left))
        if isinstance(node.op, ast.MatMult):
            for side in ("left", "right"):
                operand = getattr(node, side)
                flipped = (
                    operand.value
                    if isinstance(operand, ast.Attribute) and operand.attr == "T"
                    else ast.Attribute(operand, "T", ast.Load())
                )
                out.append(
                    ast.BinOp(
                        left=flipped if side == "left" else node.left,
                        op=node.op,
                        right=flipped if side == "right" else node.right,
                    )
                )
        out += [node.left, node.right]
    elif isinstance(node, ast.Attribute) and node.attr == "T":
        out.append(node.value)
    elif isinstance(node, ast.Attribute) and node.attr in NAMES:
        out += [ast.Attribute(node.value, name, node.ctx) for name in NAMES[node.attr]]
    elif isinstance(node, ast.Call):
        out += _call_edits(node)
    elif isinstance(node, ast.Tuple) and len(node.elts) > 1:
        for i, j in itertools.combinations(range(len(node.elts)), 2):
            elts = list(node.elts)
            elts[i], elts[j] = elts[j], elts[i]
            out.append(ast.Tuple(elts, node.ctx))
    elif (value := _number(node)) is not None:
        out += [
            _const(v)
            for v in dict.fromkeys((value + 1, value - 1, 0, -value, 2 * value))
            if v != value
        ]
    elif isinstance(node, ast.Constant) and isinstance(node.value, bool):
        out.append(ast.Constant(not node.value))
    elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        out.append(node.operand)
    return [(f"`{ast.unparse(node)}` -> `{ast.unparse(new)}`", new) for new in out]


def _call_edits(node: ast.Call) -> list[ast.expr]:
    out = []
    if len(node.args) == 1 and not node.keywords:
        out.append(node.args[0])  # the call left out
    for i, j in itertools.combinations(range(len(node.args)), 2):
        args = list(node.args)
        args[i], args[j] = args[j], args[i]
        out.append(ast.Call(node.func, args, node.keywords))
    for k, kw in enumerate(node.keywords):
        rest = node.keywords[:k] + node.keywords[k + 1 :]
        out.append(ast.Call(node.func, node.args, rest))  # the keyword left out
        if kw.arg == "axis":
            current = (
                _number(kw.value)
                if not (isinstance(kw.value, ast.Constant) and kw.value.value is None)
                else None
            )
            for axis in AXES:
                if axis != current:
                    out.append(
                        ast.Call(
                            node.func,
                            node.args,
                            [*rest[:k], ast.keyword("axis", _const(axis)), *rest[k:]],
                        )
                    )
    return out


def _nodes(func: ast.FunctionDef):
    """The nodes of a function's body that may be mutated (its docstring left alone)."""
    body = func.body[1:] if ast.get_docstring(func) else func.body
    for stmt in body:
        yield from ast.walk(stmt)


def generate(source: str, functions) -> list[Mutant]:
    """Every mutant of the functions `functions` of `source`, each different from the original."""
    tree = ast.parse(source)
    original = ast.unparse(tree)
    seen, mutants = {original}, []
    for index, func in enumerate(tree.body):
        if not (isinstance(func, ast.FunctionDef) and func.name in functions):
            continue
        params = tuple(a.arg for a in func.args.args)
        for n, node in enumerate(_nodes(func)):
            for change, _ in _edits(node, params):
                mutated = copy.deepcopy(tree)
                copied = mutated.body[index]
                assert isinstance(copied, ast.FunctionDef)  # as the original at this index
                target = list(_nodes(copied))[n]
                new = dict(_edits(target, params))[change]
                _replace(mutated.body[index], target, new)
                text = ast.unparse(ast.fix_missing_locations(mutated))
                if text not in seen:
                    seen.add(text)
                    mutants.append(Mutant(func.name, node.lineno, change, text + "\n"))
    return mutants


def _replace(root: ast.AST, old: ast.AST, new: ast.AST) -> None:
    for parent in ast.walk(root):
        for name, value in ast.iter_fields(parent):
            if value is old:
                setattr(parent, name, new)
                return
            if isinstance(value, list) and any(v is old for v in value):
                value[next(i for i, v in enumerate(value) if v is old)] = new
                return


def _inputs(content, reference, seed: int) -> dict[str, list[tuple]]:
    """The trusted inputs per function: the public cases and the content's random draws."""
    inputs = {
        f: [args for _, args in cases] for f, cases in content.public_cases(reference).items()
    }
    draw = getattr(content.module, "mutant_inputs", None)
    if draw:
        rng = np.random.default_rng(seed)
        for _ in range(DRAWS):
            for function, args in draw(rng).items():
                inputs.setdefault(function, []).append(tuple(args))
    return inputs


def equivalent(content, reference, mutant: Mutant, inputs, tolerance) -> bool:
    """Whether the mutant returns what the reference returns on every trusted input.

    Args:
        content: the assignment's content, for its functions.
        reference: the reference module.
        mutant: the mutant, whose source is the whole mutated module.
        inputs: {function: [args, ...]}: the public cases' inputs and the content's draws.
        tolerance: the course's tolerances (rtol, atol), within which values are the same.
    """
    try:
        module = reference_mod.module_from_source(mutant.source, "mutant")
    except Exception:
        return False
    for function in content.functions:
        for args in inputs.get(function, ()):
            with np.errstate(all="ignore"):
                expected = getattr(reference, function)(*[copy_value(a) for a in args])
                try:
                    value = getattr(module, function)(*[copy_value(a) for a in args])
                except Exception:
                    return False
            if problem(value, expected, rtol=tolerance.rtol, atol=tolerance.atol) is not None:
                return False
    return True


@dataclass(frozen=True)
class Report:
    generated: int
    equivalent: int
    caught: list[Mutant]
    survivors: list[Mutant]

    @property
    def share(self) -> float:
        n = len(self.caught) + len(self.survivors)
        return 100.0 * len(self.caught) / n if n else 100.0

    def summary(self) -> str:
        n = len(self.caught) + len(self.survivors)
        return f"mutation score: {len(self.caught)} of {n} non-equivalent mutants caught ({self.share:.1f} %)"


def run(course: Course, assignment: Assignment, *, jobs: int | None = None) -> Report:
    """Generate, filter and grade the mutants of the assignment's reference.

    Args:
        course: the course.
        assignment: the assignment.
        jobs: grading processes, or None for the default.

    Returns:
        The mutants caught and survived, and the mutation score.
    """
    content = loader.load(course, assignment)
    reference = content.reference
    functions = [p.function for p in assignment.parts]
    mutants = generate(content.reference_source, functions)
    inputs = _inputs(content, reference, course.seed)
    live = [m for m in mutants if not equivalent(content, reference, m, inputs, course.tolerance)]
    caught: list[Mutant] = []
    survivors: list[Mutant] = []
    with tempfile.TemporaryDirectory(prefix="qkv-mutants-") as tmp:
        subs, out = Path(tmp) / "subs", Path(tmp) / "out"
        names = [synthetic.students(f"mutant_{i:04d}", STUDENTS) for i in range(len(live))]
        sources = {CONTROL: ast.unparse(ast.parse(content.reference_source)) + "\n"}
        sources.update({name: m.source for students, m in zip(names, live) for name in students})
        for name, text in sources.items():
            (subs / name).mkdir(parents=True)
            (subs / name / layout.code_file(assignment)).write_text(text, encoding="utf-8")
        # the kit's own mutants, not student code: whatever sandbox this machine offers
        grade_mod.grade(
            course,
            subs,
            assignment=assignment.id,
            out=out,
            jobs=jobs,
            progress=False,
            pages=False,
            weak_sandbox=True,
        )
        control = results.read(results.path_for(out, CONTROL))
        if any(control.part_score(p.id) < control.part_max(p.id) for p in assignment.parts):
            raise QkvError(
                "the reference, written out as the mutants are, loses points: the mutation score "
                "would mean nothing; run `qkv validate` first"
            )
        for students, m in zip(names, live):
            lost = all(
                any(r.part_score(p.id) < r.part_max(p.id) for p in assignment.parts)
                for r in (results.read(results.path_for(out, name)) for name in students)
            )
            (caught if lost else survivors).append(m)
    return Report(len(mutants), len(mutants) - len(live), caught, survivors)
