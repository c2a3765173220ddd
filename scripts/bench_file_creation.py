"""What writing one student's output files costs, in a fresh folder and where the same files were just deleted.

The grader writes two files per student (results/<id>.json and feedback/<id>.html), each created
under a temporary name and renamed into place. On a filesystem without a journal (ext4 on these
machines), the inode allocator passes over inodes freed in the last minutes, so creating files next
to thousands just deleted costs several times more. `make bench` keeps every run's outputs until all
runs are done for that reason; this script shows the effect on its own. Files deleted shortly
before it starts (by an earlier benchmark, say) count too: its first round may pay for them. Files
deleted in the same second as the new ones are created do not count, so the rounds wait a second.

    python scripts/bench_file_creation.py [--students 2000] [--rounds 3] [--dir DIR]
"""

from __future__ import annotations

import argparse
import os
import shutil
import tempfile
import time


def write_outputs(out: str, students: int) -> float:
    """Microseconds of CPU per file: two folders, two files per student, each written then renamed."""
    for sub in ("results", "feedback"):
        os.makedirs(os.path.join(out, sub))
    started = time.process_time()
    for i in range(students):
        for sub, ext in (("results", "json"), ("feedback", "html")):
            path = os.path.join(out, sub, f"s{i:05d}.{ext}")
            fd = os.open(path + ".tmp", os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
            os.write(fd, b"x" * 3000)
            os.close(fd)
            os.rename(path + ".tmp", path)
    return (time.process_time() - started) / (2 * students) * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument(
        "--dir", default=None, help="where to write (default: the system's temporary folder)"
    )
    args = parser.parse_args()
    tmp = tempfile.mkdtemp(prefix="qkv-files-", dir=args.dir)
    try:
        print(
            f"{args.students} students, 2 files each, in {tmp} (CPU per file: create, write, rename)"
        )
        for i in range(args.rounds):
            print(
                f"  fresh folder {i}:              {write_outputs(os.path.join(tmp, f'kept{i}'), args.students):7.1f} us"
                f"   (earlier rounds' files kept)",
                flush=True,
            )
        for i in range(args.rounds):
            out = os.path.join(tmp, "reused")
            print(
                f"  same folder, just deleted {i}: {write_outputs(out, args.students):7.1f} us"
                f"   (the previous round's files deleted a second before)",
                flush=True,
            )
            shutil.rmtree(out)
            time.sleep(
                1.1
            )  # the allocator passes over inodes freed in an earlier second, not in this one
    finally:
        shutil.rmtree(tmp)


if __name__ == "__main__":
    main()
