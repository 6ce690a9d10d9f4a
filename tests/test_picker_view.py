"""PickerView driven by keys through prompt_toolkit's pipe input: callbacks observed, model updated."""

from __future__ import annotations

import asyncio
import time
from datetime import UTC, datetime
from typing import Any

from prompt_toolkit.application import Application
from prompt_toolkit.application.current import get_app_or_none
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.key_binding import KeyBindings
from prompt_toolkit.layout import Layout
from prompt_toolkit.output import DummyOutput

from dsh.resume.candidates import CURRENT_SESSION, Candidate, live_reason
from dsh.resume.picker import ALL, WORKSPACE, PickerModel
from dsh.ui.picker_view import PickerView

NOW = datetime(2026, 11, 29, 21, 0, 0, tzinfo=UTC)
HERE = "/home/u/dsh"
UP, DOWN, PGDN, HOME, END = "\x1b[A", "\x1b[B", "\x1b[6~", "\x1b[H", "\x1b[F"
ENTER, TAB, BACKSPACE, CTRL_R, CTRL_D, ESC = "\r", "\t", "\x7f", "\x12", "\x04", "\x1b"
QUIT = "\x11"  # C-q, bound by the test app only, to end the run after every key before it


def cand(sid: str, cwd: str, title: str, updated: str, reason: str | None = None, pid: int | None = None) -> Candidate:
    return Candidate(
        id=sid,
        cwd=cwd,
        workspace_label=cwd.replace("/home/u", "~"),
        title=title,
        first_input="",
        created_at=updated,
        updated_at=updated,
        pane_count=1,
        live_pid=pid,
        unresumable_reason=reason,
        preview=(),
    )


def sample() -> list[Candidate]:
    return [
        cand("a1", HERE, "fix resume picker", "2026-11-29T20:50:00Z"),
        cand("a2", HERE, "store index", "2026-11-29T19:00:00Z", reason=CURRENT_SESSION),
        cand("a3", HERE, "docs for layout", "2026-11-29T18:00:00Z"),
        cand("b1", "/home/u/webshop", "landing page css", "2026-11-29T20:55:00Z"),
        cand("c1", "/home/u/infra", "terraform", "2026-11-29T20:58:00Z", reason=live_reason(77), pid=77),
    ]


class Harness:
    def __init__(self, model: PickerModel | None = None, **options: Any) -> None:
        """`options`: more of PickerView's (`find_rows`, say)."""
        self.model = model if model is not None else PickerModel(sample(), current_cwd=HERE, now=NOW)
        self.events: list[tuple[Any, ...]] = []
        self.view = PickerView(
            self.model,
            on_resume=lambda c: self.events.append(("resume", c.id)),
            on_close=lambda: self.events.append(("close",)),
            on_rename=lambda c, t: self.events.append(("rename", c.id, t)),
            on_archive=lambda c: self.events.append(("archive", c.id)),
            on_message=lambda m: self.events.append(("message", m)),
            **options,
        )

    def type(self, keys: str) -> list[tuple[Any, ...]]:
        extra = KeyBindings()

        @extra.add("c-q")
        def _quit(event: Any) -> None:
            async def later() -> None:
                await asyncio.sleep(0)  # the keys read together are ranked on the loop's next turn
                event.app.exit()

            event.app.create_background_task(later())

        with create_pipe_input() as pipe:
            app: Application[None] = Application(
                layout=Layout(self.view.container),
                key_bindings=extra,
                input=pipe,
                output=DummyOutput(),
                max_render_postpone_time=None,  # as dsh's own (ui/view_lifetime.py): a frame is never put off
            )
            pipe.send_text(keys + QUIT)
            app.run()
        return self.events


def test_typing_filters_and_enter_resumes_the_best_row() -> None:
    h = Harness()
    assert h.type("layout" + ENTER) == [("resume", "a3")]
    assert h.model.query == "layout"


def test_backspace_edits_the_query() -> None:
    h = Harness()
    h.type("layoutx" + BACKSPACE + BACKSPACE)
    assert h.model.query == "layou"
    assert [c.id for c in h.model.visible] == ["a3"]


