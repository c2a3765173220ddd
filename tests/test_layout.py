"""The shape of the engine: subpackages by stage, no assignment named in it, small modules, and the
imports the sandbox and the student bundle may rely on."""

import ast
import re
import subprocess
import sys
from pathlib import Path

from course_content import COURSE, ROOT
from qkv.content import loader
from qkv.release import steps as release
from test_layers import LAYERS

ENGINE = ROOT / "src" / "qkv"
MODULES = sorted(
    p for p in ENGINE.rglob("*.py") if "__pycache__" not in p.parts and "templates" not in p.parts
)


def test_the_engine_has_a_subpackage_per_stage():
    stages = {p.parent.name for p in ENGINE.glob("*/__init__.py")}
    assert set(LAYERS) - {"errors"} <= stages  # errors is the one layer that is a single module


def test_no_engine_module_is_over_400_lines():
    long = {
        p.relative_to(ROOT).as_posix(): n
        for p in MODULES
        if (n := len(p.read_text().splitlines())) > 400
    }
    assert not long


def test_no_engine_module_names_a_function_token_or_example_of_the_course():
    """The functions every assignment's content declares, and its worked example, are looked for in
    the engine's source; none may appear as a word. ("score" is left out: it is also what
    Gradescope calls points.)"""
    words = {"two plus three", "W_q", "W_k", "W_v"}
    for assignment in COURSE.assignments:
        words |= set(loader.load(COURSE, assignment).functions) - {"score"}
    pattern = re.compile(r"\b(" + "|".join(map(re.escape, sorted(words))) + r")\b")
    found = {
        f"{p.relative_to(ROOT)}: {m.group(0)}"
        for p in MODULES
        for m in pattern.finditer(p.read_text())
    }
    assert not found


def test_the_zygote_imports_only_the_wire_and_the_isolation_layers_of_this_package():
    """The zygote is started before any reference or suite is loaded; it must not pull them in."""
    code = (
        "import sys; import qkv.sandbox.zygote; "
        "print(' '.join(sorted(m for m in sys.modules if m.split('.')[0] == 'qkv')))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT
    ).stdout.split()
    assert out == [
        "qkv",
        "qkv.sandbox",
        "qkv.sandbox.child",
        "qkv.sandbox.folders",
        "qkv.sandbox.imports",
        "qkv.sandbox.isolation",
        "qkv.sandbox.ops",
        "qkv.sandbox.pieces",
        "qkv.sandbox.returned",
        "qkv.sandbox.seccomp",
        "qkv.sandbox.traces",
        "qkv.sandbox.warmup",
        "qkv.sandbox.wire",
        "qkv.sandbox.zygote",
    ]


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            names.add(node.module)
    return names


def test_the_public_checks_import_only_numpy_the_standard_library_and_each_other():
    allowed = {
        "__future__",
        "json",
        "dataclasses",
        "pathlib",
        "typing",
        "numpy",
        "qkv.shipped.compare",
    }
    for name in ("checks.py", "compare.py"):
        assert _imports(ENGINE / "shipped" / name) <= allowed, name


def test_the_trusted_package_imports_no_module_by_a_bare_name_a_students_folder_could_shadow():
    stdlib = set(sys.stdlib_module_names)
    third_party = {
        "numpy",
        "yaml",
        "pytest",
        "_pytest",
        "tqdm",
        "jsonschema",
        "matplotlib",
        "distributed",
        "dask",
        "nbformat",
        "nbgrader",
        "traitlets",
        "sqlalchemy",
        "PIL",
        # the `serve` extra
        "starlette",
        "uvicorn",
        "alembic",
        "itsdangerous",
        "multipart",
        "httpx",
        # the `lti` extra
        "jwt",
        "cryptography",
    }
    bare = {
        f"{p.relative_to(ROOT)}: {name}"
        for p in MODULES
        for name in _imports(p)
        if name.split(".")[0] not in stdlib | third_party | {"qkv"}
    }
    assert not bare


def test_the_student_bundle_imports_its_siblings_by_their_bare_names(course, assignment):

    files = release.build(course, assignment)
    assert (
        "from compare import copy_value, crash_problem, identical, problem"
        in files["public_checks.py"]
    )
    bundle = files["public_checks.py"] + files["compare.py"]
    assert "from qkv" not in bundle and "import qkv" not in bundle
