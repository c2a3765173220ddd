"""Writes files into its folder as fast as it can while loading: the disk must not fill up.

The folder is on a tmpfs charged to the submission's memory limit (with cgroups), so this ends in
that limit, never on the grading machine's disk.
"""
import time

import numpy as np

chunk = b"x" * (200 * 1024)  # under the per-file limit: only the number of files grows
started, n = time.time(), 0
while time.time() - started < 30:
    with open(f"f{n}.bin", "wb") as f:
        f.write(chunk)
    n += 1


def project(X, W_q, W_k, W_v):
    return np.zeros((1, 1)), np.zeros((1, 1)), np.zeros((1, 1))
