"""The client's loop: signals reach it through a wake-up pipe that never prints when it is full."""

from __future__ import annotations

import os
import signal

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
