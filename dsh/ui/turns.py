"""Work left for after a frame, run a piece per turn of the event loop so that keys come first."""

from __future__ import annotations

import asyncio
import weakref
from collections import deque
from collections.abc import Callable

Job = Callable[[], object]

# Each loop's jobs still to run (a loop that ends with some left takes them with it).
_queues: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, deque[Job]] = weakref.WeakKeyDictionary()


def one_per_turn(loop: asyncio.AbstractEventLoop, job: Job) -> None:
    """Run `job` on a later turn of `loop`, after the jobs queued before it, one job a turn (a job
    already waiting is not queued twice).

    What start-up leaves for after the first frame (the default key bindings, prompt_toolkit's package
    __init__, the view's own bindings, the index refresh) took 35-45 ms of the loop in one go when each
    was `call_soon`ed, and a key typed just then waited for all of it. A timer's callback is queued
    behind the input that arrived in the same turn, so each job here goes after any key waiting, and a
    key waits for one job at most."""
    queue = _queues.get(loop)
    if queue is None:
        queue = _queues[loop] = deque()
        loop.call_later(0, _step, loop)
    if job not in queue:
        queue.append(job)


def _step(loop: asyncio.AbstractEventLoop) -> None:
    queue = _queues.get(loop)
    if not queue:
        _queues.pop(loop, None)
        return
    job = queue.popleft()
    try:
        job()
    finally:
        loop.call_later(0, _step, loop)


__all__ = ["one_per_turn"]
