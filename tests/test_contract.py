"""The content contract: one declaration the loader checks, with one line for what is wrong."""

import pytest

from course_content import ROOT
from qkv.cli import main
from qkv.content import contract, loader, reference
from qkv.course.config import load_course
from test_new_assignment import CONTENT, tiny  # noqa: F401 - the fixture


@pytest.mark.parametrize(
    "change, says",
    [
        ('FUNCTIONS = ("double",)', "lacks FUNCTIONS (the functions students write"),
        ('FUNCTIONS = "double"', "FUNCTIONS should be tuple[str, ...], not str 'double'"),
        ('FUNCTIONS = ("double",)\nTUPLE_NAMES = ["y"]', "TUPLE_NAMES should be dict"),
        ('FUNCTIONS = ("double",)\nENDLESS = "triple"', "ENDLESS names 'triple'"),
        (
            'FUNCTIONS = ("double",)\nmutant_inputs = 3',
            "mutant_inputs should be mutant_inputs(rng)",
        ),
    ],
)
def test_a_missing_or_mistyped_hook_is_one_line(tiny, capsys, change, says):  # noqa: F811
    content = tiny / "solutions" / "doubling" / "content.py"
    text = CONTENT.replace('FUNCTIONS = ("double",)', change)
    if "lacks" in says:
        text = text.replace('FUNCTIONS = ("double",)\n', "")
    content.write_text(text)
    code = main(["fixture", "--course", str(tiny)])
    err = capsys.readouterr().err
    assert code == 2 and says in err and err.count("\n") == 1, err


def test_every_hook_declares_what_a_value_of_its_form_is():
    for hook in contract.HOOKS:
        assert not hook.fits(object()), hook.name


CALLS = """
def project(X):
    return X

def score(Q, K):
    return helper(Q) @ K.T

def softmax(S):
    return softmax(S) if False else S

def attend(X):
    return softmax(score(project(X), X))

def train(X):
    for _ in range(2):
        attend(X)
"""


def test_a_chain_functions_callees_are_read_off_the_reference_through_each_other():
    functions = ("project", "score", "softmax", "attend", "train")
    found = reference.calls(CALLS, functions, ("attend", "train", "score"))
    assert found == {
        "attend": ["project", "score", "softmax"],
        "train": ["project", "score", "softmax", "attend"],  # through attend
        "score": [],  # helper() is not one of the assignment's functions
    }


def test_a_failing_multi_head_attend_is_pointed_only_at_the_functions_it_calls():
    course = load_course(ROOT / "course.yaml")
    content = loader.load(course, course.assignment("masked"))
    hint = content.catalogue.chain_hint("multi_head_attend", set(content.functions))
    assert "masked_softmax()" in hint and "split_heads()" in hint
    assert "causal_mask" not in hint and "padding_mask" not in hint
