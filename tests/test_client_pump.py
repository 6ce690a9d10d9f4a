"""The client's loop: signals reach it through a wake-up pipe that never prints when it is full."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import threading
import time
from collections.abc import Callable

import pytest

from dsh.client.attach import Attachment, Outcome, Pump, SwitchHandler
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


class _Wires:
    """What a pump runs between: the host's end of a socket pair, the terminal's stdin pipe and its
    stdout pipe (read back without blocking)."""

    def __init__(self) -> None:
        self.host, self.client = socket.socketpair()
        self.stdin_r, self.stdin_w = os.pipe()
        self.out_r, self.out_w = os.pipe()
        os.set_blocking(self.out_r, False)

    def run(
        self, attachment: Attachment, on_switch: SwitchHandler, threads: list[threading.Thread], pumps: list[Pump]
    ) -> tuple[Outcome, bytes]:
        """The pump's outcome and what it wrote to the terminal, with `threads` (the host, the user)
        running beside it; every end but stdin's writing one is closed after."""
        for t in threads:
            t.start()
        try:
            with Pump(RawTerminal(self.stdin_r), stdin=self.stdin_r, stdout=self.out_w) as pump:
                pumps.append(pump)
                outcome = pump.run(attachment, on_switch)
            self.client.shutdown(socket.SHUT_RDWR)
            for t in threads:
                t.join(5)
            shown = b""
            with contextlib.suppress(BlockingIOError):
                shown = os.read(self.out_r, 65536)
        finally:
            for fd in (self.stdin_r, self.out_r, self.out_w):
                os.close(fd)
            self.client.close()
            self.host.close()
        return outcome, shown

    def read_controls(self, controls: list[dict], on_each: Callable[[dict], None]) -> None:
        """As the host: read the client's frames until it goes, each control message appended to
        `controls`, then handed to `on_each`."""
        from dsh import protocol

        frames = protocol.FrameReader()
        with contextlib.suppress(OSError):
            while data := self.host.recv(65536):
                for kind, payload in frames.feed(data):
                    if kind == protocol.CONTROL:
                        controls.append(protocol.parse_json(payload))
                        on_each(controls[-1])


def _silent_host_pump(monkeypatch: pytest.MonkeyPatch, answer_pings: bool) -> tuple[object, bytes, list[dict]]:
    """A host that welcomed the client, then reads its frames and answers only pings (or nothing); the
    user types a key, waits, then C-b and d in two reads. The outcome, what the terminal got, and the
    control messages the host received."""
    from dsh import protocol
    from dsh.client import attach

    monkeypatch.setattr(attach, "PING_AFTER", 0.2)
    monkeypatch.setattr(attach, "WEDGED_AFTER", 0.6)
    wires = _Wires()
    host, stdin_w = wires.host, wires.stdin_w
    controls: list[dict] = []

    def answer(message: dict) -> None:
        if answer_pings and message["type"] == "ping":
            host.sendall(protocol.control(protocol.ToClient.PONG))

    def the_host() -> None:
        wires.read_controls(controls, answer)

    def the_user() -> None:
        os.write(stdin_w, b"x")
        time.sleep(1.5)
        os.write(stdin_w, b"\x02")
        time.sleep(0.1)
        os.write(stdin_w, b"d")
        if answer_pings:
            time.sleep(0.5)
            os.close(stdin_w)  # the terminal goes: the pump ends there

    welcome = {"ok": True, "pid": 4242, "ping": True, "detach": "\x02d"}
    attachment = Attachment(wires.client, "s1", welcome, b"")
    threads = [threading.Thread(target=the_host), threading.Thread(target=the_user)]
    try:
        outcome, shown = wires.run(attachment, lambda *a: None, threads, [])
    finally:
        if not answer_pings:
            os.close(stdin_w)  # (answering, the user closed it: the terminal went)
    return outcome, shown, controls


def test_a_host_that_stops_answering_is_said_and_its_detach_keys_work_here(monkeypatch: pytest.MonkeyPatch) -> None:
    outcome, shown, controls = _silent_host_pump(monkeypatch, answer_pings=False)
    assert b"the session host (pid 4242) is not answering; C-b d detaches" in shown, shown
    assert outcome.kind == "exit" and outcome.code == 0  # type: ignore[attr-defined]
    assert "dsh attach s1" in outcome.message and "kill -CONT 4242" in outcome.message  # type: ignore[attr-defined]
    assert controls == [{"type": "ping"}]  # asked once, not at every key


def test_a_host_that_answers_pings_is_never_called_wedged(monkeypatch: pytest.MonkeyPatch) -> None:
    # Keys into a pane that echoes nothing (a password prompt): the host is there, and says so.
    outcome, shown, controls = _silent_host_pump(monkeypatch, answer_pings=True)
    assert b"not answering" not in shown
    assert outcome.kind == "signal"  # type: ignore[attr-defined]
    assert {"type": "ping"} in controls


@pytest.mark.parametrize("said", [True, False], ids=["said-over-the-screen", "nothing-said"])
def test_a_switch_that_fails_after_a_line_over_the_screen_asks_the_host_to_draw_it_again(said: bool) -> None:
    """A /resume's switch to a host that is slow to answer says so over the view's screen (the client's
    own line on the bottom row, which the host's next frame would not know to repaint): when it then
    fails, the host is told why and asked for a whole frame; with nothing said, only told why."""
    from dsh import protocol

    wires = _Wires()
    host, stdin_w = wires.host, wires.stdin_w
    controls: list[dict] = []
    pumps: list[Pump] = []

    def on_switch(session_id: str | None, cwd: str, from_cwd: str, argv: list[str] | None) -> str:
        if said:
            pumps[0].say("dsh: the host of session s2 has not answered for 2 s")
        return "the host of session s2 did not answer in 10 s"

    def on_control(message: dict) -> None:
        if message["type"] == "switch_failed":
            threading.Timer(0.3, lambda: os.close(stdin_w)).start()  # then the terminal goes

    def the_host() -> None:
        host.sendall(protocol.control(protocol.ToClient.SWITCH, session="s2", cwd="/"))
        wires.read_controls(controls, on_control)

    attachment = Attachment(wires.client, "s1", {"ok": True, "pid": 4242}, b"")
    outcome, shown = wires.run(attachment, on_switch, [threading.Thread(target=the_host)], pumps)
    assert outcome.kind == "signal"  # type: ignore[attr-defined]
    failed = {"type": "switch_failed", "error": "the host of session s2 did not answer in 10 s"}
    if said:
        assert b"\x1b[7m dsh: the host of session s2 has not answered for 2 s \x1b[m" in shown, shown
        assert controls == [failed, {"type": "redraw"}]
    else:
        assert shown == b"" and controls == [failed]
