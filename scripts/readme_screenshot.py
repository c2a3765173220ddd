"""Redraw docs/img/feedback.png, the README's picture, from the page `make demo` writes.

The picture is the attention assignment's feedback page of the student whose softmax runs along
the wrong axis, as headless Chromium draws it in a 1280 x 900 window.

    make demo && python scripts/readme_screenshot.py [--page FILE] [--out PNG]
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "demo-out" / "attention" / "graded" / "feedback" / "mistake_softmax_axis0.html"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--page", type=Path, default=PAGE)
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "img" / "feedback.png")
    args = parser.parse_args()
    chromium = next(filter(None, map(shutil.which, ("chromium", "chromium-browser"))), None)
    if chromium is None:
        sys.exit("chromium is not installed (Debian: apt-get install chromium)")
    if not args.page.is_file():
        sys.exit(f"{args.page} does not exist: run make demo first")
    with tempfile.TemporaryDirectory() as profile:
        subprocess.run(
            [
                chromium,
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--hide-scrollbars",
                f"--user-data-dir={profile}",
                "--window-size=1280,900",
                f"--screenshot={args.out.resolve()}",
                args.page.resolve().as_uri(),
            ],
            check=True,
            capture_output=True,
        )
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