def test_enter_on_a_disabled_row_says_why() -> None:
    h = Harness()
    assert h.type(DOWN + ENTER) == [("message", CURRENT_SESSION)]


def test_moving_keys() -> None:
    h = Harness()
    h.type(DOWN + DOWN + UP)
    assert h.model.selected is not None and h.model.selected.id == "a2"
    h.type(END)
    assert h.model.selected is not None and h.model.selected.id == "a3"
    h.type(HOME)
    assert h.model.selected_index == 0
    h.type(PGDN)
    assert h.model.selected is not None and h.model.selected.id == "a3"


def test_tab_toggles_scope_and_clears_query() -> None:
    h = Harness()
    h.type("fix" + TAB)
    assert h.model.scope == ALL and h.model.query == ""
    h.type("webshop" + ENTER)
    assert h.events == [("resume", "b1")]
    h.type(TAB)
    assert h.model.scope == WORKSPACE


def test_escape_closes() -> None:
    h = Harness()
    assert h.type(ESC) == [("close",)]


def test_rename_inline_saves_on_enter_and_cancels_on_escape() -> None:
    h = Harness()
    h.type(CTRL_R + BACKSPACE * 6 + "chooser" + ENTER)
    assert h.events == [("rename", "a1", "fix resume chooser")]
    assert h.model.visible[0].title == "fix resume chooser"
    h.type(CTRL_R + "zzz" + ESC)
    assert h.events == [("rename", "a1", "fix resume chooser")]  # Esc left the picker open, title unchanged
    assert h.model.visible[0].title == "fix resume chooser"


def test_rename_shows_the_edit_line() -> None:
    h = Harness()
    h.type(CTRL_R + "!")
    edit = h.view.edit_line()
    assert edit == ("Rename: ", "fix resume picker!")
    line = "".join(t for _, t in h.model.frame(60, 12, edit=edit)[1])
    assert line.startswith("Rename: fix resume picker!")


def test_archive_hides_the_row_but_never_a_live_one() -> None:
    h = Harness()
    h.type(CTRL_D)  # the first C-d only says what a second one would do
    assert h.events[-1][0] == "message" and "C-d again archives" in h.events[-1][1]
    assert [c.id for c in h.model.visible] == ["a1", "a2", "a3"]
    h.type(CTRL_D)
    assert h.events[-1] == ("archive", "a1")
    assert [c.id for c in h.model.visible] == ["a2", "a3"]
    h.type(CTRL_D + CTRL_D)  # a2 is this very session
    assert h.events[-1] == ("message", f"cannot archive: {CURRENT_SESSION}")
    assert [c.id for c in h.model.visible] == ["a2", "a3"]


def test_control_characters_never_reach_the_query() -> None:
    h = Harness()
    h.type("ab\x02\x06\x14c")  # C-b, C-f, C-t: bound to nothing here
    assert h.model.query == "abc"


def test_a_change_the_host_could_not_save_leaves_the_row() -> None:
    h = Harness()
    h.view.on_archive = lambda c: False
    h.view.on_rename = lambda c, t: False
    h.type(CTRL_D + CTRL_D + CTRL_R + "!" + ENTER)
    assert [c.id for c in h.model.visible] == ["a1", "a2", "a3"]
    assert h.model.visible[0].title == "fix resume picker"


def test_ranking_left_after_a_key_is_finished_in_the_background(monkeypatch: Any) -> None:
    from dsh.resume import picker as picker_mod
    from dsh.ui import picker_view as view_mod

    monkeypatch.setattr(picker_mod, "KEYSTROKE_BUDGET", 0.0)  # a keystroke ranks one slice only
    monkeypatch.setattr(view_mod, "REFINE_SLICE", 0.0)  # and so does each background step, however fast
    words = ["parser", "fixture", "login", "export", "flaky", "render"]
    many = [
        cand(f"id{i:04d}", HERE, f"{words[i % 6]} {words[(i * 5) % 6]} {i}", "2026-11-01T10:00:00Z")
        for i in range(3000)
    ]
    model = PickerModel(many, current_cwd=HERE, now=NOW)
    view = PickerView(
        model,
        on_resume=lambda c: None,
        on_close=lambda: None,
        on_rename=lambda c, t: None,
        on_archive=lambda c: None,
        on_message=lambda m: None,
    )
    extra = KeyBindings()
    seen: dict[str, bool] = {}

    @extra.add("c-q")
    def _watch(event: Any) -> None:
        async def wait_then_quit() -> None:
            await asyncio.sleep(0)  # the keys read together are ranked once, after the last of them
            seen["pending_after_keys"] = model.pending and model.query == "fixrend"
            for _ in range(2000):  # gives up rather than hang if nothing finishes the ranking
                if not model.pending:
                    break
                await asyncio.sleep(0.005)
            event.app.exit()

        event.app.create_background_task(wait_then_quit())

    with create_pipe_input() as pipe:
        app: Application[None] = Application(
            layout=Layout(view.container), key_bindings=extra, input=pipe, output=DummyOutput()
        )
        pipe.send_text("fixrend" + QUIT)
        app.run()
    assert seen["pending_after_keys"]
    assert not model.pending
    assert len(model.visible) == 500, model.query  # "fixture render" rows: every sixth


