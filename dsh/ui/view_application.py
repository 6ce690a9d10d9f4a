"""prompt_toolkit's Application, tuned so that drawing leaves no work for the cyclic garbage collector."""

from __future__ import annotations

import asyncio
import gc
import logging
import sys
from typing import Any, TypeVar

import prompt_toolkit.application.application as pt_application
from prompt_toolkit.application import Application
from prompt_toolkit.buffer import Buffer
from prompt_toolkit.key_binding import DynamicKeyBindings, KeyBindingsBase
from prompt_toolkit.key_binding.defaults import load_key_bindings

from dsh.ui import host_import, screen_diff

_R = TypeVar("_R")
logger = logging.getLogger(__name__)

# Objects allocated (and still alive) since the last young pass, above which a frame does not collect.
YOUNG_LIMIT = 20_000


class ViewApplication(Application[_R]):
    """The stock `current_buffer` makes a new Buffer at every call while no buffer has the focus,
    which is all the time a pane has the keys: filters ask for it on each key and each redraw. Every
    Buffer is a nest of reference cycles, so typing into a pane left thousands of objects a second
    for the cyclic collector, and its passes stalled keystrokes. One placeholder serves instead
    (a fresh one whenever something typed into it, so nothing carries over)."""

    _placeholder: Buffer | None = None

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        # prompt_toolkit builds its ~600 default key bindings anew for every Application: 12 ms of
        # each attach and each /resume into this host. They hold no state of one application (their
        # filters ask the running one), so every view of the process shares one set. Drawing asks
        # nothing of them: they are built for the first key, or just after the first frame, not
        # before it (12 ms of a cold start's first frame).
        stock = pt_application.load_key_bindings
        pt_application.load_key_bindings = _default_bindings_when_asked
        try:
            super().__init__(*args, **kwargs)
        finally:
            pt_application.load_key_bindings = stock
        self.after_render += _collect_young
        from dsh.ui import style_caches

        style_caches.bound_cell_cache()
        self.after_render += style_caches.trim
        _guard_key_handlers(self)
        screen_diff.install()
        if not _shared_defaults or host_import.bare_packages():
            self.after_render += _finish_start_soon

    @property
    def current_buffer(self) -> Buffer:
        focused = self.layout.current_buffer
        if focused is not None:
            return focused
        if self._placeholder is None or self._placeholder.text:
            self._placeholder = Buffer(name="dummy-buffer")
        return self._placeholder


def _guard_key_handlers(app: Application[Any]) -> None:
    """A key binding that raises drops that key, and the next key is handled as ever. prompt_toolkit
    lets the exception out of the key processor, through the input's callback, into whoever fed the
    bytes: one malformed mouse report (`ESC [ < 0 ; 12 ; M`, no row) from the client's terminal
    stopped the host reading that client's socket, and every later key was lost."""
    processor = app.key_processor
    call = processor._call_handler

    def guarded(handler: Any, key_sequence: Any) -> None:
        try:
            call(handler, key_sequence)
        except Exception:
            keys = " ".join(repr(press.data)[:40] for press in key_sequence)
            logger.warning("a key binding failed on %s; the key is dropped", keys, exc_info=True)

    # prompt_toolkit's private handler call, wrapped so that a failing binding drops its key, not the client.
    processor._call_handler = guarded  # type: ignore[method-assign]


_shared_defaults: list[KeyBindingsBase] = []
_deferred_defaults: list[KeyBindingsBase] = []


def shared_default_bindings() -> KeyBindingsBase:
    """prompt_toolkit's default key bindings, built once per process."""
    if not _shared_defaults:
        _shared_defaults.append(load_key_bindings())
    return _shared_defaults[0]


def _default_bindings_when_asked() -> KeyBindingsBase:
    """The shared defaults, built when a key first looks them up (one proxy for every view)."""
    if not _deferred_defaults:
        _deferred_defaults.append(DynamicKeyBindings(shared_default_bindings))
    return _deferred_defaults[0]


def _finish_start_soon(_app: object) -> None:
    """After a frame, while start-up left work for later (the default key bindings; prompt_toolkit's
    package __init__, see host_import): do it on the loop's next turn, before a key needs it (left
    registered: taking a handler out while the event fires would skip the next)."""
    loop = asyncio.get_running_loop()
    if not _shared_defaults:
        loop.call_soon(shared_default_bindings)
    if host_import.bare_packages():
        loop.call_soon(host_import.complete)


def _collect_young(_app: object) -> None:
    """Each render leaves its screen in a reference cycle (a window's recursive line copier holds it)
    that lives until the next render. Left to the collector's own pacing, those cycles outlive a
    young pass, pile up in the middle generation, and are freed all at once: a stall of 20-30 ms
    every half second while typing. Collecting the young generations right after each frame has
    gone out frees each screen while the pile is one frame deep (0.25 ms a pass on average, 2.6 ms
    at most, typing into a pane), at a moment no key is waiting on it.

    Not while the young generation is large (the first frames, just after start-up made the whole
    view): that pass would cost tens of milliseconds, and the collector's own pacing is better there.
    Nor while a worker paused the collector to make many objects (the picker's listing of every row,
    dsh.resume.candidates.gc_paused): a pass after each frame walked that worker's new objects, 11-16 ms
    of a key's frame in the picker at 120,000 rows.
    """
    # Looked up, not imported: only a process that listed picker rows has that module (and a pause).
    rows = sys.modules.get("dsh.resume.candidates")
    if rows is not None and rows.collector_paused():
        return
    if gc.get_count()[0] < YOUNG_LIMIT:
        gc.collect(1)
