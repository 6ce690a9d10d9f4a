"""One picker row per session: display-safe text and the reason it cannot be resumed, if any."""

from __future__ import annotations

import contextlib
import gc
import os
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from typing import Any, NamedTuple

from dsh.text import sanitize

DSH = "dsh"
CURRENT_SESSION = "this is the current session"
NO_WORKSPACE = "session has no recorded workspace"
UNTITLED = "untitled"
_MAKE_SLICE = 500  # rows made between two looks at whether a search waits (`give_way`)
# A title or input longer than this is never shown whole on one row anyway.
_TEXT_MAX = 300


def clean(value: object, max_len: int = _TEXT_MAX) -> str:
    """`sanitize`, with a fast path for the usual text that has nothing to escape."""
    if type(value) is str and len(value) <= max_len and value.isprintable():
        return value
    if value is None:
        return ""
    return sanitize(value if isinstance(value, str) else str(value), max_len)


def live_reason(pid: int) -> str:
    return f"open in another dsh (pid {pid})"


def _label(cwd: str | None) -> str:
    if not cwd:
        return "(no workspace)"
    home = os.path.expanduser("~").rstrip("/")
    if home and (cwd == home or cwd.startswith(home + "/")):
        return "~" + cwd[len(home) :]
    return cwd


class Candidate(NamedTuple):
    """One session as the picker shows it. Immutable; every text in it is safe to print."""

    id: str
    cwd: str | None
    workspace_label: str
    title: str
    first_input: str
    created_at: str
    updated_at: str
    pane_count: int
    live_pid: int | None
    unresumable_reason: str | None
    preview: tuple[str, ...]
    workspace: str | None = None  # the store's partition key, when known: a workspace's other cwds
    # attached, detached (its host runs: Enter attaches it), closed or crashed (Enter restores it)
    state: str = "closed"
    kind: str = DSH  # `dsh` for a dsh session, else the agent whose conversation this row is
    branch: str | None = None
    input_count: int = 0  # lines typed (a dsh session) or messages (an agent conversation)
    agents: tuple[str, ...] = ()  # `kind:id` of a dsh session's agents
    archived: bool = False
    home: str | None = None  # the agent store an agent row came from
    machine: str | None = None  # another machine's row (`[machines.NAME]`): Enter goes there over ssh

    @property
    def disabled(self) -> bool:
        return self.unresumable_reason is not None

    @property
    def is_agent(self) -> bool:
        return self.kind != DSH

    @property
    def key(self) -> str:
        """Unique among rows: a dsh session's id, `kind:id` for an agent conversation."""
        key = f"{self.kind}:{self.id}" if self.kind != DSH else self.id
        return key if self.machine is None else f"{self.machine}/{key}"

    @property
    def owner(self) -> str:
        """Whose lines the transcript search finds (see dsh.store.textsearch)."""
        return f"a:{self.kind}:{self.id}" if self.kind != DSH else f"s:{self.id}"

    @classmethod
    def from_summary(cls, summary: Any, *, current_session_id: str | None, own_pid: int) -> Candidate:
        """Build a row from a store summary (any object with the Summary fields).

        Every text is shown escaped, never interpreted. Timestamps are kept as given: they are parsed
        for the age column, never printed.
        """
        cwd = summary.cwd
        if not (type(cwd) is str and cwd):
            cwd = None
        live_pid = summary.live_pid
        if type(live_pid) is not int:
            live_pid = None
        reason = summary.unresumable_reason or None
        if reason is None:
            if cwd is None:
                reason = NO_WORKSPACE
            elif current_session_id is not None and summary.id == current_session_id:
                reason = CURRENT_SESSION
        first_input = clean(summary.first_input) if summary.first_input else ""
        title = clean(summary.title) if summary.title else ""
        label = getattr(summary, "workspace_label", None) or _label(cwd)
        preview = summary.preview or ()
        try:
            safe = type(preview) is tuple and "".join(preview).isprintable()
        except TypeError:  # not all text
            safe = False
        if not safe:
            preview = tuple(clean(line) for line in preview) if isinstance(preview, (tuple, list)) else ()
        pane_count = summary.pane_count
        # The fields below came later; a summary-like object without them (a test's, a bench's) is fine.
        branch = getattr(summary, "branch", None)
        if branch is not None:
            branch = _optional_text(branch)
        input_count = getattr(summary, "input_count", 0)
        agents = getattr(summary, "agents", ())
        if agents:
            agents = tuple(a for a in agents if type(a) is str and a.isprintable())
        return cls(
            clean(summary.id, 64),
            cwd,
            clean(label),
            title or first_input or UNTITLED,
            first_input,
            summary.created_at if type(summary.created_at) is str else "",
            summary.updated_at if type(summary.updated_at) is str else "",
            pane_count if type(pane_count) is int else 0,
            live_pid,
            clean(reason) if reason is not None else None,
            preview,
            getattr(summary, "workspace", None),
            clean(getattr(summary, "state", None) or ("attached" if live_pid is not None else "closed"), 20),
            DSH,
            branch,
            input_count if type(input_count) is int else 0,
            agents if type(agents) is tuple else (),
            getattr(summary, "archived", False) is True,
        )

    @classmethod
    def from_summaries(
        cls, summaries: Iterable[Any], *, current_session_id: str | None, own_pid: int
    ) -> list[Candidate]:
        """`from_summary` for a whole listing, with the cyclic GC paused (it would rescan every new row)."""
        with gc_paused():
            make = cls.from_summary
            rows = list(summaries)
            out: list[Candidate] = []
            for start in range(0, len(rows), _MAKE_SLICE):
                out += [
                    make(s, current_session_id=current_session_id, own_pid=own_pid)
                    for s in rows[start : start + _MAKE_SLICE]
                ]
                give_way()
            return out


