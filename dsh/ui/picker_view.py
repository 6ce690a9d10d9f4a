"""The /resume picker on screen: draws PickerModel.frame and turns keys into model calls and callbacks."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from prompt_toolkit.application import Application
from prompt_toolkit.application.current import get_app_or_none
from prompt_toolkit.data_structures import Point
from prompt_toolkit.filters import Condition
from prompt_toolkit.key_binding import ConditionalKeyBindings, KeyBindings, KeyBindingsBase, KeyPressEvent
from prompt_toolkit.keys import Keys
from prompt_toolkit.layout.controls import UIContent, UIControl

from dsh.resume.candidates import CURRENT_SESSION, Candidate, keys_typed
from dsh.resume.picker import MACHINES, AllRows, PickerModel
from dsh.ui.pane_window import PaneWindow

if TYPE_CHECKING:
    from dsh.resume.loading import Found

ARCHIVE_CONFIRM_SECONDS = 3.0

RENAME_PROMPT = "Rename: "
# Ranking left over after a keystroke runs in slices this long, so keys are read between them (a key read
# during one waits for it and for the turn after: 16 ms at 8 ms slices); the rows it moves are drawn at
# most this often (a frame costs the host as much as a slice), and when it ends.
REFINE_SLICE = 0.004
REFINE_DRAW = 0.06
# For this long after a key, ranking holds background listings off (`keys_typed`).
REFINE_FIRST = 0.5
# After the picker is first drawn, the search indexes are built this much later (before a Tab, usually).
PREPARE_DELAY = 0.3
# The transcript search runs once typing pauses this long.
TRANSCRIPT_PAUSE = 0.06


class _PickerControl(UIControl):
    def __init__(self, view: PickerView) -> None:
        self._view = view

    def is_focusable(self) -> bool:
        return True

    def get_key_bindings(self) -> KeyBindingsBase:
        return self._view.key_bindings

    def create_content(self, width: int, height: int) -> UIContent:
        view = self._view
        view.height = height
        view.prepare_later()
        view.want_thumbnail()
        typed = view.typed_ahead()
        lines = view.model.frame(width, height, edit=view.edit_line(), typed=typed)
        if view.editing is not None:
            x = min(max(0, width - 1), len(RENAME_PROMPT) + len(view.editing[1]))
            cursor = Point(x=x, y=1)
        else:
            x, y = view.model.cursor(width, typed)
            cursor = Point(x=x, y=y)
        return UIContent(
            # The model's (style, text) pairs are fragments; mypy wants the wider, invariant list type.
            get_line=lambda i: lines[i],  # type: ignore[arg-type, return-value]
            line_count=len(lines),
            cursor_position=cursor,
            show_cursor=True,
        )


class PickerView:
    """The picker's container and keys; what the picker decides goes out through the callbacks.

    `on_rename` and `on_archive` persist the change; returning False (it could not be saved) keeps the
    row as it was. The key bindings are the picker control's own: they apply while it has the focus.
    """

    def __init__(
        self,
        model: PickerModel,
        *,
        on_resume: Callable[[Candidate], None],
        on_close: Callable[[], None],
        on_rename: Callable[[Candidate, str], bool | None],
        on_archive: Callable[[Candidate], bool | None],
        on_message: Callable[[str], None],
        on_unarchive: Callable[[Candidate], bool | None] | None = None,
        load_archived: Callable[[Callable[[list[Candidate]], None]], None] | None = None,
        search_transcripts: Callable[[str, Callable[[str, dict[str, str]], None], object], bool] | None = None,
        find_rows: Callable[[str, Callable[[str, list[Candidate] | Found], None]], None] | None = None,
        get_app: Callable[[], Application[Any] | None] = get_app_or_none,
        keys_elsewhere: Callable[[], bool] | None = None,
        load_machines: Callable[[PickerView], None] | None = None,
    ) -> None:
        # The app this view runs in: a host runs one per client, and callbacks from worker threads
        # carry no context to find it by.
        self._get_app = get_app
        self.model = model
        self.on_resume = on_resume
        self.on_close = on_close
        self.on_rename = on_rename
        self.on_archive = on_archive
        self.on_message = on_message
        self.on_unarchive = on_unarchive
        self.load_archived = load_archived
        self.search_transcripts = search_transcripts
        self.find_rows = find_rows
        self.load_machines = load_machines
        self._machines_asked = False
        self._archived_asked = False
        self._search_generation = 0
        self.height = 20
        self.editing: tuple[Candidate, str] | None = None
        self._generation = 0
        self._prepared = False
        self._thumbnails: dict[str, list[str] | None] = {}  # each session's last saved screen, once read
        self._archive_armed: tuple[str, float] | None = None  # (session id, until when a 2nd C-d archives)
        # While the app's prefix waits for its key, no key is the picker's (C-b d detaches, not types d).
        self._keys_elsewhere = keys_elsewhere or (lambda: False)
        self.key_bindings = self._bindings()
        # Its rows copied from made-once cells (a frame's copy a character at a time was 3-5 ms of a
        # keystroke's 7-10 ms render at 120x40).
        self.container = PaneWindow(content=_PickerControl(self), always_hide_cursor=False)

    def want_thumbnail(self) -> None:
        """The highlighted session's last saved screen, for the preview: read off the loop once per
        session (dsh.persist.thumbnails), drawn when it comes (model.thumbnails, by id)."""
        chosen = self.model.selected
        if chosen is None or chosen.is_agent or chosen.machine is not None or chosen.id in self._thumbnails:
            return
        self._thumbnails[chosen.id] = None  # asked: once
        self.model.thumbnails = self._thumbnails  # read by the model's drawing (dsh.resume.picker_draw)
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return
        from dsh.persist.thumbnails import last_screen

        session_id = chosen.id

        def done(future: asyncio.Future[list[str] | None]) -> None:
            if future.cancelled() or future.exception() is not None or not future.result():
                return
            self._thumbnails[session_id] = future.result()
            app = self._get_app()
            if app is not None:
                app.invalidate()

        loop.run_in_executor(None, last_screen, session_id).add_done_callback(done)

    def edit_line(self) -> tuple[str, str] | None:
        return (RENAME_PROMPT, self.editing[1]) if self.editing is not None else None

    # -- query and background ranking --------------------------------------------------------------

    def add_all(self, rows: AllRows) -> None:
        """Every workspace's rows have arrived (from `load_rest` on a worker): show them, finish ranking."""
        self.model.add_all(rows)
        self._refine_later()
        app = self._get_app()
        if app is not None and app.is_running:
            app.invalidate()

    @property
    def query(self) -> str:
        """The query as typed so far (the model ranks it once the keys read together are handled)."""
        return self._typed if self._typed is not None else self.model.query

    _typed: str | None = None

    def set_query(self, text: str) -> None:
        """A new query. Keys that arrive together (typed fast, pasted) are ranked once, after the last:
        ranking each of 9 keys read at once cost 9 rankings before the first frame."""
        app = self._get_app()
        if app is None or not app.is_running:
            self._apply_query(text)
            return
        keys_typed()  # a listing of every row on its way waits: this key's frame and search go first
        later = self._typed is None
        self._typed = text
        if later:
            # The key's echo first, as fzf draws its query line before its matcher is done: the frame
            # is queued before the ranking, which took 15-30 ms of a key at 120,000 rows.
            app.invalidate()
            asyncio.get_running_loop().call_soon(self._apply_typed)

    def typed_ahead(self) -> str | None:
        """The query as typed when it is not yet ranked (drawn on the query line first), else None."""
        return self._typed

    def _apply_typed(self) -> None:
        text, self._typed = self._typed, None
        if text is not None:
            self._apply_query(text)
            app = self._get_app()
            if app is not None and app.is_running:
                app.invalidate()

    def _apply_query(self, text: str) -> None:
        self.last_key = time.monotonic()
        # The index's search first: it runs on its own thread (in SQLite, without the GIL) while the model
        # ranks the rows it has (at the open, 7 ms sooner to the row found).
        self._find_rows(text)
        self.model.set_query(text)
        self._refine_later()
        self._search_later()

    def _find_rows(self, text: str) -> None:
        """While every row is on its way, ask the index for the rows that may match `text` at once."""
        if self.find_rows is None or self.model.all_loaded or not text.split():
            return
        app = self._get_app()
        if app is None or not app.is_running:
            return
        loop = asyncio.get_running_loop()

        def deliver(query: str, rows: list[Candidate] | Found) -> None:  # on the searcher's thread
            loop.call_soon_threadsafe(self.rows_found, query, rows)

        self.find_rows(text, deliver)

    def rows_found(self, query: str, rows: list[Candidate] | Found) -> None:
        """What `find_rows` answered (a Found; a plain list is rows that may not be all)."""
        found, complete = (rows, False) if isinstance(rows, list) else (rows.rows, rows.complete)
        if self.model.add_found(query, found, complete):
            self._refine_later()
            app = self._get_app()
            if app is not None and app.is_running:
                app.invalidate()

    last_key = 0.0  # when the query last changed (the disk is looked at between bursts of typing)

    def _search_later(self) -> None:
        """Search the transcripts for the query after a short pause in typing (off the loop)."""
        self._search_generation += 1
        if self.search_transcripts is None or not self.model.query.split():
            return
        app = self._get_app()
        if app is None or not app.is_running:
            return
        generation, query = self._search_generation, self.model.query
        loop = asyncio.get_running_loop()

        def deliver(answered: str, hits: dict[str, str]) -> None:  # on the searcher's thread
            loop.call_soon_threadsafe(self.transcript_hits, answered, hits)

        async def later() -> None:
            await asyncio.sleep(TRANSCRIPT_PAUSE)
            if generation == self._search_generation and self.search_transcripts is not None:
                self.search_transcripts(query, deliver, self.model.search_owners())

        app.create_background_task(later())

    def search_again(self) -> None:
        """The index changed under the open picker: search the typed lines and prompts again."""
        self._search_later()

    def transcript_hits(self, query: str, hits: dict[str, str]) -> None:
        if self.model.set_transcript_hits(query, hits):
            app = self._get_app()
            if app is not None and app.is_running:
                app.invalidate()

    def toggle_machines(self) -> None:
        """C-o: the machines scope (its rows asked for the first time it is shown), or back."""
        self._generation += 1
        self.model.toggle_machines()
        if self.model.scope == MACHINES and not self._machines_asked and self.load_machines is not None:
            self._machines_asked = True
            self.load_machines(self)

    def machine_rows(self, rows: list[Candidate]) -> None:
        """Rows a machine sent (on the loop, as its listing streams in)."""
        self.model.add_machine_rows(rows)
        self._refine_later()
        self._invalidate()

    def machine_done(self, name: str, error: str | None) -> None:
        self.model.machine_done(name, error)
        self._invalidate()

    def _invalidate(self) -> None:
        app = self._get_app()
        if app is not None and app.is_running:
            app.invalidate()

    def toggle_archived(self) -> None:
        self._generation += 1
        self.model.toggle_archived()
        if self.model.show_archived and not self._archived_asked and self.load_archived is not None:
            self._archived_asked = True
            self.load_archived(self.archived_arrived)

    def archived_arrived(self, rows: list[Candidate]) -> None:
        self.model.set_archived(rows)
        app = self._get_app()
        if app is not None and app.is_running:
            app.invalidate()

    def _refine_later(self) -> None:
        """Finish ranking between keystrokes; a newer query makes an older loop stop."""
        self._generation += 1
        if not self.model.pending:
            return
        app = self._get_app()
        if app is None or not app.is_running:
            return
        generation = self._generation

        async def refine() -> None:
            drawn = started = time.monotonic()
            # The rows on screen being ranked are what the user waits for: a listing or a look at the
            # disk on the lister's thread pauses meanwhile (it shared the GIL and the cores: a query typed
            # as the first listing's update ran took 0.3 s to rank instead of 0.1 s). Only for a while:
            # one letter typed at a time ranks for seconds, and the disk was not looked at meanwhile.
            while generation == self._generation:
                if time.monotonic() - started < REFINE_FIRST:
                    keys_typed()
                if not self.model.refine(REFINE_SLICE):
                    break
                if time.monotonic() - drawn >= REFINE_DRAW:
                    app.invalidate()
                    drawn = time.monotonic()
                await asyncio.sleep(0)
            app.invalidate()

        app.create_background_task(refine())

    def prepare_later(self) -> None:
        """Index every scope shortly after opening, so the first search after Tab does not pay for it."""
        if self._prepared:
            return
        app = self._get_app()
        if app is None or not app.is_running:
            return
        self._prepared = True

        async def prepare() -> None:
            await asyncio.sleep(PREPARE_DELAY)
            self.model.prepare()

        app.create_background_task(prepare())

    # -- actions -----------------------------------------------------------------------------------

    def enter(self) -> None:
        chosen = self.model.enter()
        if isinstance(chosen, str):
            self.on_message(chosen)
        else:
            self.on_resume(chosen)

    def start_rename(self) -> None:
        chosen = self.model.selected
        if chosen is None:
            self.on_message("no session to rename here")
            return
        if chosen.is_agent:
            self.on_message(f"a {chosen.kind} conversation is renamed in {chosen.kind} itself (/rename there)")
            return
        self.editing = (chosen, chosen.title)

    def finish_rename(self) -> None:
        if self.editing is None:
            return
        chosen, text = self.editing
        self.editing = None
        title = text.strip()
        if not title:
            self.on_message("rename cancelled: a title cannot be empty")
            return
        if title == chosen.title:
            return
        # A callback that could not persist the change returns False, and the row stays as it was.
        if self.on_rename(chosen, title) is False:
            return
        self.model.rename(chosen.key, title)

    def archive(self) -> None:
        chosen = self.model.selected
        if self.model.show_archived:
            self.unarchive(chosen)
            return
        if chosen is None:
            self.on_message("no session to archive here")
            return
        if chosen.is_agent:
            self.on_message(f"a {chosen.kind} conversation is archived or deleted with {chosen.kind} itself")
            return
        # A live session is still being written by its own dsh; archiving it under its feet would be lost.
        if chosen.unresumable_reason == CURRENT_SESSION or chosen.live_pid is not None:
            self.on_message(f"cannot archive: {chosen.unresumable_reason or 'the session is open'}")
            return
        # Archiving hides a session from every listing: the first C-d says so, a second one does it.
        now = time.monotonic()
        if self._archive_armed is None or self._archive_armed[0] != chosen.id or now > self._archive_armed[1]:
            self._archive_armed = (chosen.id, now + ARCHIVE_CONFIRM_SECONDS)
            self.on_message(f"C-d again archives {chosen.title} (hidden, never deleted: dsh sessions --all --archived)")
            return
        self._archive_armed = None
        if self.on_archive(chosen) is False:
            return
        self.model.archive(chosen.key)

    def unarchive(self, chosen: Candidate | None) -> None:
        """Bring an archived session back (one key: it only shows something again)."""
        if chosen is None:
            self.on_message("no archived session here")
            return
        if self.on_unarchive is None or self.on_unarchive(chosen) is False:
            return
        self.model.unarchive(chosen.key)
        self.on_message(f"brought back {chosen.title}")

    # -- keys --------------------------------------------------------------------------------------

    def _bindings(self) -> KeyBindingsBase:
        kb = KeyBindings()
        model = self.model

        def rows() -> int:
            return max(1, model.rows_height(self.height))

        # fzf's keys too: C-p/C-k up, C-n/C-j down (C-j is not Enter: terminals send C-m for Enter).
        @kb.add("up")
        @kb.add("c-p")
        @kb.add("c-k")
        def _up(event: KeyPressEvent) -> None:
            self._apply_typed()  # keys typed before this one count first
            model.move(-1)

        @kb.add("down")
        @kb.add("c-n")
        @kb.add("c-j")
        def _down(event: KeyPressEvent) -> None:
            self._apply_typed()  # keys typed before this one count first
            model.move(1)

        @kb.add("pageup")
        def _pageup(event: KeyPressEvent) -> None:
            self._apply_typed()  # keys typed before this one count first
            model.page(-1, rows())

        @kb.add("pagedown")
        def _pagedown(event: KeyPressEvent) -> None:
            self._apply_typed()  # keys typed before this one count first
            model.page(1, rows())

        @kb.add("home")
        def _home(event: KeyPressEvent) -> None:
            self._apply_typed()  # keys typed before this one count first
            model.home()

        @kb.add("end")
        def _end(event: KeyPressEvent) -> None:
            self._apply_typed()  # keys typed before this one count first
            model.end()

        @kb.add("enter")
        def _enter(event: KeyPressEvent) -> None:
            self._apply_typed()  # keys typed before this one count first
            if self.editing is not None:
                self.finish_rename()
            else:
                self.enter()

        @kb.add("escape", eager=True)
        def _escape(event: KeyPressEvent) -> None:
            self._apply_typed()  # keys typed before this one count first
            if self.editing is not None:
                self.editing = None
            else:
                self.on_close()

        @kb.add("tab")
        def _tab(event: KeyPressEvent) -> None:
            self._apply_typed()  # keys typed before this one count first
            if self.editing is None:
                keys_typed()
                self._generation += 1
                model.toggle_scope()

        @kb.add("c-o")
        def _machines(event: KeyPressEvent) -> None:
            self._apply_typed()  # keys typed before this one count first
            if self.editing is None:
                self.toggle_machines()

        @kb.add("c-r")
        def _rename(event: KeyPressEvent) -> None:
            self._apply_typed()  # keys typed before this one count first
            if self.editing is None:
                self.start_rename()

        @kb.add("c-d")
        def _archive(event: KeyPressEvent) -> None:
            self._apply_typed()  # keys typed before this one count first
            if self.editing is None:
                self.archive()

        @kb.add("c-a")
        def _archived(event: KeyPressEvent) -> None:
            self._apply_typed()  # keys typed before this one count first
            if self.editing is None:
                self.toggle_archived()

        @kb.add("backspace")
        def _backspace(event: KeyPressEvent) -> None:
            if self.editing is not None:
                chosen, text = self.editing
                self.editing = (chosen, text[:-1])
            elif self.query:
                self.set_query(self.query[:-1])

        @kb.add("c-u")
        def _clear(event: KeyPressEvent) -> None:
            if self.editing is not None:
                self.editing = (self.editing[0], "")
            elif self.query:
                self.set_query("")

        @kb.add(Keys.Any)
        def _type(event: KeyPressEvent) -> None:
            text = "".join(ch for ch in event.data if ch.isprintable())
            if not text:
                return
            if self.editing is not None:
                chosen, current = self.editing
                self.editing = (chosen, current + text)
            else:
                self.set_query(self.query + text)

        @kb.add(Keys.BracketedPaste)
        def _paste(event: KeyPressEvent) -> None:
            # One line of a paste is a query; newlines and controls never reach it.
            text = " ".join(event.data.split())
            text = "".join(ch for ch in text if ch.isprintable())
            if self.editing is not None:
                chosen, current = self.editing
                self.editing = (chosen, current + text)
            elif text:
                self.set_query(self.query + text)

        return ConditionalKeyBindings(kb, filter=Condition(lambda: not self._keys_elsewhere()))
