"""One terminal: a child in a PTY, read on the asyncio loop and emulated by a TermScreen."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import shutil
import signal
import termios
import time
from collections import deque
from collections.abc import Callable
from typing import TYPE_CHECKING

import ptyprocess

from dsh.term.key_bytes import alt_key_bytes, key_to_bytes, paste_bytes, typed_bytes
from dsh.term.replay import strip_modes
from dsh.term.screen import TermScreen
from dsh.term.scrollback import Scrollback
from dsh.term.sequences import FOCUS_EVENTS, SYNCHRONIZED_OUTPUT
from dsh.text import sanitize

if TYPE_CHECKING:
    from dsh.term.copymode import CopyMode

__all__ = ["Terminal"]

logger = logging.getLogger(__name__)

READ_CHUNK = 65536
# Bytes handled per reader callback: the loop gets back to the keyboard at least this often.
MAX_READ_PER_CALLBACK = 32768
EXIT_NOT_STARTED = 127
# Longest a synchronized update (mode 2026) may hold back a redraw.
SYNC_TIMEOUT = 0.15
# History rows are compacted (FrozenLine) after output has been quiet this long, this many per tick.
COMPACT_IDLE = 1.0
COMPACT_BATCH = 2000
_KILL_GRACE = 2.0


def _notify(callback: Callable[..., None] | None, *args: object) -> None:
    """Call a UI callback; its failure is logged, never raised into the reader (where asyncio
    would print it over the full-screen UI and the pane would stop making sense)."""
    if callback is None:
        return
    try:
        callback(*args)
    except Exception:
        logger.debug("terminal callback %r failed", callback, exc_info=True)


# Signals a pane's program must get with their default action. An ignored signal survives exec (and a
# shell started with SIGINT ignored keeps it ignored for every command: C-c would stop nothing), as
# does a blocked one. Python itself ignores SIGPIPE and SIGXFSZ (`yes | head` would complain of broken
# pipes); whatever started dsh may have ignored the rest (nohup, `trap '' INT`, a test runner).
_CHILD_DEFAULTS = (
    signal.SIGPIPE,
    signal.SIGXFSZ,
    signal.SIGINT,
    signal.SIGQUIT,
    signal.SIGTERM,
    signal.SIGHUP,
    signal.SIGTSTP,
    signal.SIGTTIN,
    signal.SIGTTOU,
    signal.SIGCHLD,
    signal.SIGWINCH,
)


def _default_signals() -> None:
    """In the child before exec: every signal a program expects at its default, none blocked (as
    tmux gives the programs of its panes)."""
    for sig in _CHILD_DEFAULTS:
        signal.signal(sig, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_SETMASK, ())


def close_pty(proc: ptyprocess.PtyProcess) -> None:
    """Close a child's PTY now, marked closed, so ptyprocess's __del__ neither sleeps its 100 ms
    (`delayafterclose`) nor signals the child whenever the object happens to be dropped."""
    if proc.closed:
        return
    with contextlib.suppress(OSError):
        proc.fileobj.close()
    proc.closed = True


class Terminal(Scrollback):
    """A PTY child and its screen. Event-loop driven: `start` adds a reader to the running
    loop, output is fed to `screen`, and `on_change` fires once per batch of output."""

    def __init__(
        self,
        argv: list[str],
        *,
        cwd: str,
        env: dict[str, str] | None = None,
        rows: int = 24,
        cols: int = 80,
        scrollback: int = 10000,
        tail_bytes: int = 65536,
        term: str = "xterm-256color",
        on_change: Callable[[], None] | None = None,
        on_exit: Callable[[int], None] | None = None,
        on_title: Callable[[str], None] | None = None,
        on_bell: Callable[[], None] | None = None,
        on_notice: Callable[[str], None] | None = None,
        on_alt_screen: Callable[[bool], None] | None = None,
        on_clipboard: Callable[[str, str], None] | None = None,
    ) -> None:
        self.argv = list(argv)
        self.cwd = cwd
        self.env = dict(os.environ if env is None else env)
        self.env["TERM"] = term
        self.env.setdefault("COLORTERM", "truecolor")  # the screen draws 24-bit colour
        self.rows = max(1, rows)
        self.cols = max(1, cols)
        self.tail_bytes = tail_bytes
        self.on_change = on_change
        self.on_exit = on_exit
        self.on_title = on_title
        self.on_bell = on_bell
        self.on_notice = on_notice
        self.on_clipboard = on_clipboard  # OSC 52 from the program: (selections, base64)
        self._replaying = False
        self.on_alt_screen = on_alt_screen
        self.screen = TermScreen(self.cols, self.rows, scrollback=scrollback, write_process_input=self.write)
        self.exit_status: int | None = None
        self.running = False
        self.pid: int | None = None
        self.scroll_offset = 0
        self.fed = 0  # bytes of output emulated so far: a view's frame older than this is stale
        self.search_match: tuple[int, int, int] | None = None  # (line index, column, length)
        self.copy: CopyMode | None = None  # set while the pane is in copy mode
        self._proc: ptyprocess.PtyProcess | None = None
        self._fd: int | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._tail = bytearray()
        self._out = bytearray()
        self._held_keys = bytearray()  # an Escape waiting to go out with the key after it
        # When the latest lines were sent (a CR written): an agent that begins a session at a prompt
        # (Codex, opencode) dates it then, and this tells which pane's prompt it was.
        self.sent: deque[float] = deque(maxlen=16)
        self._killed = False
        # Bytes read per event-loop callback before yielding; the app lowers it for background panes so a
        # flood there leaves the loop free for keys.
        self.read_budget = MAX_READ_PER_CALLBACK
        # Seconds to stop reading after a read that took the whole budget (more is waiting): the app sets
        # it for background panes, so a flood there cannot keep the loop busy all the time.
        self.read_pause = 0.0
        self._resume_timer: asyncio.TimerHandle | None = None
        self._sync_timer: asyncio.TimerHandle | None = None
        self._compact_timer: asyncio.TimerHandle | None = None
        self._last_output = 0.0

    # -- state read by the UI ---------------------------------------------------------------
    @property
    def title(self) -> str:
        return self.screen.title

    @property
    def attention(self) -> bool:
        return self.screen.attention

    @attention.setter
    def attention(self, value: bool) -> None:
        self.screen.attention = value

    @property
    def alternate_screen(self) -> bool:
        return self.screen.alternate_screen

    @property
    def bracketed_paste(self) -> bool:
        return self.screen.bracketed_paste

    @property
    def app_cursor(self) -> bool:
        return self.screen.app_cursor

    @property
    def app_keypad(self) -> bool:
        return self.screen.app_keypad

    @property
    def mouse_tracking(self) -> bool:
        return self.screen.mouse_tracking

    # -- process ----------------------------------------------------------------------------
    def start(self) -> None:
        """Spawn the child and start reading. Never raises: a failure is written into the pane
        and reported through `on_exit`."""
        if self._proc is not None or self.exit_status is not None:
            return
        try:
            self._loop = asyncio.get_running_loop()
        except RuntimeError:
            self._loop = asyncio.get_event_loop()
        name = self.argv[0] if self.argv else ""
        if not self.argv:
            self._fail("no command to run")
            return
        if not os.path.isdir(self.cwd):
            self._fail(f"cannot start {name}: directory {self.cwd} does not exist")
            return
        exe, problem = self._resolve(name)
        if exe is None:
            self._fail(problem)
            return
        try:
            proc = ptyprocess.PtyProcess.spawn(
                [exe, *self.argv[1:]],
                cwd=self.cwd,
                env=self.env,
                dimensions=(self.rows, self.cols),
                preexec_fn=_default_signals,
            )
        except Exception as exc:  # an unstartable child is a message in the pane, not a crash
            self._fail(f"cannot start {name}: {exc}")
            return
        try:
            os.set_blocking(proc.fd, False)
            self._loop.add_reader(proc.fd, self._on_readable)
        except Exception as exc:
            try:
                os.kill(proc.pid, signal.SIGKILL)
                os.waitpid(proc.pid, 0)
            except OSError:
                pass
            self._fail(f"cannot read from {name}: {exc}")
            return
        self._proc = proc
        self._fd = proc.fd
        self.pid = proc.pid
        self.running = True

    def _resolve(self, name: str) -> tuple[str | None, str]:
        """The executable for argv[0], or None and why: a path is taken relative to the pane's
        cwd (not dsh's), a bare name is looked up on the child's PATH."""
        if "/" in name:
            path = os.path.join(self.cwd, os.path.expanduser(name))
            if not os.path.exists(path):
                return None, f"no such file: {name}"
            if not os.path.isfile(path) or not os.access(path, os.X_OK):
                return None, f"not an executable file: {name}"
            return path, ""
        exe = shutil.which(name, path=self.env.get("PATH", os.defpath))
        return exe, "" if exe else f"command not found: {name}"

    def _fail(self, message: str) -> None:
        self.feed(f"\x1b[0m\x1b[31mdsh: {sanitize(message)}\x1b[0m\r\n".encode())
        self.running = False
        self.exit_status = EXIT_NOT_STARTED
        self._changed()
        if self.on_exit is not None:
            _notify(self.on_exit, EXIT_NOT_STARTED)

    def _on_readable(self) -> None:
        fd = self._fd
        if fd is None:
            return
        chunks: list[bytes] = []
        total = 0
        eof = False
        budget = self.read_budget
        while total < budget:
            try:
                data = os.read(fd, min(READ_CHUNK, budget - total))
            except BlockingIOError:
                break
            except OSError:  # EIO: the child side closed
                eof = True
                break
            if not data:
                eof = True
                break
            chunks.append(data)
            total += len(data)
        if chunks:
            self.feed(b"".join(chunks))
            self._output_changed()
            self._last_output = self._loop.time() if self._loop is not None else 0.0
            if self._compact_timer is None and self._loop is not None:
                self._compact_timer = self._loop.call_later(COMPACT_IDLE, self._compact)
        if eof:
            self._on_eof()
        elif total >= budget and self.read_pause > 0 and self._loop is not None and self._fd == fd:
            self._loop.remove_reader(fd)
            self._resume_timer = self._loop.call_later(self.read_pause, self._resume_reading)

    def _resume_reading(self) -> None:
        self._resume_timer = None
        if self._fd is not None and self._loop is not None:
            self._loop.add_reader(self._fd, self._on_readable)

    def _compact(self) -> None:
        """Compact history rows in small batches once output has been quiet for COMPACT_IDLE."""
        self._compact_timer = None
        loop = self._loop
        if loop is None or self._killed:
            return
        quiet = loop.time() - self._last_output
        if quiet < COMPACT_IDLE:
            self._compact_timer = loop.call_later(COMPACT_IDLE - quiet, self._compact)
        elif self.screen.compact_history(COMPACT_BATCH):
            self._compact_timer = loop.call_later(0.01, self._compact)

    def _on_eof(self) -> None:
        self._close_fd()
        self._reap()

    def _close_fd(self) -> None:
        fd = self._fd
        if fd is None:
            return
        self._fd = None
        if self._resume_timer is not None:
            self._resume_timer.cancel()
            self._resume_timer = None
        loop = self._loop
        if loop is not None:
            loop.remove_reader(fd)
            loop.remove_writer(fd)
        proc = self._proc
        if proc is not None:
            close_pty(proc)
        else:
            with contextlib.suppress(OSError):
                os.close(fd)

    def _reap(self, delay: float = 0.01) -> None:
        """Collect the exit status without blocking the loop (poll waitpid)."""
        pid = self.pid
        if pid is None or self.exit_status is not None:
            return
        try:
            done, status = os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            done, status = pid, 0
        if done == 0:
            if self._loop is not None:
                self._loop.call_later(delay, self._reap, min(delay * 2, 0.5))
            return
        code = os.waitstatus_to_exitcode(status)
        if code < 0:
            code = 128 - code
        self._exited(code)

    def _exited(self, code: int) -> None:
        self.exit_status = code
        self.running = False
        if self._killed:
            return
        if self.screen.alternate_screen:
            self.screen.feed(b"\x1b[?1049l")
        prefix = b"\r\n" if self.screen.cursor.x else b""
        self.feed(prefix + f"\x1b[0m[exited {code}]".encode())
        self._changed()
        if self.on_exit is not None:
            _notify(self.on_exit, code)

    def kill(self) -> None:
        """Hang up the child (SIGKILL later if it lingers) and stop reading; idempotent.
        `on_exit` is not called for a pane dsh closed itself."""
        if self._killed:
            return
        self._killed = True
        for timer in (self._sync_timer, self._compact_timer):
            if timer is not None:
                timer.cancel()
        self._sync_timer = self._compact_timer = None
        self._close_fd()
        self._out.clear()
        pid = self.pid
        if pid is None or self.exit_status is not None:
            return
        self.running = False
        for sig in (signal.SIGHUP, signal.SIGCONT):
            try:
                os.kill(pid, sig)
            except OSError:
                pass
        self._reap()
        if self._loop is not None and self.exit_status is None:
            self._loop.call_later(_KILL_GRACE, self._force_kill)

    def _force_kill(self) -> None:
        if self.exit_status is None and self.pid is not None:
            try:
                os.kill(self.pid, signal.SIGKILL)
            except OSError:
                pass

    # -- input ------------------------------------------------------------------------------
    def write(self, data: str | bytes) -> None:
        """Send bytes to the child; what the PTY cannot take now is queued, never blocking."""
        if isinstance(data, str):
            data = typed_bytes(data)
        fd = self._fd
        if fd is None or not data:
            return
        if b"\r" in data:
            self.sent.append(time.time())
        if self._out:
            self._out += data
            return
        try:
            n = os.write(fd, data)
        except BlockingIOError:
            n = 0
        except OSError:
            return
        if n < len(data):
            self._out += data[n:]
            if self._loop is not None:
                self._loop.add_writer(fd, self._flush_out)

    def _flush_out(self) -> None:
        fd = self._fd
        if fd is None:
            self._out.clear()
            return
        try:
            n = os.write(fd, self._out)
        except BlockingIOError:
            return
        except OSError:
            n = len(self._out)
        del self._out[:n]
        if not self._out and self._loop is not None:
            self._loop.remove_writer(fd)

    def send_key(self, key: str, data: str = "") -> None:
        """Send one key press. An Escape waits for the rest of the keys handled in the same loop
        iteration: Alt-x comes from prompt_toolkit as Escape then x, and a child must read the
        two in one read (ESC x), not as a lone Escape followed by x."""
        out = key_to_bytes(key, data, app_cursor=self.app_cursor, app_keypad=self.app_keypad)
        if not out:
            return
        self.scroll_to_bottom()
        if out == b"\x1b" and self._loop is not None and self._fd is not None:
            if not self._held_keys:
                self._loop.call_soon(self._flush_keys)
            self._held_keys += out
            return
        if self._held_keys:
            alt = alt_key_bytes(key) if bytes(self._held_keys) == b"\x1b" else None
            out = alt if alt is not None else bytes(self._held_keys) + out
            self._held_keys.clear()
        self.write(out)

    def _flush_keys(self) -> None:
        if self._held_keys:
            out = bytes(self._held_keys)
            self._held_keys.clear()
            self.write(out)

    def paste(self, text: str) -> None:
        self.scroll_to_bottom()
        self._flush_keys()
        self.write(paste_bytes(text, bracketed=self.bracketed_paste))

    def send_mouse(self, button: int, x: int, y: int, *, release: bool = False, motion: bool = False) -> None:
        """Report a mouse event (0-based cell x, y) the way the child asked (SGR 1006 or X10)."""
        if not self.mouse_tracking:
            return
        code = button + (32 if motion else 0)
        if self.screen.mouse_sgr:
            self.write(f"\x1b[<{code};{x + 1};{y + 1}{'m' if release else 'M'}")
        elif x < 223 and y < 223:
            code = 3 if release and button < 64 else code
            self.write(b"\x1b[M" + bytes([32 + code, 33 + x, 33 + y]))

    def foreground_process(self) -> tuple[int, list[str], str | None] | None:
        """(pid, argv, cwd) of the program in the foreground of this pane's terminal, if any (Linux /proc).

        That is the shell itself at its prompt, or what it runs (`vim`, `claude`…).
        """
        fd = self._fd
        if fd is None:
            return None
        try:
            pgid = os.tcgetpgrp(fd)
            with open(f"/proc/{pgid}/cmdline", "rb") as handle:
                raw = handle.read(65536)
        except OSError:
            return None
        argv = [part.decode("utf-8", "replace") for part in raw.split(b"\0") if part]
        try:
            cwd: str | None = os.readlink(f"/proc/{pgid}/cwd")
        except OSError:
            cwd = None
        return (pgid, argv, cwd) if argv else None

    def program_takes_keys(self, *, own_counts: bool = False) -> bool:
        """True while a program other than the pane's own shell holds the terminal's foreground and
        reads keys itself: its terminal is out of line mode (a pager, a REPL, an editor, ssh, an agent)
        or has echo off (a password prompt). A program in line mode with echo on (a build, `cat`,
        `read`) gets whole lines from the prompt instead, as the kernel's line editing would give them.
        A shell that marks its prompt (OSC 133) and is at it takes no keys, whatever its state.
        `own_counts`: the pane's own program is not a shell (`/new python3`), so it counts as well
        (a shell's line editor leaves line mode at every prompt, which says nothing).

        Two syscalls on the PTY master (tcgetpgrp, tcgetattr); never called per key.
        """
        fd = self._fd
        if fd is None or self.pid is None or self.shell_at_prompt():
            return False
        try:
            if os.tcgetpgrp(fd) == self.pid and not own_counts:
                return False
            lflag = termios.tcgetattr(fd)[3]
        except (OSError, termios.error):
            return False
        return not (lflag & termios.ICANON and lflag & termios.ECHO)

    def shell_at_prompt(self) -> bool:
        """True when the shell said (OSC 133) that it shows its prompt and runs nothing."""
        return self.screen.shell.state in ("prompt", "command")

    def process_cwd(self) -> str | None:
        """The working directory of the pane's own process (its shell), whether or not it reports OSC 7."""
        if self.pid is None or not self.running:
            return None
        try:
            return os.readlink(f"/proc/{self.pid}/cwd")
        except OSError:
            return None

    def reading_secret(self) -> bool:
        """True when the child turned echo off but still reads lines (`read -s`, ssh, sudo, gpg)."""
        fd = self._fd
        if fd is None:
            return False
        try:
            lflag = termios.tcgetattr(fd)[3]
        except (OSError, termios.error):
            return False
        return not lflag & termios.ECHO and bool(lflag & termios.ICANON)

    def reset_program_modes(self) -> None:
        """Undo the modes a previous program left set (mouse and focus reporting, bracketed paste,
        application cursor and keypad keys, synchronized output, a hidden cursor, the alternate
        screen), as a new program in the pane should start without them."""
        alt = self.screen.alternate_screen
        self.screen.reset_program_modes()
        if alt and self.on_alt_screen is not None:
            _notify(self.on_alt_screen, False)
        self._changed()

    def set_focus(self, focused: bool) -> None:
        """Tell a child that asked for focus events (mode 1004) that its pane gained or lost focus."""
        if self.screen.has_private_mode(FOCUS_EVENTS):
            self.write(b"\x1b[I" if focused else b"\x1b[O")

    def resize(self, rows: int, cols: int) -> None:
        """New size for the screen and the child (TIOCSWINSZ, so it gets SIGWINCH); only if changed."""
        rows, cols = max(1, rows), max(1, cols)
        if (rows, cols) == (self.rows, self.cols):
            return
        self.rows, self.cols = rows, cols
        self.screen.resize(rows, cols)
        self.scroll_offset = min(self.scroll_offset, self._max_offset())
        if self._proc is not None and self._fd is not None:
            try:
                self._proc.setwinsize(rows, cols)
            except OSError:
                pass

    # -- output -----------------------------------------------------------------------------
    def feed(self, data: bytes) -> None:
        """Emulate output (the child's, or a saved tail being replayed) and fire the callbacks."""
        if not data:
            return
        self.fed += len(data)
        tail = self._tail
        tail += data
        if len(tail) > 2 * self.tail_bytes:
            del tail[: len(tail) - self.tail_bytes]
        screen = self.screen
        title, bells, alt = screen.title, screen.bell_count, screen.alternate_screen
        pushed = screen.history_pushed
        screen.feed(data)
        if self.scroll_offset:
            self.scroll_offset = min(self.scroll_offset + screen.history_pushed - pushed, self._max_offset())
        if screen.cwd and screen.cwd != self.cwd:
            self.cwd = screen.cwd
        if screen.title != title and self.on_title is not None:
            _notify(self.on_title, screen.title)
        if screen.notices:
            # Desktop notifications the program asked for (OSC 9, 777, 99), each one line already.
            notices, screen.notices = screen.notices, []
            if self.on_notice is not None and not self._replaying:  # a restored tail's were seen
                for text in notices:
                    _notify(self.on_notice, text)
        if screen.clipboard_writes:
            writes, screen.clipboard_writes = screen.clipboard_writes, []
            if self.on_clipboard is not None and not self._replaying:  # a restored tail copies nothing
                for selections, text in writes:
                    _notify(self.on_clipboard, selections, text)
        if screen.bell_count != bells and self.on_bell is not None and not self._replaying:
            # (A restored tail's bells rang when they were printed: replayed, they ring nothing.)
            _notify(self.on_bell)
        if screen.alternate_screen != alt and self.on_alt_screen is not None:
            _notify(self.on_alt_screen, screen.alternate_screen)

    def replay(self, tail: bytes) -> None:
        """Feed a saved tail (from a snapshot, or the program that ran here before) without the modes
        its program set: they must not apply to the program that starts next."""
        self._replaying = True
        try:
            self.feed(strip_modes(tail))
        finally:
            self._replaying = False

    def continue_below(self, old: Terminal) -> None:
        """Start where `old` (a pane's previous terminal, its program gone) left off, on a clean screen:
        what `old` showed (its history, its screen at this size) goes into this one's history, so the
        next program starts at the top of an empty screen with the past a scroll away. The tail keeps
        `old`'s bytes and then the ones that did this, so a restore replays the same."""
        if (old.rows, old.cols) != (self.rows, self.cols):
            old.resize(self.rows, self.cols)
        used = self.screen.take_rows(old.screen)
        self._tail = bytearray(old.tail())
        # Default rendition, no margins, the rows with anything on them scrolled up into history (SU
        # sends them there, as a line feed at the bottom would), the cursor home.
        self.feed(b"\x1b[0m\x1b[r" + (f"\x1b[{used}S".encode() if used else b"") + b"\x1b[H")

    def tail(self) -> bytes:
        """The last `tail_bytes` of raw output, for snapshots."""
        return bytes(self._tail[-self.tail_bytes :]) if self.tail_bytes else b""

    def _changed(self) -> None:
        if self._sync_timer is not None:
            self._sync_timer.cancel()
            self._sync_timer = None
        if self.on_change is not None:
            _notify(self.on_change)

    def _output_changed(self) -> None:
        """Report new output, except in the middle of a synchronized update (mode 2026), which is
        shown when it ends (or after SYNC_TIMEOUT, if the child never ends it)."""
        if not self.screen.has_private_mode(SYNCHRONIZED_OUTPUT):
            self._changed()
        elif self._sync_timer is None and self._loop is not None:
            self._sync_timer = self._loop.call_later(SYNC_TIMEOUT, self._changed)
