"""The client state's mode machine, message line and redraw pacing, with no terminal and no prompt_toolkit."""

from __future__ import annotations

from collections.abc import Callable
from types import SimpleNamespace

from dsh.commands.registry import Registry
from dsh.config import load_config
from dsh.session.client_state import MESSAGE_ERROR_SECONDS, MESSAGE_SECONDS, ClientState, Mode


class FakeTerminal:
    def __init__(self) -> None:
        self.alternate_screen = False
        self.focus_events: list[bool] = []

    def set_focus(self, on: bool) -> None:
        self.focus_events.append(on)

    def reading_secret(self) -> bool:
        return False


class FakePane:
    def __init__(self, pane_id: str) -> None:
        self.id = pane_id
        self.running = True
        self.agent = None
        self.takes_keys = False
        self.terminal = FakeTerminal()


class FakeSession:
    def __init__(self, *pane_ids: str) -> None:
        self.panes = {pid: FakePane(pid) for pid in pane_ids}
        self.tabs = SimpleNamespace(active_pane=pane_ids[0] if pane_ids else None, tabs=[object()])
        self.config = load_config()

    @property
    def active_pane(self) -> FakePane | None:
        return self.panes.get(self.tabs.active_pane)

    def hold_child_focus(self, view: object, pane_id: str, held: bool) -> None:
        self.panes[pane_id].terminal.set_focus(held)  # one client: each change is heard

    def client_active(self, view: object) -> None:
        pass

    def client_looks(self, view: object) -> None:
        self.looked = getattr(self, "looked", 0) + 1


class FakeView:
    """Records what the state asks of its screen; runs `later` callbacks only when told to."""

    def __init__(self) -> None:
        self.focused: list[str] = []
        self.redraws = 0
        self.pending: list[tuple[float, Callable[[], object]]] = []
        self.frame_due: set[str] = set()
        self.ended = False
        self.question = False

    def focus(self, target: str) -> None:
        self.focused.append(target)

    def invalidate(self) -> None:
        self.redraws += 1

    def later(self, delay: float, callback: Callable[[], object]) -> None:
        self.pending.append((delay, callback))

    def pane_frame_due(self, pane_id: str, redraw: Callable[[], None]) -> bool:
        return pane_id in self.frame_due

    def panes_changed(self) -> None:
        pass

    def asking(self) -> bool:
        return self.question

    def end(self) -> None:
        self.ended = True

    def run_later(self) -> None:
        pending, self.pending = self.pending, []
        for _delay, callback in pending:
            callback()


def make(*pane_ids: str) -> tuple[ClientState, FakeSession, FakeView]:
    session, view = FakeSession(*pane_ids), FakeView()
    return ClientState(session, view, Registry()), session, view  # type: ignore[arg-type]  # fakes of Session and ClientView


def test_the_keyboard_follows_a_program_that_reads_keys_and_comes_back_with_the_shell() -> None:
    state, session, view = make("p1")
    pane = session.panes["p1"]
    pane.takes_keys = True
    state.on_takes_keys("p1", True)
    assert state.mode == Mode.PANE and view.focused[-1] == "pane"
    assert pane.terminal.focus_events == [True]  # an agent asking for focus events hears it
    pane.takes_keys = False
    state.on_takes_keys("p1", False)
    assert state.mode == Mode.PROMPT and view.focused[-1] == "prompt"
    assert pane.terminal.focus_events == [True, False]


def test_another_panes_program_does_not_move_the_keyboard() -> None:
    state, session, _view = make("p1", "p2")
    session.panes["p2"].takes_keys = True
    state.on_takes_keys("p2", True)
    assert state.mode == Mode.PROMPT


def test_the_prefix_and_a_question_hold_the_keyboard_until_they_end() -> None:
    state, session, view = make("p1")
    state.prefix_pending = True
    session.panes["p1"].takes_keys = True
    state.on_takes_keys("p1", True)
    assert state.mode == Mode.PROMPT  # held while the prefix waits for its key
    state.prefix_pending = False
    state.release_keyboard()
    assert state.mode == Mode.PANE  # what changed meanwhile applies now
    view.question = True  # a question on the prompt line holds it too
    session.panes["p1"].takes_keys = False
    state.on_takes_keys("p1", False)
    assert state.mode == Mode.PANE


