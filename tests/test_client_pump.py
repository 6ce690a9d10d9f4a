"""The client's loop: signals reach it through a wake-up pipe that never prints when it is full."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import threading
import time

import pytest

from dsh.client.attach import Pump
from dsh.client.tty import RawTerminal


def test_a_full_wake_up_pipe_is_quiet_under_a_signal_storm(capfd: pytest.CaptureFixture[str]) -> None:
    read_fd, write_fd = os.pipe()
    try:
        with Pump(RawTerminal(read_fd)) as pump:
            # The loop is busy elsewhere and does not drain the pipe: fill it to the brim.
            try:
                while True:
                    os.write(pump._wake_w, b"\x00" * 4096)
            except BlockingIOError:
                pass
            for _ in range(50):
                signal.raise_signal(signal.SIGWINCH)
        err = capfd.readouterr().err
        assert "Exception ignored" not in err and "wakeup" not in err
    finally:
        os.close(read_fd)
        os.close(write_fd)


def test_the_pump_gives_back_the_handlers_it_found() -> None:
    before = signal.getsignal(signal.SIGWINCH)
    read_fd, write_fd = os.pipe()
    try:
        with Pump(RawTerminal(read_fd)):
            assert signal.getsignal(signal.SIGWINCH) is not before
        assert signal.getsignal(signal.SIGWINCH) is before
    finally:
        os.close(read_fd)
        os.close(write_fd)


def test_work_left_for_later_waits_until_the_session_is_on_screen() -> None:
    """The spawner's start is owed by a client that started its host directly: it must not compete with
    that host before the first frame is shown, and must not wait for a session that keeps printing."""
    from dsh import protocol
    from dsh.client.attach import Attachment

    host, client = socket.socketpair()
    stdin_r, stdin_w = os.pipe()
    out_r, out_w = os.pipe()
    ran: list[float] = []
    seen: dict[str, object] = {}

    def the_host() -> None:
        time.sleep(0.3)
        seen["before_output"] = list(ran)
        host.sendall(protocol.frame(protocol.OUTPUT, b"first frame"))
        time.sleep(0.4)
        seen["after_output"] = list(ran)
        host.close()

    attachment = Attachment(client, "s1", {}, b"")
    attachment.later.append(lambda: ran.append(time.monotonic()))
    thread = threading.Thread(target=the_host)
    thread.start()
    try:
        with Pump(RawTerminal(stdin_r), stdin=stdin_r, stdout=out_w) as pump:
            outcome = pump.run(attachment, lambda *a: None)
    finally:
        thread.join(5)
        for fd in (stdin_r, stdin_w, out_r, out_w):
            os.close(fd)
        client.close()
    assert outcome.kind == "lost"
    assert seen["before_output"] == []
    assert len(seen["after_output"]) == 1  # type: ignore[arg-type]
    assert attachment.later == []


def test_work_left_for_later_runs_soon_after_the_first_frame_of_a_session_that_never_pauses(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from dsh import protocol
    from dsh.client import attach
    from dsh.client.attach import Attachment

    monkeypatch.setattr(attach, "_LATER_AT_MOST", 0.3)

    host, client = socket.socketpair()
    stdin_r, stdin_w = os.pipe()
    out_r, out_w = os.pipe()
    ran: list[float] = []
    stop = threading.Event()

    def chatty_host() -> None:
        while not stop.is_set():
            host.sendall(protocol.frame(protocol.OUTPUT, b"x"))
            time.sleep(0.01)
        host.close()

    def drain() -> None:
        with contextlib.suppress(OSError):
            while os.read(out_r, 65536):
                pass

    attachment = Attachment(client, "s1", {}, b"")
    attachment.later.append(lambda: ran.append(time.monotonic()))
    threads = [threading.Thread(target=chatty_host), threading.Thread(target=drain, daemon=True)]
    for t in threads:
        t.start()
    started = time.monotonic()
    try:
        with Pump(RawTerminal(stdin_r), stdin=stdin_r, stdout=out_w) as pump:
            timer = threading.Timer(0.9, stop.set)
            timer.start()
            pump.run(attachment, lambda *a: None)
    finally:
        stop.set()
        threads[0].join(5)
        os.close(out_w)
        for fd in (stdin_r, stdin_w):
            os.close(fd)
        client.close()
    assert len(ran) == 1 and ran[0] - started < 0.8  # the host never paused 50 ms in that time
