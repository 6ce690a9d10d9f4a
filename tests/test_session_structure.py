"""Each structural verb saves the snapshot once and tells the views once, whoever calls it."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace

import pytest
from prompt_toolkit.data_structures import Point
from prompt_toolkit.mouse_events import MouseButton, MouseEvent, MouseEventType

from dsh.session import tab_moves
from dsh.session.observer import NoObserver
from dsh.session.pane import Pane
from dsh.session.session import Session
from dsh.ui.chrome import tabbar_fragments
from tests.test_session_commands import FakeClient, plain_shell, with_session  # noqa: F401 (plain_shell: autouse)


class Counting(NoObserver):
    """A view that counts what it is told."""

    def __init__(self) -> None:
        self.told: list[str] = []

    def on_structure_changed(self, new_pane: Pane | None) -> None:
        self.told.append("structure")

    def on_focus_changed(self) -> None:
        self.told.append("focus")

    def on_changed(self) -> None:
        self.told.append("changed")


class Counted:
    """The session with two tabs, the first split in two, and counters on its saves and its views."""

    def __init__(self, session: Session) -> None:
        self.session = session
        session.split("row", None)
        session.open_tab(None)
        session.select_tab(0)
        self.view = Counting()
        session.attach(self.view)
        self.saves = 0
        real = session.scheduler.structural_change

        def save() -> None:
            self.saves += 1
            real()

        session.scheduler.structural_change = save  # type: ignore[method-assign]  # counted, still written


def with_counted(tmp_path: Path, test: Callable[[Counted], object]) -> None:
    with_session(tmp_path, lambda session, _client: test(Counted(session)))


def _pane_of_other_tab(s: Session) -> str:
    return s.tabs.tabs[1].active_pane


VERBS: dict[str, tuple[Callable[[Session], object], int, str]] = {
    # name: (the verb, saves, what the views are told)
    "split": (lambda s: s.split("column", None), 1, "structure"),
    "split at": (lambda s: s.split("column", None, at=_pane_of_other_tab(s), percent=30), 1, "structure"),
    "open_tab": (lambda s: s.open_tab(None), 1, "structure"),
    "close_pane": (lambda s: s.close_pane(), 1, "structure"),
    "zoom": (lambda s: s.zoom(), 1, "structure"),
    "resize": (lambda s: s.resize("left", 2), 1, "structure"),
    "swap": (lambda s: s.swap("next"), 1, "structure"),
    "focus": (lambda s: s.focus("next"), 0, "focus"),
    "focus last": (lambda s: s.focus("last"), 0, "focus"),
    "focus_pane": (lambda s: s.focus_pane(_pane_of_other_tab(s)), 0, "focus"),
    "select_tab": (lambda s: s.select_tab(1), 1, "focus"),
    "step_tab": (lambda s: s.step_tab(-1), 1, "focus"),
    "rename_tab": (lambda s: s.rename_tab("build"), 1, "changed"),
    "name_pane": (lambda s: s.name_pane(s.panes[s.tabs.active_pane], "editor"), 1, "changed"),
    "set_title": (lambda s: s.set_title("refactor"), 1, "changed"),
    "layout": (lambda s: tab_moves.select_layout(s, "tiled"), 1, "structure"),
    "break": (lambda s: tab_moves.break_pane(s), 1, "structure"),
    "move": (lambda s: tab_moves.move_pane(s, 1), 1, "structure"),
    "kill_tab": (lambda s: tab_moves.kill_tab(s, 1), 1, "structure"),
}


def test_a_border_dragged_is_drawn_at_each_move_and_saved_once_dropped(tmp_path: Path) -> None:
    def test(c: Counted) -> None:
        s = c.session
        left = s.tabs.rects(s.area).rects[s.tabs.active_tab.pane_ids()[0]]
        border = left.x + left.width
        assert s.drag_border(border, left.y + 2, border - 3) is not None
        assert s.drag_border(border - 3, left.y + 2, border - 5) is not None
        assert (c.saves, c.view.told) == (0, ["changed", "changed"])
        s.border_dropped()
        assert (c.saves, c.view.told) == (1, ["changed", "changed"])

    with_counted(tmp_path, test)


@pytest.mark.parametrize("name", list(VERBS))
def test_a_verb_saves_once_and_tells_the_views_once(tmp_path: Path, name: str) -> None:
    verb, saves, told = VERBS[name]

    def test(c: Counted) -> None:
        verb(c.session)
        assert (c.saves, c.view.told) == (saves, [told])

    with_counted(tmp_path, test)


def test_a_refused_split_saves_nothing_and_tells_nothing(tmp_path: Path) -> None:
    def test(c: Counted) -> None:
        from dsh.layout.geometry import Rect

        c.session.area = Rect(0, 0, 12, 4)
        assert c.session.split("column", None) is None
        assert (c.saves, c.view.told) == (0, [])

    with_counted(tmp_path, test)


def _click_tab(session: Session, index: int) -> None:
    view = SimpleNamespace(session=session)
    handlers = [f[2] for f in tabbar_fragments(view) if len(f) > 2 and f"{index}:" in f[1]]  # type: ignore[arg-type]
    event = MouseEvent(Point(0, 0), MouseEventType.MOUSE_UP, MouseButton.LEFT, frozenset())
    handlers[0](event)


def test_clicking_a_tab_saves_and_tells_as_tab_select_does(tmp_path: Path) -> None:
    def test(c: Counted) -> object:
        _click_tab(c.session, 1)
        clicked = (c.session.tabs.active_index, c.saves, list(c.view.told))
        c.session.select_tab(0)
        c.saves, c.view.told = 0, []

        async def command() -> None:
            await FakeClient(c.session).registry.run_line(FakeClient(c.session), "/tab select 1")
            assert clicked == (c.session.tabs.active_index, c.saves, c.view.told) == (1, 1, ["focus"])

        return command()

    with_counted(tmp_path, test)