def test_tab_before_every_row_arrives_then_the_rows_come_and_enter_resumes() -> None:
    from dsh.resume.picker import prepare_all

    every = sample()
    mine = [c for c in every if c.cwd == HERE]
    h = Harness(PickerModel(mine, current_cwd=HERE, now=NOW, all_count=len(every)))
    assert h.type(TAB + "webs" + ENTER) == [("message", "all workspaces are still loading")]
    assert h.model.scope == ALL and h.model.query == "webs"
    h.view.add_all(prepare_all(every, current_cwd=HERE, current_workspace=None))
    assert h.type(ENTER) == [("message", "all workspaces are still loading"), ("resume", "b1")]


def test_the_app_sequence_open_then_rows_from_a_worker_thread(tmp_path: Any) -> None:
    """open_picker on the loop, load_rest_and_refresh on a worker, rows handed back with call_soon_threadsafe."""
    from dsh.resume.loading import load_rest_and_refresh, open_picker
    from dsh.store.index import SessionIndex
    from dsh.store.log import SessionLog

    root = tmp_path / "sessions"
    for cwd, text in [(HERE, "fix resume picker"), ("/home/u/webshop", "landing page css")]:
        log = SessionLog.create(root, cwd)
        log.append("input", text=text)
        log.close()
    index = SessionIndex(tmp_path / "session-query.db", root)
    index.refresh()
    later = SessionLog.create(root, "/home/u/infra")  # not indexed yet: comes with the refresh
    later.append("input", text="terraform plan")
    later.close()
    model = open_picker(index, cwd=HERE, current_session_id=None, own_pid=1, now=NOW.timestamp())
    resumed: list[str] = []
    view = PickerView(
        model,
        on_resume=lambda c: resumed.append(c.id),
        on_close=lambda: None,
        on_rename=lambda c, t: None,
        on_archive=lambda c: None,
        on_message=lambda m: None,
    )
    extra = KeyBindings()
    warnings: list[list[str]] = []

    @extra.add("c-q")
    def _wait_then_enter(event: Any) -> None:
        async def wait() -> None:
            for _ in range(2000):  # gives up rather than hang
                if len(warnings) == 1 and not model.pending:
                    break
                await asyncio.sleep(0.005)
            view.enter()
            event.app.exit()

        event.app.create_background_task(wait())

    def start_worker() -> None:
        loop = asyncio.get_running_loop()

        def deliver(rows: Any) -> None:
            loop.call_soon_threadsafe(view.add_all, rows)

        def work() -> None:
            found = load_rest_and_refresh(index, cwd=HERE, current_session_id=None, own_pid=1, deliver=deliver)
            loop.call_soon_threadsafe(warnings.append, found)

        loop.run_in_executor(None, work)

    with create_pipe_input() as pipe:
        app: Application[None] = Application(
            layout=Layout(view.container), key_bindings=extra, input=pipe, output=DummyOutput()
        )
        pipe.send_text(TAB + "terra" + QUIT)
        app.run(pre_run=start_worker)
    index.close()
    assert warnings == [[]]
    assert model.all_loaded and model.scope == ALL and model.counts == (3, 1)
    assert resumed == [later.id]


