"""Break, join, move and kill-tab, in the tabs model and as commands on a headless session (snapshot too)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from dsh.commands.registry import CommandError
from dsh.layout import LayoutError, Leaf, Rect, TabSet
from dsh.persist.states import PaneState
from dsh.session import saving
from dsh.session.session import Session
from tests.test_session_commands import FakeClient, plain_shell, with_session  # noqa: F401 (plain_shell: autouse)


def three_panes_two_tabs() -> TabSet:
    tabs = TabSet()
    tabs.new_tab("p1")
    tabs.split("p2", "row")
    tabs.split("p3", "column")
    tabs.new_tab("p4")
    tabs.select_tab(0)
    return tabs


def test_break_moves_the_pane_to_a_new_last_tab_and_back() -> None:
    tabs = three_panes_two_tabs()
    assert tabs.active_pane == "p3"
    new = tabs.break_pane()
    assert tabs.tab_ids() == ["t1", "t2", "t3"] and new.id == "t3" and tabs.active_index == 2
    assert tabs.tabs[0].pane_ids() == ["p1", "p2"] and tabs.tabs[0].active_pane == "p2"
    assert isinstance(new.root, Leaf) and new.root.pane_id == "p3"
    with pytest.raises(LayoutError, match="alone in its tab"):
        tabs.break_pane()
    # Back into the tab shown before: a pane alone takes its tab with it.
    assert tabs.previous_tab_index() == 0
    tabs.move_pane(0, "row")
    assert tabs.tab_ids() == ["t1", "t2"] and tabs.active_index == 0
    assert tabs.tabs[0].pane_ids() == ["p1", "p2", "p3"] and tabs.active_pane == "p3"


def test_join_splits_the_target_tabs_active_pane() -> None:
    tabs = three_panes_two_tabs()
    tabs.move_pane(1, "column", pane_id="p1")
    assert tabs.tabs[1].pane_ids() == ["p4", "p1"] and tabs.active_index == 1 and tabs.active_pane == "p1"
    rects = tabs.rects(Rect(0, 0, 80, 25)).rects
    assert rects["p4"].x == rects["p1"].x == 0 and rects["p1"].y > rects["p4"].y  # stacked
    assert tabs.tabs[0].pane_ids() == ["p2", "p3"]
    with pytest.raises(LayoutError, match="in that tab already"):
        tabs.move_pane(1)
    with pytest.raises(LayoutError, match="no tab 5"):
        tabs.move_pane(5)


def test_tabs_are_found_by_number_id_or_name() -> None:
    tabs = three_panes_two_tabs()
    tabs.rename_tab("logs", 1)
    tabs.rename_tab("login", 0)
    assert tabs.find_tab("1") == 1 and tabs.find_tab("t1") == 0 and tabs.find_tab("logs") == 1
    assert tabs.find_tab("logi") == 0
    with pytest.raises(LayoutError, match="could be 0:login, 1:logs"):
        tabs.find_tab("lo")
    with pytest.raises(LayoutError, match="no tab 'x'"):
        tabs.find_tab("x")


def test_close_tab_gives_its_panes_and_shows_the_previous_tab() -> None:
    tabs = three_panes_two_tabs()
    tabs.select_tab(1)
    panes, result = tabs.close_tab()
    assert panes == ["p4"] and not result.last_tab_closed and tabs.active_index == 0
    panes, result = tabs.close_tab(0)
    assert panes == ["p1", "p2", "p3"] and result.last_tab_closed


async def wait_until(condition, what: str, timeout: float = 20.0) -> None:
    deadline = asyncio.get_running_loop().time() + timeout
    while not condition():
        assert asyncio.get_running_loop().time() < deadline, f"timed out: {what}"
        await asyncio.sleep(0.05)


def saved_tabs(session: Session) -> list[tuple[str, list[str]]]:
    snapshot, _tails = saving.build_snapshot(session)
    owners: dict[str, list[str]] = {}
    for pane in snapshot.panes:
        owners.setdefault(pane.tab, []).append(pane.id)
    return [(tab.id, sorted(owners.get(tab.id, []))) for tab in snapshot.tabs]


def test_the_commands_move_panes_and_the_snapshot_follows(tmp_path: Path) -> None:
    async def test(session: Session, client: FakeClient) -> None:
        run = client.registry.dispatch
        await run(client, "split", ["-h"])
        await run(client, "split", ["-v"])
        await run(client, "break", [])
        assert saved_tabs(session) == [("t1", ["p1", "p2"]), ("t2", ["p3"])]
        await run(client, "move", [])  # back to the tab shown before
        assert saved_tabs(session) == [("t1", ["p1", "p2", "p3"])]
        await run(client, "new", [])
        await run(client, "tab", ["select", "0"])
        await run(client, "join", ["-t", "1", "-h"])
        assert saved_tabs(session) == [("t1", ["p1", "p2"]), ("t2", ["p3", "p4"])]
        assert session.tabs.active_index == 1 and session.active_pane is session.panes["p3"]
        with pytest.raises(CommandError, match="no tab 'nine'"):
            await run(client, "join", ["-t", "nine"])
        with pytest.raises(CommandError, match="-t needs a tab"):
            await run(client, "join", ["-t"])

        await run(client, "layout", ["even-v"])
        rects = session.tabs.rects(session.area).rects
        assert rects["p3"].x == rects["p4"].x and rects["p3"].width == session.area.width
        assert ("announce", "layout even-vertical", False) in client.calls
        await run(client, "layout", ["next"])  # after even-vertical: main-horizontal
        assert session.tabs.active_tab.last_layout == 2
        with pytest.raises(CommandError, match="unknown layout"):
            await run(client, "layout", ["spiral"])

        # kill-tab: idle shells go at once, the session goes on with the other tab.
        p3 = session.panes["p3"]
        # (A shell just started may not have its terminal's foreground yet, and reads as busy.)
        await wait_until(lambda: not session.busy_panes(), "every shell idle at its prompt")
        await run(client, "kill-tab", [])
        assert saved_tabs(session) == [("t1", ["p1", "p2"])] and "p3" not in session.panes
        await wait_until(lambda: not p3.terminal.running, "the killed tab's shell ended")
        events = [json.loads(line) for line in session.log.path.read_text().splitlines()]
        closed = {e["pane_id"] for e in events if e.get("type") == "pane_closed"}
        assert closed == {"p3", "p4"}

    with_session(tmp_path, test)


def test_kill_tab_asks_once_while_a_program_runs(tmp_path: Path) -> None:
    async def test(session: Session, client: FakeClient) -> None:
        run = client.registry.dispatch
        await run(client, "split", ["-h"])
        await run(client, "new", [])
        await run(client, "tab", ["select", "0"])
        session.panes["p2"].terminal.write(b"sleep 30\r")
        # Only sleep: a shell just started may read as busy until it has its terminal's foreground.
        await wait_until(lambda: [p.id for p in session.busy_panes()] == ["p2"], "sleep 30 running alone")
        await run(client, "kill-tab", ["0"])
        ((question, on_yes, declined),) = client.confirmed  # one question for the whole tab
        assert "tab 0 still runs p2" in question and declined == "not closed"
        assert len(session.tabs) == 2
        on_yes()
        assert session.tabs.tab_ids() == ["t2"] and set(session.panes) == {"p3"}
        await run(client, "kill-tab", ["-f"])  # the last tab: the session ends
        assert session.closing

    with_session(tmp_path, test)


def test_start_all_starts_waiting_panes_and_never_reruns_a_command(tmp_path: Path) -> None:
    async def test(session: Session, client: FakeClient) -> None:
        run = client.registry.dispatch
        with pytest.raises(CommandError, match="no restored pane"):
            await run(client, "start-all", [])
        await run(client, "split", ["-h"])
        await run(client, "new", [])
        first, second, third = (session.panes[p] for p in ("p1", "p2", "p3"))
        # As a restore leaves them: no process, waiting; one had a command running.
        for pane in (first, second):
            pane.terminal.kill()
        await wait_until(lambda: not first.terminal.running and not second.terminal.running, "shells ended")
        first.state = second.state = PaneState.RESTORED
        second.saved_command = ["sh", "-c", "echo rerun-ran > rerun-proof"]
        await run(client, "start-all", [])
        assert ("announce", "started 2 panes", False) in client.calls
        assert first.running and second.running and third.running
        assert first.state is second.state is PaneState.LIVE
        second.terminal.write(b"echo started-fresh\r")
        await wait_until(lambda: "started-fresh" in "\n".join(second.terminal.screen.display), "the fresh shell")
        assert not (tmp_path / "rerun-proof").exists()

    with_session(tmp_path, test)


def test_focus_reports_once_however_many_clients_are_in_the_pane(tmp_path: Path) -> None:
    """A second client whose keyboard enters the pane sends no second focus-in; the first leaving sends
    no focus-out while the second is still in it."""

    def test(session: Session, client: FakeClient) -> None:
        pane = session.active_pane
        assert pane is not None
        reports: list[bool] = []
        pane.terminal.set_focus = reports.append  # type: ignore[method-assign]
        first, second = object(), object()
        session.hold_child_focus(first, pane.id, True)
        session.hold_child_focus(second, pane.id, True)
        assert reports == [True]
        session.hold_child_focus(first, pane.id, False)
        assert reports == [True]
        session.detach(second)  # (a view ending lets go of its pane)
        assert reports == [True, False]

    with_session(tmp_path, test)


def test_the_panes_take_the_smallest_clients_size_or_the_latest(tmp_path: Path) -> None:
    def test(session: Session, client: FakeClient) -> None:
        from dsh.session.observer import NoObserver

        big, small = NoObserver(), NoObserver()  # two views that draw nothing
        session.attach(big)
        session.attach(small)
        session.set_client_area(big, Rect(0, 1, 160, 45))
        session.set_client_area(small, Rect(0, 1, 80, 21))
        assert (session.area.width, session.area.height) == (80, 21)
        assert session.view_area(Rect(0, 1, 160, 45)) == Rect(0, 1, 80, 21)  # the big one lays out small
        session.config.data.setdefault("ui", {})["window_size"] = "latest"
        session.set_client_area(big, Rect(0, 1, 150, 40))  # resized last
        assert (session.area.width, session.area.height) == (150, 40)
        session.config.data["ui"]["window_size"] = "smallest"
        session.detach(small)
        assert (session.area.width, session.area.height) == (150, 40)
        assert session.view_area(Rect(0, 1, 150, 40)) == Rect(0, 1, 150, 40)
        session.detach(big)

    with_session(tmp_path, test)


def test_each_client_shows_and_looks_at_panes_by_its_own_mode_and_window(tmp_path: Path) -> None:
    """What one client's screen shows is its own: an overlay hides the panes from it alone, a zoom hides the
    others from all, and under `ui.window_size = "latest"` a smaller client's window cuts off a pane laid
    out past its edge. Looking (the focused pane, in view) is what reads a pane's notifications."""
    from dsh.session.client_state import ClientState, Mode
    from tests.test_client_state import FakeView

    async def test(session: Session, client: FakeClient) -> None:
        run = client.registry.dispatch
        await run(client, "split", ["-h"])  # p1 left, p2 right (focused)
        big, small = (
            ClientState(session, FakeView(), client.registry),
            ClientState(session, FakeView(), client.registry),
        )  # type: ignore[arg-type]
        session.attach(big)
        session.attach(small)
        session.set_client_area(big, Rect(0, 1, 160, 40))
        session.set_client_area(small, Rect(0, 1, 70, 20))
        assert all(view.shows(p) for view in (big, small) for p in ("p1", "p2"))
        assert big.looks_at("p2") and small.looks_at("p2") and not big.looks_at("p1")
        session.config.data.setdefault("ui", {})["window_size"] = "latest"
        session.client_active(big)  # a key from the big client: the panes take its 160 columns
        assert session.area.width == 160
        assert big.shows("p2") and small.shows("p1") and not small.shows("p2")  # p2 begins past column 70
        session.client_active(small)
        assert session.area.width == 70 and small.shows("p2")
        # An overlay over one client's panes: it neither shows nor looks; the other still does.
        small.mode = Mode.PICKER
        assert not small.shows("p1") and not small.looks_at("p2") and big.looks_at("p2")
        assert session.observer_looks_at("p2")
        big.mode = Mode.HELP
        assert not session.observer_looks_at("p2") and not session.observer_shows("p1")
        # Nobody looks: a notice is kept unread; a client coming back from its overlay reads it.
        session.attention.notice("p2", "build finished")
        assert [(n.pane_id, n.read_at) for n in session.notifications] == [("p2", None)]
        small.mode = Mode.PROMPT
        assert session.notifications[0].read_at is not None
        await run(client, "zoom", [])
        assert small.shows("p2") and not small.shows("p1")
        session.detach(big)
        session.detach(small)

    with_session(tmp_path, test)
