"""A client's key bytes as prompt_toolkit input: parsed and handed to the key processor as they arrive."""

from __future__ import annotations

import asyncio
import codecs
import contextlib
import re
import time
from collections.abc import Awaitable, Callable, Iterator
from contextlib import AbstractContextManager

from prompt_toolkit.input.base import Input
from prompt_toolkit.input.vt100_parser import Vt100Parser
from prompt_toolkit.key_binding.key_processor import KeyPress
from prompt_toolkit.keys import Keys

from dsh.term.key_bytes import KEYPAD_SEQUENCES, KEYPAD_TEXT

# A bracketed paste arrives as one stream; data after a pause this long inside one means its end mark
# was lost (a truncated paste), and is read as keys again.
PASTE_GAP_SECONDS = 0.5
# A paste longer than this (characters) is handed over in parts.
PASTE_MAX_CHARS = 4 * 1024 * 1024
# A run of this many printable characters in one read is a paste, bracketed or not (a terminal without
# bracketed paste, `tmux send-keys`, a script): handed over as one, not key by key, each of which made
# the prompt copy its whole line (64 KB typed cost 13.6 s and 2 GB). A person typing sends 1-3 at a time.
BURST_MIN = 64
# Such a run, starting after a control character other than ESC (or at the start of a clean read): the
# parameters of an escape sequence are never taken for text.
_BURST = re.compile(r"(?:(?<=[\x00-\x1a\x1c-\x1f\x7f])|^)[^\x00-\x1f\x7f]{" + str(BURST_MIN) + ",}")


class KeypadParser(Vt100Parser):
    """prompt_toolkit's parser, also reading the keypad of a terminal in application keypad mode
    (SS3 p..y, M, k …, which it would take for Escape, O and a letter). `keypad()` says whether the
    keys go to a pane in that mode: they are then keypad keys ("kp-1", which the pane gets as SS3 q);
    otherwise what they type ("1", Enter)."""

    def __init__(self, feed_key_callback: Callable[[KeyPress], None], keypad: Callable[[], bool]) -> None:
        self.keypad = keypad
        super().__init__(feed_key_callback)

    def _get_match(self, prefix: str) -> Keys | tuple[Keys, ...] | None:
        name = KEYPAD_SEQUENCES.get(prefix)
        if name is not None:
            # A keypad key's name, which only _call_handler below reads.
            return name  # type: ignore[return-value]
        return super()._get_match(prefix)

    def _call_handler(self, key: str | Keys | tuple[Keys, ...], insert_text: str) -> None:
        text = KEYPAD_TEXT.get(key) if type(key) is str else None
        if text is None or type(key) is not str:
            super()._call_handler(key, insert_text)
        elif self.keypad():
            # A key of its own name ("kp-1"), which KeyPress asserts no key may have: set after. The
            # bindings for any key take it (the pane's sends it by term/key_bytes.py's keypad table).
            press = KeyPress(Keys.Any, text)
            press.key = key
            self.feed_key_callback(press)
        elif key == "kp-enter":
            self.feed_key_callback(KeyPress(Keys.ControlM, text))
        else:
            self.feed_key_callback(KeyPress(text, text))


