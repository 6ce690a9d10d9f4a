"""The snapshot scheduler: debounce with a fake clock, immediate structural writes, synchronous flush."""

from __future__ import annotations

import itertools
import threading
from collections.abc import Callable, Mapping

import pytest

from dsh.persist.records import Snapshot
from dsh.persist.scheduler import SerialWorker, SnapshotScheduler
from dsh.persist.snapshot import load_snapshot


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


class Recorder:
    """Builds numbered snapshots and records what was written, and on which thread."""

    def __init__(self) -> None:
        self.built = 0
        self.build_threads: list[int] = []
        self.written: list[tuple[int, int]] = []  # (build number, thread id)
        self.fail = False

    def build(self) -> tuple[Snapshot, dict[str, bytes]]:
        self.built += 1
        self.build_threads.append(threading.get_ident())
        return Snapshot(session_id="sched", saved_at=str(self.built)), {}

    def write(self, snapshot: Snapshot, tails: Mapping[str, bytes]) -> None:
        if self.fail:
            raise OSError(28, "No space left on device")
        self.written.append((int(snapshot.saved_at), threading.get_ident()))

    @property
    def numbers(self) -> list[int]:
        return [n for n, _ in self.written]


class ManualRunner:
    """A background runner that runs jobs only when the test says so."""

    def __init__(self) -> None:
        self.jobs: list[Callable[[], None]] = []

    def __call__(self, job: Callable[[], None]) -> None:
        self.jobs.append(job)

    def run_all(self) -> None:
        jobs, self.jobs = self.jobs, []
        for job in jobs:
            job()


def inline(job: Callable[[], None]) -> None:
    job()


def make(
    rec: Recorder, clock: Clock, runner: Callable[[Callable[[], None]], None] = inline, **kw: object
) -> SnapshotScheduler:
    return SnapshotScheduler(rec.build, write=rec.write, interval=2.0, clock=clock, run_in_background=runner, **kw)  # type: ignore[arg-type]


def test_content_changes_are_written_at_most_once_per_interval() -> None:
    rec, clock = Recorder(), Clock()
    sched = make(rec, clock)
    write_times: list[float] = []
    for step in range(100):  # 10 s of output, a change every 0.1 s, the app's timer ticking alongside
        clock.now = 100.0 + step * 0.1
        before = len(rec.written)
        sched.mark_dirty()
        sched.tick()
        if len(rec.written) > before:
            write_times.append(clock.now)
    gaps = [b - a for a, b in itertools.pairwise(write_times)]
    assert len(write_times) == 5
    assert all(gap >= 2.0 - 1e-9 for gap in gaps)


def test_a_change_within_the_interval_is_written_by_a_later_tick() -> None:
    rec, clock = Recorder(), Clock()
    sched = make(rec, clock)
    sched.mark_dirty()
    assert rec.numbers == [1]
    clock.now += 0.5
    sched.mark_dirty()
    assert rec.numbers == [1] and sched.dirty
    clock.now += 1.4
    assert sched.tick() is False
    clock.now += 0.1
    assert sched.tick() is True
    assert rec.numbers == [1, 2] and not sched.dirty


def test_tick_without_a_change_writes_nothing() -> None:
    rec, clock = Recorder(), Clock()
    sched = make(rec, clock)
    for _ in range(5):
        clock.now += 10
        assert sched.tick() is False
    assert rec.written == [] and rec.built == 0


def test_structural_change_writes_at_once_through_the_background_runner() -> None:
    rec, clock, runner = Recorder(), Clock(), ManualRunner()
    sched = make(rec, clock, runner)
    sched.mark_dirty()
    runner.run_all()
    clock.now += 0.1
    sched.structural_change()
    assert rec.numbers == [1]  # built now, written only when the runner runs it
    assert len(runner.jobs) == 1
    runner.run_all()
    assert rec.numbers == [1, 2]


def test_structural_change_resets_the_debounce() -> None:
    rec, clock = Recorder(), Clock()
    sched = make(rec, clock)
    sched.structural_change()
    clock.now += 1.0
    sched.mark_dirty()
    assert rec.numbers == [1]
    clock.now += 1.0
    sched.tick()
    assert rec.numbers == [1, 2]


def test_held_changes_are_built_and_written_once_on_release() -> None:
    # A session's start-up: its tab, its pane and its start() are three structural changes, and its
    # shell's first output a content change, all before the first frame.
    rec, clock = Recorder(), Clock()
    sched = make(rec, clock)
    sched.hold()
    sched.structural_change()
    sched.structural_change()
    sched.mark_dirty()
    sched.structural_change()
    clock.now += 10
    assert sched.tick() is False
    assert rec.built == 0 and rec.written == []
    sched.release()
    assert rec.numbers == [1] and not sched.dirty
    sched.release()
    sched.structural_change()  # released: at once again
    assert rec.numbers == [1, 2]