def remote_candidate(row: dict[str, Any]) -> Candidate:
    """A row another machine sent (already checked and sanitized by dsh.machines.rows): its machine's
    name leads its label, so that in the machines scope a query finds rows by machine too."""
    machine = str(row["machine"])
    cwd = row.get("cwd") or None
    label = f"{machine}: {row.get('workspace_label') or cwd or '(no workspace)'}"
    return Candidate(
        clean(row["id"], 64),
        cwd,
        clean(label),
        clean(row.get("title") or row["id"]),
        clean(row.get("first_input") or ""),
        row.get("created_at") or "",
        row.get("updated_at") or "",
        int(row.get("pane_count") or 0),
        None,  # its pid is the other machine's
        None if cwd else NO_WORKSPACE,
        tuple(clean(line) for line in row.get("preview") or ()),
        state=str(row.get("state") or "closed"),
        branch=_optional_text(row.get("branch")),
        input_count=int(row.get("input_count") or 0),
        archived=bool(row.get("archived")),
        machine=machine,
    )


def remote_agent_candidate(row: dict[str, Any]) -> Candidate:
    """An agent conversation another machine sent (`dsh sessions --agents --json` there, checked by
    dsh.machines.rows): Enter opens it on that machine, in its directory."""
    machine = str(row["machine"])
    cwd = row.get("cwd") or None
    first = clean(row.get("first_prompt") or "")
    title = clean(row.get("title") or "") or first or clean(row["id"], 64)
    return Candidate(
        clean(row["id"], 64),
        cwd,
        clean(f"{machine}: {cwd or '(no directory)'}"),
        title,
        first,
        row.get("created_at") or "",
        row.get("updated_at") or "",
        0,
        None,
        None,
        (first,) if first and first != title else (),
        state="closed",
        kind=clean(row["kind"], 20),
        branch=_optional_text(row.get("branch")),
        input_count=int(row.get("message_count") or 0),
        machine=machine,
    )


def _optional_text(value: object) -> str | None:
    return clean(value, 80) or None if isinstance(value, str) else None


# While a worker lists every row, the interpreter hands the GIL over this often (its default is 5 ms): a
# thread that steps SQLite one row at a time (the picker's searches) or the event loop waits for it at
# each step, and at 5 ms a search of 150 rows took a second beside a listing.
BUSY_SWITCH_INTERVAL = 0.0005
_busy = 0
_busy_lock = threading.Lock()
_saved_interval = 0.005


@contextlib.contextmanager
def sharing_the_gil() -> Iterator[None]:
    """Hand the GIL to other threads often while the block (a worker's long Python loops) runs."""
    global _busy, _saved_interval
    with _busy_lock:
        if _busy == 0:
            _saved_interval = sys.getswitchinterval()
            sys.setswitchinterval(BUSY_SWITCH_INTERVAL)
        _busy += 1
    try:
        yield
    finally:
        with _busy_lock:
            _busy -= 1
            if _busy == 0:
                sys.setswitchinterval(_saved_interval)


def _gc_untrack() -> Callable[[object], None] | None:
    try:
        import ctypes

        untrack = ctypes.pythonapi.PyObject_GC_UnTrack
    except (ImportError, AttributeError):  # not CPython
        return None
    untrack.argtypes = [ctypes.py_object]
    untrack.restype = None
    return untrack


_untrack: Callable[[object], None] | bool | None = False  # False: not looked up yet


def untrack(rows: Iterable[Candidate]) -> None:
    """Take rows out of the cyclic collector's generations (CPython's own PyObject_GC_UnTrack), as CPython
    does by itself for a plain tuple of text: a Candidate holds only text, numbers and tuples of text, so
    it can never be part of a cycle, and refcounting frees it as before.

    120,000 new rows otherwise sit in the young generation, and the next collections walk every one
    of them with the GIL held: a 0.2-0.8 s stall of the event loop, twice, each time every row was
    listed (the worker's first pass when it turns the collector on again, then the loop's after a
    frame). Untracking them takes 0.3 µs a row."""
    global _untrack
    if _untrack is False:
        _untrack = _gc_untrack()
    off = _untrack
    if not callable(off):
        return
    for c in rows:
        off(c)
        if c.preview:
            off(c.preview)