def test_a_late_second_c_d_asks_again(monkeypatch: Any) -> None:
    import dsh.ui.picker_view as view_module

    now = [1000.0]
    monkeypatch.setattr(view_module.time, "monotonic", lambda: now[0])
    h = Harness()
    h.type(CTRL_D)
    now[0] += view_module.ARCHIVE_CONFIRM_SECONDS + 1
    h.type(CTRL_D)
    assert not any(event[0] == "archive" for event in h.events)
    h.type(CTRL_D)
    assert h.events[-1] == ("archive", "a1")


def test_fzf_keys_move_and_clear() -> None:
    h = Harness()
    h.type("\x0e\x0e\x10")  # C-n C-n C-p
    assert h.model.selected_index == 1
    h.type("\n")  # C-j moves down; it is not Enter
    assert h.model.selected_index == 2 and h.events == []
    h.type("\x0b")  # C-k
    assert h.model.selected_index == 1
    h.type("layout\x15")  # C-u clears the query
    assert h.model.query == ""


def test_c_a_shows_archived_sessions_where_c_d_brings_one_back() -> None:
    h = Harness()
    asked: list[Any] = []
    back = cand("z9", HERE, "an old experiment", "2026-11-01T10:00:00Z")._replace(archived=True)
    h.view.load_archived = lambda deliver: asked.append(deliver) or deliver([back])
    h.view.on_unarchive = lambda c: h.events.append(("unarchive", c.id))
    h.type("\x01")  # C-a
    assert asked and h.model.show_archived and [c.id for c in h.model.visible] == ["z9"]
    h.type(ENTER)
    assert h.events[-1][0] == "message" and "C-d brings it back" in h.events[-1][1]
    h.type(CTRL_D)  # one key: bringing back only shows something again
    assert ("unarchive", "z9") in h.events and h.model.visible == []
    h.type("\x01")
    assert not h.model.show_archived and "z9" in [c.id for c in h.model.visible]
    assert len(asked) == 1  # loaded once


def test_agent_rows_are_renamed_and_archived_in_their_own_cli() -> None:
    row = cand("0b7e4c1a-9a49-4a4a-9d0f-2f1f1e3b9a11", HERE, "agent talk", "2026-11-29T20:59:00Z")._replace(
        kind="claude"
    )
    h = Harness(PickerModel([row, *sample()], current_cwd=HERE, now=NOW))
    h.type(CTRL_R + CTRL_D)
    assert [e for e in h.events if e[0] == "message"] == [
        ("message", "a claude conversation is renamed in claude itself (/rename there)"),
        ("message", "a claude conversation is archived or deleted with claude itself"),
    ]


def test_keys_read_together_are_ranked_once_after_the_last() -> None:
    many = [cand(f"id{i:04d}", HERE, f"row {i}", "2026-11-01T10:00:00Z") for i in range(50)]
    h = Harness(PickerModel(many, current_cwd=HERE, now=NOW))
    model = h.model
    ranked: list[str] = []
    real = model.set_query

    def counting(text: str) -> None:
        ranked.append(text)
        real(text)

    model.set_query = counting  # type: ignore[method-assign]
    h.type("row 4x\x7f2")  # typed at once, a backspace among them
    assert ranked == ["row 42"] and model.query == "row 42"
    assert [c.id for c in model.visible] == ["id0042"]


def test_the_index_is_asked_for_the_rows_before_the_model_ranks_the_query() -> None:
    """While every row is on its way, the index's search (its own thread, in SQLite without the GIL) starts
    before the model ranks the rows it has, not after: at the open that was 7 ms more to the row found."""
    order: list[str] = []
    model = PickerModel(sample()[:3], current_cwd=HERE, now=NOW, all_count=5000, all_recent=sample())
    h = Harness(model, find_rows=lambda query, deliver: order.append(f"find {query}"))
    real = model.set_query

    def ranking(text: str) -> None:
        order.append(f"rank {text}")
        real(text)

    model.set_query = ranking  # type: ignore[method-assign]
    h.type("docs")
    assert order == ["find docs", "rank docs"]