def test_the_escape_key_choice_holds_against_the_rule_until_the_focus_moves() -> None:
    state, session, _view = make("p1", "p2")
    session.panes["p1"].takes_keys = True
    state.on_takes_keys("p1", True)
    state.toggle_prompt_pane()
    assert state.mode == Mode.PROMPT
    state.on_takes_keys("p1", True)  # a later poll does not take the choice back
    assert state.mode == Mode.PROMPT
    session.tabs.active_pane = "p2"
    state.on_focus_changed()
    session.tabs.active_pane = "p1"
    state.on_focus_changed()
    assert state.mode == Mode.PANE  # the choice was for the pane the focus left


def test_a_message_goes_at_the_next_key_or_when_its_time_is_up_but_a_question_stays() -> None:
    state, _session, view = make("p1")
    state.announce("hello\x1b[31m")
    assert state.message is not None and "\x1b" not in state.message.text
    state.key_pressed()
    assert state.message is None
    state.first_frame_shown()
    state.announce("timed")
    view.run_later()
    assert state.message is None
    state.confirm("really?", lambda: None)
    state.key_pressed()  # the answer key: the question's line stays until it is handled
    assert state.message is not None and state.message.text == "really?"
    assert view.focused[-1] == "pane"  # the prompt line's own keys must not edit it meanwhile


def test_a_message_said_before_the_first_frame_counts_its_seconds_from_that_frame() -> None:
    state, _session, view = make("p1")
    state.announce("the saved layout was damaged: restored the one saved before it")
    state.announce("a warning", error=True)
    view.run_later()  # a start slowed past the message's seconds: nothing has shown it yet
    assert state.message is not None and state.message.text == "a warning"
    state.first_frame_shown()
    assert sorted(delay for delay, _ in view.pending) == [MESSAGE_SECONDS, MESSAGE_ERROR_SECONDS]
    view.run_later()
    assert state.message is None
    state.announce("later")
    assert [delay for delay, _ in view.pending] == [MESSAGE_SECONDS]  # after the first frame: at once


def test_a_question_stays_on_the_screen_until_its_key_comes() -> None:
    state, _session, view = make("p1")
    state.first_frame_shown()
    answered: list[bool] = []
    state.confirm("still running: p1 sh. End them and quit?", lambda: answered.append(True))
    view.run_later()  # however long the user takes to read it
    assert state.message is not None and state.message.text.startswith("still running")
    assert state.confirming and not answered


def test_output_is_paced_and_an_echo_is_drawn_at_once() -> None:
    state, _session, view = make("p1", "p2")
    state.key_pressed()
    before = view.redraws
    state.on_pane_output("p1")  # the active pane, just after a key: its echo
    assert view.redraws == before + 1 and not view.pending
    view.frame_due.add("p2")
    state.on_pane_output("p2")  # the pane's own frame timer will draw it
    assert view.redraws == before + 1 and not view.pending
    view.frame_due.clear()
    state.on_pane_output("p2")
    state.on_pane_output("p2")
    state.on_pane_output("p2")
    assert view.redraws <= before + 2 and len(view.pending) <= 1  # one frame waits, not one per output


def test_each_client_of_a_session_has_its_own_mode_and_message() -> None:
    session = FakeSession("p1")
    first, second = (ClientState(session, FakeView(), Registry()) for _ in range(2))  # type: ignore[arg-type]  # fakes
    first.enter_pane()
    second.announce("only here")
    assert (first.mode, second.mode) == (Mode.PANE, Mode.PROMPT)
    assert first.message is None and second.message is not None


def test_detach_and_the_session_s_end_say_why_the_view_ends() -> None:
    state, _session, view = make("p1")
    state.detach()
    assert view.ended and state.result.reason == "detached"
    state.on_ended()
    assert state.result.reason == "ended"


def test_the_state_is_every_part_of_the_commands_client() -> None:
    # A command gets the ClientState as its Client: a method added to the protocol (and the view)
    # must be added here too, or the command fails at its first use.
    from dsh.session.client import Client

    wanted = {name for name in vars(Client) if not name.startswith("_")} | set(Client.__annotations__)
    assert (
        sorted(name for name in wanted if not hasattr(ClientState, name) and name not in ("session", "registry")) == []
    )