class LinkInput(Input):
    """Bytes are fed from the host connection's reader, and the application's input callback runs at
    once, in that same callback.

    A pipe between the two (prompt_toolkit's pipe input) cost a turn of the event loop, and that turn
    ran whatever was queued first: with a pane flooding beside you, one or two whole frames (10 ms
    each) before the key was even looked at. Bytes that are not UTF-8 pass as surrogate escapes, as
    prompt_toolkit's own terminal reader passes them.
    """

    def __init__(self) -> None:
        self._keys: list[KeyPress] = []
        # The view says whether keypad keys go to a pane in application keypad mode (ui/keypad.py).
        self.keypad: Callable[[], bool] = lambda: False
        self._parser = KeypadParser(self._keys.append, lambda: self.keypad())
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="surrogateescape")
        self._callbacks: list[Callable[[], None]] = []
        self._closed = False
        self._held = False
        self._release: asyncio.Future[None] | None = None
        self._last_feed = 0.0
        self._clean_tail = True  # the last read did not end inside an escape sequence

    def feed(self, data: bytes) -> None:
        """Key bytes from the client; read by the attached application before this returns."""
        if self._closed:
            return
        now = time.monotonic()
        parser = self._parser
        if parser._in_bracketed_paste and now - self._last_feed > PASTE_GAP_SECONDS:
            self._end_paste(done=True)  # a paste whose end never came: what follows is keys again
        self._last_feed = now
        text = self._decoder.decode(data)
        if parser._in_bracketed_paste or len(text) < BURST_MIN:
            parser.feed(text)
        else:
            self._feed_bursts(text)
        self._clean_tail = "\x1b" not in text[-32:]
        if parser._in_bracketed_paste and len(parser._paste_buffer) > PASTE_MAX_CHARS:
            self._end_paste(done=False)  # handed over in parts, never held without bound
        if self._callbacks and not self._held:
            # Called even when no key is complete yet (a lone Escape): the application then starts
            # the timer that flushes it.
            self._callbacks[-1]()

    def _feed_bursts(self, text: str) -> None:
        """Feed `text`, its long runs of printable characters as pastes (see BURST_MIN)."""
        parser = self._parser
        at = 0
        for match in _BURST.finditer(text):
            start = match.start()
            if start == 0 and not self._clean_tail:
                continue  # the last read may have ended inside an escape sequence
            if "\x1b[200~" in text[at:start]:
                break  # a bracketed paste begins: the parser reads the rest
            parser.feed(text[at:start])
            if parser._in_bracketed_paste:
                at = start
                break
            self._keys.append(KeyPress(Keys.BracketedPaste, match.group()))
            at = match.end()
        parser.feed(text[at:])

    def _end_paste(self, *, done: bool) -> None:
        """Hand over what a bracketed paste holds so far (prompt_toolkit's parser keeps it, unbounded,
        until the end mark: a terminal that never sends it would swallow every later key)."""
        parser = self._parser
        text, parser._paste_buffer = parser._paste_buffer, ""
        if done:
            parser._in_bracketed_paste = False
        if text:
            self._keys.append(KeyPress(Keys.BracketedPaste, text))

    def hold_until(self, ready: Awaitable[object], limit: float) -> None:
        """Keep the keys (parsed, in order) from the application until `ready` is done, or `limit`
        seconds have passed; then hand them over at once."""
        self._held = True

        async def release() -> None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(ready, limit)
            self._held = False
            if self._callbacks and self._keys:
                self._callbacks[-1]()

        self._release = asyncio.ensure_future(release())

    # -- prompt_toolkit's Input ------------------------------------------------------------------
    def fileno(self) -> int:
        raise NotImplementedError("keys come from a connection, not a file descriptor")

    def typeahead_hash(self) -> str:
        return f"dsh-link-{id(self)}"

    def read_keys(self) -> list[KeyPress]:
        keys = self._keys[:]
        self._keys.clear()
        return keys

    def flush_keys(self) -> list[KeyPress]:
        self._parser.flush()
        return self.read_keys()

    @property
    def closed(self) -> bool:
        return self._closed

    def close(self) -> None:
        self._closed = True
        if self._release is not None:
            self._release.cancel()

    def raw_mode(self) -> AbstractContextManager[None]:
        return contextlib.nullcontext()

    def cooked_mode(self) -> AbstractContextManager[None]:
        return contextlib.nullcontext()

    def attach(self, input_ready_callback: Callable[[], None]) -> AbstractContextManager[None]:
        return self._attached(input_ready_callback)

    def detach(self) -> AbstractContextManager[None]:
        return self._detached()

    @contextlib.contextmanager
    def _attached(self, callback: Callable[[], None]) -> Iterator[None]:
        self._callbacks.append(callback)
        if self._keys:
            # Keys that came before the application was listening (typed while it started).
            asyncio.get_running_loop().call_soon(self._deliver, callback)
        try:
            yield
        finally:
            self._callbacks.remove(callback)

    @contextlib.contextmanager
    def _detached(self) -> Iterator[None]:
        saved = self._callbacks[:]
        self._callbacks.clear()
        try:
            yield
        finally:
            self._callbacks[:] = saved

    def _deliver(self, callback: Callable[[], None]) -> None:
        if callback in self._callbacks and self._keys and not self._held:
            callback()
