"""Public checks for masked.py: run `pytest` in this folder (or `qkv check masked.py`).

These use the worked example and a few small fixed cases. The graded (hidden) checks
use other, random cases, so passing here is necessary, not sufficient.
"""

import importlib.util
from pathlib import Path

import pytest
from public_checks import check_function, direct_call, load_cases

HERE = Path(__file__).parent
CASES = load_cases(HERE / "public_cases.json")


def _student():
    spec = importlib.util.spec_from_file_location("masked", HERE / "masked.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("function", list(CASES["functions"]))
def test_public_checks(function):
    line = check_function(direct_call(_student(), "masked.py"), function, CASES)
    if line.status == "todo":
        pytest.skip(line.message)
    assert line.status == "ok", str(line)
