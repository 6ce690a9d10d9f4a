"""When to write the snapshot: debounced content changes, immediate structural ones, a synchronous flush."""

from __future__ import annotations

import contextlib
import queue
import threading
import time
from collections.abc import Callable, Mapping
from typing import TypeVar

from dsh.ownlog import log_line
from dsh.persist.records import Snapshot
from dsh.persist.snapshot import write_snapshot

Build = Callable[[], tuple[Snapshot, dict[str, bytes]]]
Write = Callable[[Snapshot, Mapping[str, bytes]], object]  # what it returns is not used
Runner = Callable[[Callable[[], None]], None]
T = TypeVar("T")


class SerialWorker:
    """One daemon thread running jobs in submission order, so writes never overlap or reorder."""

    def __init__(self, name: str = "dsh-snapshot") -> None:
        self._jobs: queue.Queue[Callable[[], None] | None] = queue.Queue()
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._thread.start()

    def submit(self, job: Callable[[], None]) -> None:
        self._jobs.put(job)

    def _run(self) -> None:
        while True:
            job = self._jobs.get()
            if job is None:
                return
            # A failing job must not kill the thread that runs every later write.
            with contextlib.suppress(Exception):
                job()

    def close(self, timeout: float = 5.0) -> None:
        """Finish the queued jobs, then stop the thread (waiting at most `timeout` seconds)."""
        self._jobs.put(None)
        if self._thread is not threading.current_thread():
            self._thread.join(timeout)


class SnapshotScheduler:
    """Decide when the live state is built and written.

    `build` runs on the caller's thread (it reads live state); `write` runs in `run_in_background`
    (by default one worker thread). Pending writes coalesce: when several are queued, only the newest
    snapshot is written, and an older one never lands after a newer one. A failed background write
    is logged, kept in `last_error` (until a write succeeds: `failure` is what a status line shows),
    passed to `on_error` (called on the worker thread; called with None when a later write succeeds)
    and retried on a later tick.
    """

    def __init__(
        self,
        build: Build,
        *,
        write: Write = write_snapshot,
        interval: float = 2.0,
        clock: Callable[[], float] = time.monotonic,
        run_in_background: Runner | None = None,
        on_error: Callable[[Exception | None], object] | None = None,  # what it returns is not used
    ) -> None:
        self._build = build
        self._write = write
        self.interval = interval  # seconds between writes at least (/reload may change it)
        self._clock = clock
        self._on_error = on_error
        self._worker: SerialWorker | None = None
        if run_in_background is None:
            self._worker = SerialWorker()
            run_in_background = self._worker.submit
        self._run = run_in_background
        self._dirty = False
        self._last_write: float | None = None
        # Reentrant: a flush from a signal handler may interrupt this thread while it holds either lock.
        self._lock = threading.RLock()  # guards _pending and _written
        self._write_lock = threading.RLock()  # one write at a time, background or flush
        self._pending: tuple[int, Snapshot, dict[str, bytes]] | None = None
        self._seq = 0
        self._written = 0
        self._closed = False
        # While held, changes wait (coalesced) for release(): a session's start-up is several structural
        # changes (its tab, its pane, its start), written once after its first frame instead of three
        # times before it.
        self._held = False
        self._held_change = False
        self.last_error: Exception | None = None

    @property
    def failure(self) -> str | None:
        """Why the snapshot on disk is behind (the last write failed and none has succeeded since)."""
        exc = self.last_error
        if exc is None:
            return None
        if isinstance(exc, OSError) and exc.strerror:
            return exc.strerror  # "No space left on device": the file names are in dsh.log
        return str(exc) or type(exc).__name__

    @property
    def written(self) -> bool:
        """Whether a snapshot was written by this scheduler (one on disk is this session's)."""
        return self._written > 0

    @property
    def dirty(self) -> bool:
        """True while a content change waits for its debounced write."""
        return self._dirty

    def mark_dirty(self) -> None:
        """Content changed (output, title, attention): written at most once per interval."""
        self._dirty = True
        self._write_if_due()

    def tick(self) -> bool:
        """The app's timer: write if something changed and the interval has passed. True if it wrote."""
        return self._write_if_due()

    def structural_change(self) -> None:
        """Tabs or panes were added, closed or rearranged: write now, still off the caller's thread."""
        if self._held:
            self._held_change = True
            return
        self._schedule()

    def hold(self) -> None:
        """Write nothing until release() (flush() still writes)."""
        self._held = True

    def release(self) -> None:
        """Write what changed while held: at once for a structural change, debounced for content."""
        if not self._held:
            return
        self._held = False
        if self._held_change:
            self._held_change = False
            self._schedule()
        else:
            self._write_if_due()

    def flush(self) -> None:
        """Write the current state synchronously (on /quit, SIGTERM, SIGHUP). Raises when the write fails."""
        snapshot, tails = self._build()
        with self._lock:
            self._seq += 1
            seq = self._seq
            self._pending = None  # anything queued is older than this
            self._dirty = False
            self._held_change = False
            self._last_write = self._clock()
        with self._write_lock:
            try:
                self._write(snapshot, tails)
            except Exception as exc:
                self.last_error = exc
                raise
            self.last_error = None
            with self._lock:
                self._written = max(self._written, seq)

    def when_idle(self, look: Callable[[], T]) -> T | None:
        """`look`'s answer, run while no write is under way (so it never sees one half done); None, and
        not run, while one is: the caller looks again later."""
        if not self._write_lock.acquire(blocking=False):
            return None
        try:
            return look()
        finally:
            self._write_lock.release()

    def close(self) -> None:
        """Stop the background worker after it finishes what is queued; call flush() first to save."""
        self._closed = True
        if self._worker is not None:
            self._worker.close()
            self._worker = None

    def _write_if_due(self) -> bool:
        if not self._dirty or self._held:
            return False
        now = self._clock()
        if self._last_write is not None and now - self._last_write < self.interval:
            return False
        return self._schedule()

    def _schedule(self) -> bool:
        if self._closed:
            return False
        try:
            snapshot, tails = self._build()
        except Exception as exc:
            self._report(exc)
            return False
        with self._lock:
            self._seq += 1
            self._pending = (self._seq, snapshot, tails)
            self._dirty = False
            self._last_write = self._clock()
        self._run(self._write_pending)
        return True

    def _write_pending(self) -> None:
        with self._write_lock:
            with self._lock:
                job, self._pending = self._pending, None
                if job is None or job[0] <= self._written:
                    return
            seq, snapshot, tails = job
            try:
                self._write(snapshot, tails)
            except Exception as exc:
                self._dirty = True  # the next tick after the interval tries again
                self._report(exc)
                return
            recovered = self.last_error is not None
            self.last_error = None
            with self._lock:
                self._written = max(self._written, seq)
        if recovered and self._on_error is not None:
            with contextlib.suppress(Exception):
                self._on_error(None)  # the status line may stop saying so

    def _report(self, exc: Exception) -> None:
        self.last_error = exc
        log_line(f"snapshot write failed: {type(exc).__name__}: {exc}")
        if self._on_error is not None:
            with contextlib.suppress(Exception):
                self._on_error(exc)
