"""``python -m dustsim``: the command line.

Ctrl-C or SIGTERM while Python is still loading dustsim exits quietly (130 / 143) instead
of printing a traceback; from then on :func:`dustsim.cli.shell.main` handles them.
"""

import signal
import sys


def _terminated(signum, frame):
    raise SystemExit(143)


signal.signal(signal.SIGTERM, _terminated)
try:
    from dustsim.cli.shell import entry
except KeyboardInterrupt:
    sys.exit(130)

entry()