def test_a_content_change_held_is_written_on_release_and_nothing_when_none_was() -> None:
    rec, clock = Recorder(), Clock()
    sched = make(rec, clock)
    sched.hold()
    sched.release()
    assert rec.built == 0
    sched.hold()
    sched.mark_dirty()
    assert rec.built == 0 and sched.dirty
    sched.release()
    assert rec.numbers == [1]


def test_flush_writes_while_held_and_clears_the_held_change() -> None:
    rec, clock = Recorder(), Clock()
    sched = make(rec, clock)
    sched.hold()
    sched.structural_change()
    sched.flush()
    assert rec.numbers == [1]
    sched.release()
    assert rec.numbers == [1]  # nothing changed since the flush


def test_flush_writes_synchronously_on_the_callers_thread() -> None:
    rec, clock, runner = Recorder(), Clock(), ManualRunner()
    sched = make(rec, clock, runner)
    sched.mark_dirty()  # queued, never run by the runner before flush
    sched.flush()
    assert rec.written == [(2, threading.get_ident())]
    assert not sched.dirty


def test_a_queued_older_write_never_lands_after_a_flush() -> None:
    rec, clock, runner = Recorder(), Clock(), ManualRunner()
    sched = make(rec, clock, runner)
    sched.structural_change()
    sched.flush()
    runner.run_all()
    assert rec.numbers == [2]


def test_queued_writes_coalesce_to_the_newest() -> None:
    rec, clock, runner = Recorder(), Clock(), ManualRunner()
    sched = make(rec, clock, runner)
    for _ in range(3):
        sched.structural_change()
    runner.run_all()
    assert rec.numbers == [3]


def test_default_worker_builds_on_the_caller_and_writes_in_order_on_another_thread() -> None:
    rec, clock = Recorder(), Clock()
    sched = SnapshotScheduler(rec.build, write=rec.write, clock=clock)
    for _ in range(50):
        sched.structural_change()
    sched.close()
    me = threading.get_ident()
    assert set(rec.build_threads) == {me}
    assert rec.written and all(thread != me for _, thread in rec.written)
    assert rec.numbers == sorted(rec.numbers) and rec.numbers[-1] == 50


def test_failed_background_write_is_reported_and_retried() -> None:
    rec, clock = Recorder(), Clock()
    errors: list[Exception | None] = []
    sched = make(rec, clock, on_error=errors.append)
    rec.fail = True
    sched.structural_change()
    assert isinstance(sched.last_error, OSError) and errors == [sched.last_error]
    assert sched.failure == sched.last_error.strerror  # what the status line shows until a write succeeds
    assert sched.dirty
    clock.now += 2.0
    assert sched.tick() is True  # retried, and failing still: still shown
    assert sched.failure is not None and len(errors) == 2
    rec.fail = False
    clock.now += 2.0
    assert sched.tick() is True
    assert rec.numbers == [3]
    assert sched.failure is None and errors[-1] is None  # told, so the status line can clear


def test_flush_raises_when_the_write_fails() -> None:
    rec, clock = Recorder(), Clock()
    sched = make(rec, clock)
    rec.fail = True
    with pytest.raises(OSError):
        sched.flush()


def test_a_build_error_is_reported_not_raised_into_the_keystroke_path() -> None:
    clock = Clock()
    errors: list[Exception] = []

    def broken() -> tuple[Snapshot, dict[str, bytes]]:
        raise ValueError("bad live state")

    sched = SnapshotScheduler(
        broken, write=lambda s, t: None, clock=clock, run_in_background=inline, on_error=errors.append
    )
    sched.mark_dirty()
    sched.structural_change()
    assert [str(e) for e in errors] == ["bad live state", "bad live state"]


def test_the_default_writer_puts_the_snapshot_on_disk() -> None:
    rec = Recorder()
    sched = SnapshotScheduler(rec.build)
    sched.structural_change()
    sched.close()
    loaded = load_snapshot("sched")
    assert loaded.snapshot is not None and loaded.snapshot.saved_at == "1"


def test_serial_worker_survives_a_failing_job() -> None:
    worker = SerialWorker()
    done: list[int] = []

    def boom() -> None:
        raise RuntimeError("x")

    worker.submit(boom)
    worker.submit(lambda: done.append(1))
    worker.close()
    assert done == [1]


def test_a_flush_that_interrupts_a_write_on_the_same_thread_does_not_deadlock() -> None:
    clock = Clock()
    written: list[str] = []
    holder: list[SnapshotScheduler] = []

    def build() -> tuple[Snapshot, dict[str, bytes]]:
        return Snapshot(session_id="sched", saved_at=str(len(written))), {}

    def write(snapshot: Snapshot, tails: Mapping[str, bytes]) -> None:
        if not written:
            written.append("outer")
            holder[0].flush()  # what a SIGTERM handler does if it lands mid-write
        else:
            written.append("inner")

    holder.append(SnapshotScheduler(build, write=write, clock=clock, run_in_background=inline))
    thread = threading.Thread(target=holder[0].structural_change, daemon=True)
    thread.start()
    thread.join(5)
    assert not thread.is_alive()
    assert written == ["outer", "inner"]
