"""course.yaml is validated on load, with one-line errors naming the path and the value."""

import copy
import json
from pathlib import Path

import jsonschema
import pytest
import yaml

from qkv.cli import main
from qkv.course import config, schema
from qkv.errors import QkvError

ROOT = Path(__file__).resolve().parent.parent
RAW = yaml.safe_load((ROOT / "course.yaml").read_text())


def edited(change):
    data = copy.deepcopy(RAW)
    change(data)
    return data


@pytest.mark.parametrize(
    "change, message",
    [
        (
            lambda d: d["assignments"][0]["parts"][2].update(points="three"),
            "assignments[0].parts[2].points: expected a number, got 'three'",
        ),
        (lambda d: d.update(colour="blue"), "course.yaml: colour: unknown key"),
        (
            lambda d: d["limits"].update(call_timeot_s=1),
            "limits.call_timeot_s: unknown key (did you mean 'call_timeout_s'?)",
        ),
        (lambda d: d.update(seed="x"), "seed: expected a whole number, got 'x'"),
        (lambda d: d["limits"].update(memory_mb=1), "limits.memory_mb: must be at least 64, got 1"),
        (
            lambda d: d["feedback"].update(visibility="sometimes"),
            "feedback.visibility: expected one of",
        ),
        (
            lambda d: d["assignments"][0]["parts"].append(
                {"id": "score", "function": "score", "points": 1}
            ),
            "parts[5].id: duplicate id 'score'",
        ),
        (lambda d: d["assignments"][0].pop("parts"), "assignments[0].parts: missing"),
        (
            lambda d: d["assignments"][1]["parts"][5].update(timeout_s=0),
            "assignments[1].parts[5].timeout_s: must be at least 0.05, got 0",
        ),
        (
            lambda d: d["assignments"][1]["parts"][5].update(timeout_s=float("inf")),
            "assignments[1].parts[5].timeout_s: expected a number",
        ),
        (
            lambda d: d.update(assignments="attention"),
            "assignments: expected a list, got 'attention'",
        ),
    ],
)
def test_bad_values_are_named_with_their_path(change, message):
    with pytest.raises(QkvError, match=None) as err:
        config.parse_course(edited(change))
    assert message in str(err.value)
    assert "\n" not in str(err.value)


def test_the_shipped_course_loads_into_frozen_objects(course):
    assert [p.id for p in course.assignment("attention").parts] == [
        "project",
        "score",
        "softmax",
        "aggregate",
        "attend",
    ]
    with pytest.raises(AttributeError):
        course.seed = 1


def test_a_part_may_give_its_function_a_call_limit_of_its_own(course):
    assert course.assignment("training").call_timeouts() == {"train": 20.0}
    assert course.assignment("attention").call_timeouts() == {}
    unset = edited(lambda d: d["assignments"][1]["parts"][5].update(timeout_s=None))
    assert config.parse_course(unset).assignment("training").call_timeouts() == {}


def test_unknown_assignment_suggests_the_close_one(course):
    with pytest.raises(QkvError, match="did you mean 'attention'"):
        course.assignment("atention")


@pytest.mark.parametrize(
    "content, message",
    [
        ("name: [unclosed", "invalid YAML at line"),
        (b"name: \xff\xfe", "not UTF-8"),
        ("- just\n- a list", "expected a mapping"),
    ],
)
def test_malformed_files_give_one_line_and_exit_code_2(tmp_path, capsys, content, message):
    path = tmp_path / "course.yaml"
    path.write_bytes(content if isinstance(content, bytes) else content.encode())
    assert main(["fixture", "--course", str(path)]) == 2
    err = capsys.readouterr().err
    assert message in err
    assert err.count("\n") == 1 and "Traceback" not in err


def test_missing_course_file_is_one_line(tmp_path, capsys):
    assert main(["fixture", "--course", str(tmp_path / "nope.yaml")]) == 2
    assert "not found" in capsys.readouterr().err


def test_committed_schema_is_the_generated_one():
    committed = json.loads((ROOT / config.SCHEMA_FILE).read_text())
    assert committed == schema.json_schema(), "run `make schema` to refresh course.schema.json"


def test_schema_accepts_the_course_and_rejects_what_the_loader_rejects():
    course_schema = schema.json_schema()
    jsonschema.validate(RAW, course_schema)
    bad = edited(lambda d: d["assignments"][0]["parts"][0].update(points="three"))
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(bad, course_schema)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(edited(lambda d: d.update(colour="blue")), course_schema)
