"""``python -m dustsim``: the command line."""

import sys

from dustsim.cli import main

sys.exit(main())
