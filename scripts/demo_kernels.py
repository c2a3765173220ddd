"""The demo class graded under each BLAS kernel gives the same gradebooks, byte for byte.

OpenBLAS picks its kernel by CPU; OPENBLAS_CORETYPE forces one, so one machine stands in for
others. Exits 1 and names the files that differ when any gradebook changes with the kernel.

    python scripts/demo_kernels.py [--size N] [--kernels Haswell,Nehalem,Prescott]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
KERNELS = ("Haswell", "Nehalem", "Prescott")
CLI = "import sys, qkv.cli; sys.exit(qkv.cli.main())"


def gradebooks(out: Path) -> dict[str, bytes]:
    return {
        p.relative_to(out).as_posix(): p.read_bytes() for p in sorted(out.rglob("gradebook.csv"))
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, help="students per assignment (default: the demo's)")
    parser.add_argument("--kernels", default=",".join(KERNELS))
    args = parser.parse_args()
    kernels = args.kernels.split(",")
    books = {}
    with tempfile.TemporaryDirectory(prefix="qkv-kernels-") as tmp:
        for kernel in kernels:
            out = Path(tmp) / kernel
            size = ["--size", str(args.size)] if args.size else []
            cmd = [sys.executable, "-c", CLI, "demo", "--course", str(ROOT / "course.yaml")]
            subprocess.run(
                [*cmd, "--out", str(out), "--quiet", *size],
                env={**os.environ, "OPENBLAS_CORETYPE": kernel, "OPENBLAS_NUM_THREADS": "1"},
                check=True,
                stdout=subprocess.DEVNULL,
            )
            books[kernel] = gradebooks(out)
    first = kernels[0]
    differ = sorted(
        {name for k in kernels for name in books[first].keys() | books[k].keys()
         if books[k].get(name) != books[first].get(name)}
    )  # fmt: skip
    for name in sorted(books[first]):
        rows = books[first][name].count(b"\n") - 1
        print(f"{name}: {rows} students, {'DIFFERS' if name in differ else 'identical'} under "
              f"{', '.join(kernels)}")  # fmt: skip
    if not books[first]:
        print("no gradebook was written", file=sys.stderr)
        return 1
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