def test_the_picker_draws_what_prompt_toolkits_own_window_draws() -> None:
    """The picker's window copies its rows from made-once cells (dsh.ui.pane_window): the screen, the cursor
    and the rows drawn are those prompt_toolkit's own copy, a character at a time, gives."""
    from prompt_toolkit.application.current import set_app
    from prompt_toolkit.layout.mouse_handlers import MouseHandlers
    from prompt_toolkit.layout.screen import Screen, WritePosition

    from dsh.ui import pane_window
    from dsh.ui.window import ViewWindow

    pane_window._rows.clear()
    rows = [*sample(), cand("w1", "/home/u/漢字", "wide 漢字 title 🙂 here", "2026-11-29T20:59:00Z")]
    model = PickerModel(rows, current_cwd=HERE, now=NOW)
    model.toggle_scope()
    view = PickerView(
        model,
        on_resume=print,
        on_close=print,
        on_rename=print,
        on_archive=print,
        on_message=print,
        get_app=lambda: None,
    )
    screens = []
    for query in ("", "wide", "漢", "fix res"):
        model.set_query(query)
        for window in (view.container, ViewWindow(content=view.container.content, always_hide_cursor=False)):
            app: Application[None] = Application(layout=Layout(window))
            screen = Screen()
            with set_app(app):
                app.layout.focus(window)
                window.write_to_screen(screen, MouseHandlers(), WritePosition(0, 0, 60, 16), "", False, None)
            cells = {(y, x): (c.char, c.style) for y, row in screen.data_buffer.items() for x, c in row.items()}
            screens.append((cells, list(screen.cursor_positions.values()), screen.height))
        ours, theirs = screens[-2], screens[-1]
        assert ours == theirs, query
    assert any("漢" in c for c, _ in screens[2][0].values())
    assert pane_window._rows  # the picker's rows were made once and kept


def test_a_background_listing_waits_while_the_rows_on_screen_are_ranked(monkeypatch: Any) -> None:
    """Each slice of the ranking left after a key holds background listings off (`give_way`), not only the
    0.3 s after the key: a listing's update beside it took half the GIL, and the query ranked 3-6x slower."""
    from dsh.resume import candidates
    from dsh.ui import picker_view

    monkeypatch.setattr(picker_view, "REFINE_SLICE", 0.0)  # a chunk of rows at a time
    rows = [
        cand(f"r{i:05d}", f"/w/{i % 9}", f"task {i} of the day", f"2026-11-{1 + i % 28:02d}T00:00:00Z")
        for i in range(5000)
    ]
    model = PickerModel(rows, current_cwd=HERE, now=NOW)
    model.toggle_scope()
    h = Harness(model)
    held: list[bool] = []
    real = model.refine

    def refine(budget: float = 0.02) -> bool:
        held.append(candidates._typing_until > time.monotonic())
        candidates._typing_until = 0.0  # the key's own pause is over: only the ranking holds them now
        more = real(budget)
        if not more:
            app = get_app_or_none()
            if app is not None:
                app.exit()
        return more

    monkeypatch.setattr(model, "refine", refine)
    with create_pipe_input() as pipe:
        app: Application[None] = Application(layout=Layout(h.view.container), input=pipe, output=DummyOutput())
        pipe.send_text("tdy")
        app.run()
    assert len(held) > 3 and all(held), held


def test_a_keys_echo_is_drawn_before_its_ranking() -> None:
    """As fzf draws its query line before its matcher is done: the frame after a key shows the query as
    typed (its count not yet known) over the last query's rows, then the ranking and its frame follow."""
    h = Harness()
    drawn: list[tuple[str, str]] = []
    frame = h.model.frame

    def recording(width: int, height: int, **kw: Any) -> list[Any]:
        lines = frame(width, height, **kw)
        drawn.append((h.model.query, "".join(text for _, text in lines[1])))
        return lines

    h.model.frame = recording  # type: ignore[method-assign]
    h.type("layout")
    echoes = [line for ranked, line in drawn if ranked == "" and line.startswith("> layout")]
    assert echoes and "…/" in echoes[0]  # the query line, its count to come
    ranked = [line for query, line in drawn if query == "layout"]
    assert ranked and drawn.index(("", echoes[0])) < drawn.index(("layout", ranked[0]))
    assert "…" not in ranked[-1] and [c.id for c in h.model.visible] == ["a3"]
