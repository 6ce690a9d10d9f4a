"""What a view does for /resume: open the picker at once, fill it from a worker, act on the chosen row."""

from __future__ import annotations

import io
import logging
import os
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from typing import TYPE_CHECKING, Any

from dsh.machines.config import read_machines
from dsh.session.machine_agents import live_agents_line
from dsh.session.view_records import Switch
from dsh.store.log import LogError, append_event, read_header
from dsh.ui.state import Mode

if TYPE_CHECKING:
    from dsh.ui.app import DshApp

logger = logging.getLogger("dsh.resume")

# While the picker is open the disk is looked at this often (a transcript rewritten, a new conversation);
# the rows that changed are read again at once, and every row (when too many changed) at most this often.
FOLLOW_SECONDS = 1.0
RELIST_SECONDS = 15.0


class ResumeActions:
    """The picker's glue for one view: its rows (this workspace's at once, the rest from the session's
    worker), its transcript search, and what Enter, rename, archive and bring back do to a listed
    session or agent conversation. The picker's model and view stay on the app (`picker`,
    `picker_view`), where the layout and the keys find them."""

    def __init__(self, view: DshApp) -> None:
        self._view = view
        self._loading = False  # a worker is still bringing every workspace's rows
        self._transcripts: Any = None  # the transcript searcher, made on first use
        self._machines: Any = None  # the machines scope's listing while it runs (dsh.machines.stream)
        self._lister: ThreadPoolExecutor | None = None
        # Every row as last handed to a picker (on the lister's thread), which a look at the disk updates.
        self._listed: Any = None
        self._stale = False  # a look at the disk could not tell what changed, and every row is owed

    @property
    def lister(self) -> ThreadPoolExecutor:
        """The thread the picker lists and follows the disk on: its own, not the session's worker. A
        listing at 100,000 sessions takes seconds, and what waits on that worker (the prompt's history,
        which the keys typed at an attach are held for) would wait behind it: the keys typed into a
        `dsh --resume` as soon as it showed reached the picker 1.2-1.5 s late (held up to 2 s)."""
        if self._lister is None:
            self._lister = ThreadPoolExecutor(max_workers=1, thread_name_prefix="dsh-picker")
        return self._lister

    def close(self) -> None:
        if self._transcripts is not None:
            self._transcripts.close()
        self._end_machines()
        if self._lister is not None:
            self._lister.shutdown(wait=False, cancel_futures=True)

    def _end_machines(self) -> None:
        for stream in self._machines or ():
            stream.cancel()
        self._machines = None

    def _load_machines(self, picker_view: Any) -> None:
        """The machines scope's rows: every configured machine asked over ssh, on the loop; rows shown as
        each answers, a machine that fails one line in the scope line (dsh.machines.stream)."""
        from dsh.machines.stream import MachineStream
        from dsh.resume.candidates import remote_agent_candidate, remote_candidate

        self._end_machines()
        config = read_machines(self._view.config)
        picker_view.model.asking_machines([m.name for m in config.machines])
        if not config.machines:
            picker_view._invalidate()
            return

        def rows(_machine: Any, batch: list[dict[str, Any]]) -> None:
            picker_view.machine_rows([remote_candidate(row) for row in batch])

        def conversations(_machine: Any, batch: list[dict[str, Any]]) -> None:
            picker_view.machine_rows([remote_agent_candidate(row) for row in batch])

        def done(listing: Any) -> None:
            picker_view.machine_done(listing.machine.name, listing.error)

        def agents_done(listing: Any) -> None:
            # The sessions' listing says what is wrong with a machine; this one only logs.
            if listing.error:
                logger.info("agent conversations of %s: %s", listing.machine.name, listing.error)

        self._machines = [
            MachineStream(config, config.machines, on_rows=rows, on_done=done),
            MachineStream(config, config.machines, on_rows=conversations, on_done=agents_done, agents=True),
        ]
        for stream in self._machines:
            stream.start()

    def open_picker(self) -> None:
        """Open /resume on this workspace's rows at once; every workspace's rows follow from a worker."""
        from dsh.resume import picker_hooks
        from dsh.resume.loading import load_rest_and_refresh, open_picker
        from dsh.ui.picker_view import PickerView

        view = self._view
        session = view.session
        agents = bool(picker_hooks.agent_sources(view.config))
        self._agents = agents
        try:
            model = open_picker(
                session.store.index,
                cwd=session.cwd,
                current_session_id=session.log.id,
                own_pid=os.getpid(),
                now=time.time(),
                agents=agents,
            )
        except Exception as exc:
            view.announce(f"cannot read the session store: {exc}", error=True)
            return
        if model.selected is not None and model.selected.id == session.log.id:
            model.move(1)  # this session cannot be resumed from itself: start on the one before it
        model.agents_of = lambda session_id: live_agents_line(session, session_id)
        session.machine.refresh()  # the other hosts' agents as they are now (a redraw when they answer)
        view.picker = model
        view.picker_view = picker_view = PickerView(
            model,
            on_resume=self._resume_candidate,
            on_close=view.close_overlay,
            on_rename=self._rename_candidate,
            on_archive=self._archive_candidate,
            on_message=lambda text: view.announce(text, error=True),
            get_app=lambda: view.application,
            on_unarchive=self._unarchive_candidate,
            load_archived=self._load_archived,
            search_transcripts=self._search_transcripts,
            find_rows=self._find_rows,
            keys_elsewhere=lambda: bool(view.prefix_pending),
            load_machines=self._load_machines,
        )
        view.mode = Mode.PICKER
        view.layout.focus(picker_view.container)
        view.invalidate()
        if self._loading:
            return  # the worker from an earlier open is still going; its rows reach whichever view is open
        self._loading = True
        loop, index, cwd, sid, pid = view.loop, session.store.index, session.cwd, session.log.id, os.getpid()
        refresher, notes = picker_hooks.agent_refresher_for(view.config, cwd)

        def deliver(rows: Any) -> None:  # on the worker
            self._listed = rows
            if not view.ended:
                loop.call_soon_threadsafe(self._rows_arrived, rows)

        def work() -> None:
            try:
                warnings = load_rest_and_refresh(
                    index, cwd=cwd, current_session_id=sid, own_pid=pid, deliver=deliver, refresh_agents=refresher
                )
            except Exception as exc:  # a broken index is a message, never a crash
                warnings = [f"session index: {exc}"]
            if not view.ended:
                loop.call_soon_threadsafe(self._refreshed, warnings, list(notes))
                loop.call_soon_threadsafe(self._follow_later, picker_view, refresher, time.monotonic())

        loop.run_in_executor(self.lister, work)

    def _follow_later(self, picker_view: Any, refresher: Any, listed_at: float) -> None:
        """While this picker is open, look at the disk every FOLLOW_SECONDS: what changed is searched again
        at once (a rewritten transcript's lines), and its rows are read again (`update_rest`; every row,
        at most every RELIST_SECONDS, when that cannot tell which changed)."""
        view = self._view
        loop = view.loop

        def still_open() -> bool:
            return not view.ended and view.mode == Mode.PICKER and view.picker_view is picker_view

        def tick() -> None:
            if not still_open() or self._loading:
                return
            if time.monotonic() - picker_view.last_key < FOLLOW_SECONDS:
                loop.call_later(FOLLOW_SECONDS, tick)  # typing: its keys first, the disk after
                return
            from dsh.resume.loading import follow, lists_every_row, update_rest

            session = view.session
            index, cwd, sid, pid = session.store.index, session.cwd, session.log.id, os.getpid()
            agents = refresher is not None

            def work() -> None:
                listed = self._listed
                followed = follow(index, refresher, since=listed.generation if listed is not None else None)
                if followed.changed and not view.ended:
                    # What changed is searchable now: searched again at once, before its rows are read
                    # again (0.3-1 s at 100,000 sessions when an agent's store changed), and after.
                    loop.call_soon_threadsafe(searched)
                if self._stale:  # every row, put off by RELIST_SECONDS earlier: still owed
                    followed = followed._replace(changed=True, paths=None)
                every = lists_every_row(followed)
                rows = None
                if followed.changed and still_open() and self._listed is not None:
                    self._stale = every and time.monotonic() - listed_at < RELIST_SECONDS
                    if not self._stale:
                        rows = update_rest(
                            index, self._listed, followed, cwd=cwd, current_session_id=sid, own_pid=pid, agents=agents
                        )
                        self._listed = rows
                if not view.ended:
                    loop.call_soon_threadsafe(done, followed.changed, rows, every)

            def searched() -> None:
                if still_open():
                    picker_view.search_again()

            def done(changed: bool, rows: Any, every: bool) -> None:
                if not still_open():
                    return
                if rows is not None:
                    picker_view.add_all(rows)
                    picker_view.search_again()  # a hit in a row that was not listed before
                relisted = rows is not None and every
                self._follow_later(picker_view, refresher, time.monotonic() if relisted else listed_at)

            loop.run_in_executor(self.lister, work)

        loop.call_later(FOLLOW_SECONDS, tick)

    def _rows_arrived(self, rows: Any) -> None:
        view = self._view
        if view.mode == Mode.PICKER and view.picker_view is not None:
            view.picker_view.add_all(rows)

    def _refreshed(self, warnings: list[str], notes: list[str] | None = None) -> None:
        view = self._view
        self._loading = False
        if view.mode == Mode.PICKER and view.picker_view is not None:
            # Keys typed at the open were searched while this look at the disk was still indexing (and
            # making searchable) what was typed in sessions since: their hits may be missing until now.
            view.picker_view.search_again()
        for warning in warnings[:1]:
            view.announce(warning, error=True)
        # An agent store that cannot be read is one line in the picker, not a message over the app.
        if notes and view.mode == Mode.PICKER and view.picker is not None:
            view.picker.set_note(notes[0])
            view.invalidate()

    def _searcher(self) -> Any:
        if self._transcripts is None:
            from dsh.resume.transcripts import TranscriptSearcher

            store = self._view.session.store
            self._transcripts = TranscriptSearcher(store.index.db_path, store.root)
        return self._transcripts

    def _find_rows(self, query: str, deliver: Callable[[str, Any], None]) -> None:
        """The rows that may match `query`, from the index on the searcher's thread (while every row loads)."""

        from dsh.resume.loading import find_rows

        view = self._view
        agents = bool(view.picker_view is not None and self._agents)
        searcher = self._searcher()
        job = partial(
            find_rows,
            query=query,
            current_session_id=view.session.log.id,
            own_pid=os.getpid(),
            agents=agents,
            early=lambda found: deliver(query, found),  # the best rows first, then whether they are all
            superseded=searcher.rows_waiting,
        )
        searcher.ask_rows(query, job, deliver)

    _agents = False

    def _search_transcripts(self, query: str, deliver: Callable[[str, dict[str, str]], None], owners: Any) -> bool:
        return bool(self._searcher().ask(query, deliver, owners))

    def _load_archived(self, deliver: Callable[[list[Any]], None]) -> None:
        from dsh.resume.loading import load_archived

        view = self._view
        session = view.session
        loop, index, cwd, sid, pid = view.loop, session.store.index, session.cwd, session.log.id, os.getpid()

        def work() -> None:
            try:
                rows = load_archived(index, cwd=cwd, current_session_id=sid, own_pid=pid)
            except Exception as exc:  # a broken index is a message, never a crash
                why = f"session index: {exc}"
                loop.call_soon_threadsafe(lambda: view.announce(why, error=True))
                rows = []
            if not view.ended:
                loop.call_soon_threadsafe(deliver, rows)

        loop.run_in_executor(self.lister, work)

    def refresh_index_in_background(self) -> None:
        """Bring the query index up to date on a worker thread (SQLite connections stay per thread)."""
        from dsh.store.index import SessionIndex

        view = self._view
        session = view.session
        if self._loading:
            # This view's picker is listing every row, and refreshes the index right after: `dsh
            # --resume`'s first frame. A second refresh beside it took the GIL from the keys typed then.
            return
        if session.index_refresh_queued:
            return  # one already waits for the worker, and will see what this one would (100 attaches: 1)
        session.index_refresh_queued = True
        db_path, root = session.store.index.db_path, session.store.root

        def work() -> None:
            session.index_refresh_queued = False  # a change from now on needs a refresh of its own
            try:
                index = SessionIndex(db_path, root, progress=io.StringIO())
                try:
                    index.refresh(sync_search=False)
                    index.sync_search()  # what was typed becomes searchable, a batch per transaction
                finally:
                    index.close()
            except Exception:  # a broken index must not break the app; /resume and the listing say so
                return
            if index.write_error is not None and not view.ended:  # a full disk, an I/O error: say so now
                view.loop.call_soon_threadsafe(lambda: view.announce(str(index.write_error), error=True))

        view.loop.run_in_executor(view.session.worker, work)

    def _rename_candidate(self, candidate: Any, title: str) -> bool:
        """Rename a listed session in its own log; False (and a message) when that cannot be saved."""
        session = self._view.session
        if candidate.id == session.log.id:
            session.set_title(title)
            return True
        return self._append_to_listed(candidate, "cannot rename", "title", title=title)

    def _unarchive_candidate(self, candidate: Any) -> bool:
        """Bring an archived session back into the listings (its log gets `archive: false`)."""
        return self._append_to_listed(candidate, "cannot bring back", "archive", archived=False)

    def _archive_candidate(self, candidate: Any) -> bool:
        """Archive (hide, never delete) a listed session; False (and a message) when that cannot be saved."""
        if not self._append_to_listed(candidate, "cannot archive", "archive", archived=True):
            return False
        self._view.announce(f"archived {candidate.id} (dsh sessions --archived lists it)")
        return True

    def _append_to_listed(self, candidate: Any, failure: str, event: str, **fields: Any) -> bool:
        """Append an event to another session's log (logs are append-only; this is how they change)."""
        view = self._view
        path = view.session.store.find_log(candidate.id)
        if path is None:
            view.announce(f"session {candidate.id} is gone", error=True)
            return False
        try:
            append_event(path, event, **fields)
        except (LogError, OSError) as exc:
            view.announce(f"{failure}: {exc}", error=True)
            return False
        return True

    def _resume_candidate(self, candidate: Any) -> None:
        if getattr(candidate, "machine", None) is not None:
            self._go_to_machine(candidate)
            return
        if candidate.is_agent:
            self._open_agent_candidate(candidate)
            return
        self.resume_session(candidate)

    def resume_session(self, candidate: Any) -> None:
        """Move to the session `candidate` (a picker row, or an id) names, its workspace checked now."""
        from dsh.resume.handoff import HandoffError, check_directory
        from dsh.resume.preflight import PreflightError, preflight

        view = self._view
        store = view.session.store
        try:
            resolved = preflight(candidate, find_log=lambda sid: store.find_log(sid), read_header=read_header)
            check_directory(resolved.cwd)
        except (PreflightError, HandoffError) as exc:
            view.announce(str(exc), error=True)
            return
        view.switch_to(Switch(resolved.session_id, resolved.cwd), "resume from a terminal")

    def _go_to_machine(self, candidate: Any) -> None:
        """Enter on another machine's row: the client hands the terminal to ssh running that machine's
        `dsh attach ID` (a running session) or `dsh --resume=ID` (restored there, in its directory), and
        comes back to this session when that ssh ends."""
        from dsh.machines.ssh import attach_argv

        view = self._view
        config = read_machines(view.config)
        machine = config.find(candidate.machine)
        if machine is None:
            view.announce(f"machine {candidate.machine} is no longer in config", error=True)
            return
        live = candidate.state in ("attached", "detached")
        if candidate.is_agent:  # a conversation: opened there, in its directory
            words = [f"--open-agent={candidate.kind}:{candidate.id}"]
        else:
            words = ["attach", candidate.id] if live else [f"--resume={candidate.id}"]
        argv = attach_argv(config.ssh_command, machine, words)
        self._end_machines()
        view.switch_to(Switch(None, view.session.cwd, remote=argv), f"run: ssh -t {machine.ssh} {' '.join(words)}")

    def _open_agent_candidate(self, candidate: Any) -> None:
        """An agent conversation from /resume: a new tab here when it is this workspace's, else a new dsh
        session in its directory (the client starts its host), with a pane running the agent's resume."""
        from dsh.resume.agent_open import go_to_holder, held_elsewhere, plan_agent_open
        from dsh.resume.preflight import PreflightError

        view = self._view
        try:
            # Live anywhere: go there, never start a second agent on the same transcript.
            holder = held_elsewhere(view.session.store.index, candidate.kind, candidate.id)
        except PreflightError as exc:
            view.announce(str(exc), error=True)
            return
        if holder is not None:
            if holder == view.session.log.id:
                view.close_overlay()
                pane = next(
                    (
                        p.id
                        for p in view.session.panes.values()
                        if p.agent is not None and (p.agent.kind, p.agent.session_id) == (candidate.kind, candidate.id)
                    ),
                    None,
                )
                if pane is not None:
                    view.session.focus_pane(pane)  # the pane that holds it, as /agents' Enter goes there
                    return
                view.announce(f"{candidate.kind} conversation {candidate.id} is open in this session")
                return
            go_to_holder(holder, candidate.kind, candidate.id)  # its host shows that pane when attached
            self._resume_candidate(candidate._replace(kind="dsh", id=holder))
            return
        try:
            plan = plan_agent_open(
                candidate.kind,
                candidate.id,
                candidate.cwd,
                candidate.home,
                current_cwd=view.session.cwd,
                env=view.session.env,
            )
        except PreflightError as exc:
            view.announce(str(exc), error=True)
            return
        if plan.here:
            view.close_overlay()
            view.session.open_tab(plan.argv)
            view.announce(f"{plan.kind} conversation {plan.session_id} opened in a new tab")
            return
        view.switch_to(Switch(None, plan.cwd, plan.argv), "open it from a terminal")
