"""The content contract: one declaration the loader checks, with one line for what is wrong."""

import pytest

from qkv.cli import main
from qkv.content import contract
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
