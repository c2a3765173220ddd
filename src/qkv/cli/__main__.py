"""`python -m qkv.cli`, as the Gradescope container's run_autograder calls it."""

import sys

from qkv.cli import main

sys.exit(main())
