"""`dsh wait --output REGEX`: the regex runs here, in the client, on each new capture of the pane, cut
off after a second (a pattern that backtracks for ever costs its own process, never the host)."""

from __future__ import annotations

import re
import signal
import sys
import time
from typing import TYPE_CHECKING, Any

from dsh.client.control import REFUSED, TIMED_OUT, ControlError, call

if TYPE_CHECKING:
    from dsh.cli.control_cmd import Where

# One search of the pane's text may take this long.
REGEX_SECONDS = 1.0
# A capture waits this long at most for new output before answering (then it is asked again).
HOLD = 20.0


class _TooSlow(Exception):
    pass


def _alarm(signum: int, frame: object) -> None:
    raise _TooSlow


def search(pattern: re.Pattern[str], text: str, seconds: float = REGEX_SECONDS) -> re.Match[str] | None:
    """`pattern.search(text)`, or ControlError when it takes longer than `seconds` (Python's regex
    engine checks for signals as it backtracks)."""
    previous = signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        return pattern.search(text)
    except _TooSlow:
        raise ControlError(
            f"the regular expression took more than {seconds:g} s on the pane's text: make it simpler", REFUSED
        ) from None
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def wait_output(where: Where, options: dict[str, Any], timeout: float | None) -> int:
    from dsh.cli.control_cmd import UsageError, _int, _print_json

    try:
        pattern = re.compile(options["output"], re.MULTILINE)
    except re.error as exc:
        raise UsageError(f"dsh wait --output: not a regular expression: {exc}") from None
    lines = _int(options, "lines")
    deadline = None if timeout is None else time.monotonic() + timeout
    since: int | None = None
    while True:
        fields: dict[str, Any] = {"join": True}
        if lines:
            fields["lines"] = lines
        hold = HOLD if deadline is None else max(0.0, min(HOLD, deadline - time.monotonic()))
        if since is not None:
            fields.update(since=since, hold=hold)
        reply = call(where.socket, where.request("capture", **fields), timeout=hold + 15.0)
        found = search(pattern, reply.get("text", ""))
        if found is not None:
            if options.get("json"):
                _print_json({"session": reply.get("session"), "pane": reply.get("pane"), "match": found.group(0)})
            else:
                sys.stdout.write(found.group(0) + "\n")
            return 0
        if not reply.get("running"):
            raise ControlError(f"pane {reply.get('pane')} ended and its screen has no match", 1)
        if deadline is not None and time.monotonic() >= deadline:
            raise ControlError(f"timed out: pane {reply.get('pane')} shows no match", TIMED_OUT)
        since = reply.get("fed") if isinstance(reply.get("fed"), int) else 0
