"""prefix w: the tabs and panes of this session as a tree, with a live thumbnail of the selected pane."""

from __future__ import annotations

from pathlib import Path

from dsh.layout import TabSet
from dsh.layout.choose_tree import thumbnail, tree_model
from tests.test_app_harness import C_B, plain_shell, run, running_app  # noqa: F401 (plain_shell: autouse)


def test_the_tree_lists_tabs_then_their_panes_with_the_active_pane_selected() -> None:
    tabs = TabSet()
    tabs.new_tab("p1", title="work")
    tabs.split("p2", "row")
    tabs.new_tab("p3")
    tabs.select_tab(0)
    tabs.focus("p2")
    model = tree_model(tabs, lambda p: f"sh{p[1]}  LIVE", lambda p: [], session_id="s1", cwd="/w")
    assert [line.text for line in model.lines] == [
        "0: work (2 panes)",
        "  ├ p1 sh1  LIVE",
        "  └ p2 sh2  LIVE",
        "1: sh3 (1 pane)",
        "  └ p3 sh3  LIVE",
    ]
    assert model.selected == 2 and model.target.pane == "p2"
    model.move(1)
    assert model.target.pane == "p3"  # a tab's line goes to its active pane


def test_a_thumbnail_is_the_screens_last_rows_cut_to_size() -> None:
    rows = ["$ make", "building a very long line of output", "done", "$", "", ""]
    assert thumbnail(rows, 10, 3) == ["building …", "done", "$"]  # cut, and it says so
    assert thumbnail(["\x1b[31mred"], 20, 2) == ["^[[31mred"]  # a program's bytes never reach the terminal
    assert thumbnail(rows, 10, 0) == []


def test_prefix_w_shows_the_tree_and_enter_goes_to_a_pane(tmp_path: Path) -> None:
    from dsh.ui.agents_view import fragments

    async def body() -> None:
        async with running_app(tmp_path) as h:
            first = h.pane
            h.type_line("echo thumb-$((6*7))")
            await h.wait_output(first, "thumb-42")
            h.send(C_B + "%")
            await h.wait(lambda: len(h.session.panes) == 2, "a second pane")
            h.send(C_B + "w")
            await h.wait(lambda: h.app.list_overlay is not None, "the tree")
            assert h.app.list_overlay.target.pane == "p2"
            h.send("\x1b[A")  # Up: p1, whose screen shows below the list
            await h.wait(lambda: h.app.list_overlay.target.pane == "p1", "p1 selected")
            shown = "".join(text for _style, text, *_ in fragments(h.app, h.app.list_overlay))
            assert "├ p1" in shown and "└ p2" in shown and "thumb-42" in shown
            h.send("\r")
            await h.wait(lambda: h.app.list_overlay is None and h.session.active_pane is first, "p1 focused")

    run(body)
