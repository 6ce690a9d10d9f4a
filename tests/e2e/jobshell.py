"""Run a command as a job-control shell would: in its own process group, in the terminal's foreground.

A program started straight in a fresh PTY is a session leader in an orphaned process group, where the
kernel drops SIGTSTP; under a real shell it is a job that can be stopped and continued. This is that
shell, minus everything else: it waits for the job (through stops) and exits with its status.

    python jobshell.py PROGRAM [ARG...]
"""

from __future__ import annotations

import os
import signal
import sys


def main() -> int:
    signal.signal(signal.SIGTTOU, signal.SIG_IGN)  # to give the terminal back when the job ends
    pid = os.fork()
    if pid == 0:
        os.setpgid(0, 0)
        os.tcsetpgrp(0, os.getpid())
        signal.signal(signal.SIGTTOU, signal.SIG_DFL)
        os.execvp(sys.argv[1], sys.argv[1:])
    os.setpgid(pid, pid)
    while True:
        _, status = os.waitpid(pid, os.WUNTRACED | os.WCONTINUED)
        if os.WIFEXITED(status) or os.WIFSIGNALED(status):
            os.tcsetpgrp(0, os.getpgrp())
            return os.waitstatus_to_exitcode(status)


if __name__ == "__main__":
    raise SystemExit(main())