def untrack_lists(*lists: list[Any]) -> None:
    """Take a listing's big lists (of untracked rows, of text, of numbers) out of the cyclic collector's
    generations too, as `untrack` does the rows: a collection walks each item of a tracked list, and the
    lists of 120,000 rows and their search index made a pass of the young generation after a listing
    15 ms on a quiet machine and 35-126 ms in the host, and every full pass as long while the picker
    is open. Only for lists that are never given a tracked object later (a cycle through one would
    never be collected: kept, never freed early)."""
    global _untrack
    if _untrack is False:
        _untrack = _gc_untrack()
    off = _untrack
    if callable(off):
        for items in lists:
            off(items)


# Searches someone waits on (the picker's, as keys are typed) under way: a background listing gives way.
_front = 0
_front_lock = threading.Lock()
_nothing_in_front = threading.Event()
_nothing_in_front.set()
GIVE_WAY_MAX = 1.0  # a listing never waits longer than this for one search
# nor longer than this in all (one `in_the_background` block): typing one key at a time, each key's search
# and ranking held a listing's update of the rows off for 6-8 s, and the look at the disk behind it.
GIVE_WAY_TOTAL = 2.0


@contextlib.contextmanager
def up_front() -> Iterator[None]:
    """A search someone waits on: listings that call `give_way` pause while it runs. Beside a listing of
    every row (the GIL and both cores shared), the picker's search for keys typed at the open took
    0.5-1.4 s instead of 0.1-0.3 s."""
    global _front
    with _front_lock:
        _front += 1
        _nothing_in_front.clear()
    try:
        yield
    finally:
        with _front_lock:
            _front -= 1
            if _front == 0:
                _nothing_in_front.set()


_thread = threading.local()


@contextlib.contextmanager
def in_the_background() -> Iterator[None]:
    """This thread's work gives way (`give_way`) to searches up front; no other thread's does (the event
    loop's, a search's own)."""
    before = getattr(_thread, "background", False), getattr(_thread, "waited", 0.0)
    _thread.background, _thread.waited = True, 0.0
    try:
        yield
    finally:
        _thread.background, _thread.waited = before


# Until when keys being typed keep background listings paused (`keys_typed`), monotonic seconds.
_typing_until = 0.0
TYPING_PAUSE = 0.3
# Until when a key's own frames keep them paused even past their GIVE_WAY_TOTAL.
_frame_until = 0.0
KEY_FRAME = 0.05


def keys_typed(seconds: float = TYPING_PAUSE) -> None:
    """Keys are being typed (on the event loop): background listings pause until `seconds` after the last,
    so that each key's frame and the search it starts have the cores and the GIL."""
    global _typing_until, _frame_until
    now = time.monotonic()
    _typing_until = now + seconds
    _frame_until = now + min(seconds, KEY_FRAME)


def give_way() -> None:
    """Between slices of a background listing: wait while a search is `up_front` or keys are being typed
    (`keys_typed`), at most GIVE_WAY_MAX, and GIVE_WAY_TOTAL over the whole `in_the_background` block;
    past that, still for KEY_FRAME after a key.
    Only in a thread `in_the_background`; anywhere else it returns at once."""
    if not getattr(_thread, "background", False):
        return
    began = time.monotonic()
    deadline = began + min(GIVE_WAY_MAX, GIVE_WAY_TOTAL - _thread.waited)
    try:
        while (now := time.monotonic()) < deadline:
            if not _nothing_in_front.is_set():
                _nothing_in_front.wait(deadline - now)
            elif now < _typing_until:
                time.sleep(min(_typing_until, deadline) - now)
            else:
                return
        # Past its budget a listing still lets the frames of a key just typed go first: its echo and its
        # ranking take the loop 10-30 ms, and beside a listing's slices (the GIL shared) twice that.
        if (now := time.monotonic()) < _frame_until:
            time.sleep(_frame_until - now)
    finally:
        _thread.waited += time.monotonic() - began


_paused = 0  # gc_paused blocks under way, in any thread
_paused_lock = threading.Lock()
_was_enabled = True


def collector_paused() -> bool:
    """Whether a `gc_paused` block is under way in any thread (a collection now would walk its rows)."""
    return _paused > 0


@contextlib.contextmanager
def gc_paused() -> Iterator[None]:
    """No cyclic GC while 100k rows are built: each collection would walk all of them again.

    Safe across threads: the collector is on again when the last pause under way ends (as it was before
    the first). When each pause turned it back on as it had found it, a search's pause ending while a
    listing's went on let a full collection walk the listing's half-made rows on the loop (95 ms).
    """
    global _paused, _was_enabled
    with _paused_lock:
        if _paused == 0:
            _was_enabled = gc.isenabled()
            gc.disable()
        _paused += 1
    try:
        yield
    finally:
        with _paused_lock:
            _paused -= 1
            if _paused == 0 and _was_enabled:
                gc.enable()
