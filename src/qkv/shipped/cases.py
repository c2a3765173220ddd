"""The fixed public cases students may see, with the expected values and the catalogued wrong ones.

Written into the release as public_cases.json; the hidden suites draw their own seeded cases. The
cases themselves come from the assignment's content; this module computes what they should give.
"""

from __future__ import annotations

import numpy as np

from qkv.shipped.checks import encode


def build(
    content, reference, *, rtol: float, atol: float, module: str, packages=("numpy",), timeouts=None
) -> dict:
    """The content of public_cases.json for one assignment (`reference` may be a master being released);
    `timeouts`: the functions' own per-call limits (Assignment.call_timeouts)."""
    catalogue = content.catalogue
    functions = {}
    for function, cases in content.public_cases(reference).items():
        entries = []
        for name, args in cases:
            expected = getattr(reference, function)(*[np.array(a) for a in args])
            entries.append(
                {
                    "name": name,
                    "args": [encode(a) for a in args],
                    "expected": encode(expected),
                    "variants": [
                        [msg, encode(v)] for msg, v in catalogue.variants(reference, function, args)
                    ],
                    "crashes": [list(c) for c in catalogue.crashes(reference, function, args)],
                    "mutation_message": catalogue.mutation_message(function),
                }
            )
        functions[function] = entries
    return {
        "module": module,
        "tolerance": {"rtol": rtol, "atol": atol},
        "packages": list(packages),
        "timeouts": dict(sorted((timeouts or {}).items())),
        "tuple_names": {f: list(n) for f, n in sorted(content.tuple_names.items())},
        "chain": list(content.chain),
        "functions": functions,
    }
