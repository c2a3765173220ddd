# Tries to write a perfect score into the output folder (OUT is filled in by the test).
import json
import os

OUT = "__OUT__"
for name in ("gradebook.csv", os.path.join("results", "write_output.json"), os.path.join("results", "honest.json"), "pwned.txt"):
    try:
        with open(os.path.join(OUT, name), "w") as f:
            f.write(json.dumps({"score": 100}))
    except OSError:
        pass


def softmax(S):
    with open(os.path.join(OUT, "pwned.txt"), "w") as f:
        f.write("100")
    return S
