"""Collecting the hidden suites without pytest: the same tests, parts, weights and fixtures as
pytest's own collection, with pytest itself not imported unless a suite asks for more than marks.

The collection without pytest runs in a fresh interpreter: in this one (a pytest run) pytest is
loaded, and the suites then get the real one.
"""

import json
import subprocess
import sys
import textwrap

import pytest

from course_content import COURSE, ROOT
from qkv.content import loader
from qkv.suites import plugin as suite_plugin

# In a fresh interpreter: the plain collection of some suite files, as JSON, and whether pytest got imported.
PLAIN = textwrap.dedent("""
    import json, sys
    from qkv.suites.collect import plain_items
    root, files = sys.argv[1], sys.argv[2:]
    items = plain_items(root, files, {"expect", "rng", "fx", "ref", "cases", "n_cases"})
    described = None if items is None else [
        [i.nodeid, i.get_closest_marker("part").args[0],
         float(i.get_closest_marker("weight").args[0]) if i.get_closest_marker("weight") else 1.0,
         list(i._fixtureinfo.argnames)] for i in items]
    print(json.dumps({"items": described, "pytest": "pytest" in sys.modules,
                      "stand_in_left": type(sys.modules.get("pytest")).__name__ == "module"
                                       and not hasattr(sys.modules.get("pytest"), "__version__")}))
""")


def _plain_in_fresh_interpreter(root, files) -> dict:
    proc = subprocess.run(
        [sys.executable, "-c", PLAIN, str(root), *map(str, files)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=True,
    )
    return json.loads(proc.stdout)


def _pytests_own(root, files) -> list:
    plugin = suite_plugin.SuitePlugin(
        suite_plugin.GradingContext(COURSE, None, None, None), [], None
    )
    plugin.ctx.assignment = type(
        "AnyPart", (), {"part": staticmethod(lambda _: type("P", (), {"points": 1})())}
    )()
    code = pytest.main(
        [
            *suite_plugin.PYTEST_ARGS,
            "-p",
            "no:terminal",
            "--collect-only",
            "--rootdir",
            str(root),
            *map(str, files),
        ],
        plugins=[plugin],
    )
    suite_plugin._forget_modules_under(root)
    assert code == 0
    return [
        [
            t.item.nodeid,
            t.part,
            float(suite_plugin._marker(t.item, "weight", 1)),
            list(t.item._fixtureinfo.argnames),
        ]
        for t in plugin.tests
    ]


@pytest.mark.parametrize("assignment_id", ["attention", "training"])
def test_the_suites_collected_without_pytest_are_those_pytest_collects(assignment_id):
    content = loader.load(COURSE, COURSE.assignment(assignment_id))
    plain = _plain_in_fresh_interpreter(content.suites_dir, content.suite_files())
    assert plain["items"] == _pytests_own(content.suites_dir, content.suite_files())
    assert len(plain["items"]) > 10
    assert not plain["pytest"]  # nothing in them asked pytest for more than its marks


def test_a_suite_that_asks_pytest_for_more_gets_the_real_one(tmp_path):
    (tmp_path / "test_more.py").write_text(
        textwrap.dedent("""
        import pytest
        from pytest import approx

        pytestmark = pytest.mark.part("double")
        VERSION = pytest.__version__


        @pytest.mark.weight(3)
        def test_close(expect):
            assert 0.1 + 0.2 == approx(0.3)
            with pytest.raises(ZeroDivisionError):
                1 / 0
    """)
    )
    plain = _plain_in_fresh_interpreter(tmp_path, [tmp_path / "test_more.py"])
    assert plain["items"] == [["test_more.py::test_close", "double", 3.0, ["expect"]]]
    assert plain["pytest"] and not plain["stand_in_left"]
    assert plain["items"] == _pytests_own(tmp_path, [tmp_path / "test_more.py"])


def test_a_parametrized_suite_is_left_to_pytest(tmp_path):
    (tmp_path / "test_param.py").write_text(
        textwrap.dedent("""
        import pytest

        pytestmark = pytest.mark.part("double")


        @pytest.mark.parametrize("n", [1, 2])
        def test_n(expect, n):
            pass
    """)
    )
    plain = _plain_in_fresh_interpreter(tmp_path, [tmp_path / "test_param.py"])
    assert plain["items"] is None  # pytest's own collection takes over
    assert not plain["stand_in_left"]
