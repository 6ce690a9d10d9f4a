"""Attention in a running session and its view: terminal notifications from a background pane, agent
states in the header, the tab bar and the status line, notifications read on a visit, and what is sent
out to the client's terminal (nothing for the pane in view)."""

from __future__ import annotations

from pathlib import Path

from dsh.attention.hooks import event_for
from dsh.attention.states import BLOCKED, DONE, IDLE, WORKING
from dsh.persist.records import PaneRecord
from dsh.session.saving import build_snapshot
from dsh.ui import chrome
from tests.test_app_harness import (
    C_B,
    C_RBRACKET,
    plain_shell,  # noqa: F401  (autouse: panes run a quick /bin/sh)
    run,
    running_app,
)


def text(fragments: list) -> str:
    return "".join(fragment[1] for fragment in fragments)


def claude(event: str, **fields: object):
    base = {"session_id": "b5f79a21-1b6a-4232-ac1c-328824bb21be", "cwd": "/w", "hook_event_name": event}
    return event_for("claude", {**base, **fields})


def test_osc_9_777_99_and_bel_in_a_background_pane_are_notifications_read_on_a_visit(tmp_path: Path) -> None:
    async def body() -> None:
        async with running_app(tmp_path) as h:
            first = h.pane
            h.send(C_B + "%")
            await h.wait(lambda: len(h.session.panes) == 2 and h.pane is not first, "a second pane, focused")
            # The background pane's own shell prints them, as a build script would.
            first.terminal.write(
                b"printf '\\033]9;build done\\007\\033]9;4;1;50\\007\\033]777;notify;Tests;3 failed\\007"
                b"\\033]99;i=7:d=0;Deploy\\033\\\\\\033]99;i=7:p=body;finished\\033\\\\\\007'\r"
            )
            await h.wait(lambda: len(h.session.notifications) == 4, "four notifications (no progress one)")
            texts = [note.text for note in h.session.notifications]
            assert texts == ["build done", "Tests: 3 failed", "Deploy: finished", "bell in sh"]
            assert first.attention and all(note.read_at is None for note in h.session.notifications)
            assert "!" in text(chrome.tabbar_fragments(h.app))
            assert "(!)" in text(chrome.pane_header(h.app, first.id)())
            # Printed where the user looks: nothing to flag.
            h.pane.terminal.write(b"printf '\\033]9;here\\007'; echo sa''id\r")
            await h.wait_output(h.pane, "said")
            h.send(C_B + "o")
            await h.wait(lambda: h.pane is first, "focus on the first pane")
            assert not first.attention
            assert all(note.read_at is not None for note in h.session.notifications)
            assert "here" not in [note.text for note in h.session.notifications]

    run(body)


def test_an_agent_s_states_show_in_header_tab_bar_status_line_and_go_out_for_a_hidden_pane(tmp_path: Path) -> None:
    sent: list[tuple[str, str]] = []

    async def body() -> None:
        async with running_app(tmp_path, outward=lambda title, body: sent.append((title, body))) as h:
            session = h.session
            agent = h.pane
            from dsh.persist.records import AgentInfo

            agent.agent = AgentInfo(kind="claude", session_id=None, resume_argv=None)
            session.attention.started(agent)
            assert agent.agent_state.state == IDLE
            session.attention.hook(agent.id, claude("UserPromptSubmit", prompt="fix the tests"))
            assert "◐ working" in text(chrome.pane_header(h.app, agent.id)())
            assert "1 working" in text(chrome.status_fragments(h.app))
            # It blocks while the user looks at it: the state shows, nothing goes out, no notification.
            session.attention.hook(
                agent.id, claude("PermissionRequest", tool_name="Bash", tool_input={"command": "ls"})
            )
            assert agent.agent_state.state == BLOCKED and sent == [] and session.notifications == []
            # A new tab hides it: its next ask is a notification, sent out, and the tab rolls up.
            session.attention.hook(agent.id, claude("PostToolUse", tool_name="Bash"))
            h.send(C_B + "c")
            await h.wait(lambda: len(session.tabs.tabs) == 2, "a second tab")
            session.attention.hook(
                agent.id, claude("PermissionRequest", tool_name="Edit", tool_input={"file_path": "/w/a.py"})
            )
            assert sent == [("claude needs you", "allow Edit: /w/a.py")]
            assert [n.text for n in session.notifications] == ["claude needs you: allow Edit: /w/a.py"]
            bar = text(chrome.tabbar_fragments(h.app))
            assert bar.startswith(" ! 0:")
            status = text(chrome.status_fragments(h.app))
            assert status.index("1 needs you") < status.index(session.display_title[:10])
            session.attention.hook(agent.id, claude("Stop", last_assistant_message="Edited a.py."))
            assert agent.agent_state.state == DONE and sent[-1] == ("claude is done", "Edited a.py.")
            assert agent.last_message == "Edited a.py."
            # Saved with its state; a visit makes done idle and reads its notifications.
            record = next(p for p in build_snapshot(session)[0].panes if p.id == agent.id)
            assert (record.agent_state, record.last_message) == (DONE, "Edited a.py.")
            assert PaneRecord.from_dict(record.to_dict()).agent_state == DONE
            h.send(C_B + "p")
            await h.wait(lambda: session.tabs.active_index == 0, "back on the first tab")
            assert agent.agent_state.state == IDLE
            assert all(n.read_at is not None for n in session.notifications)
            assert agent.agent_state.message == "Edited a.py."
            # A working agent in view tells nobody when it is done: it is seen at once.
            session.attention.hook(agent.id, claude("UserPromptSubmit", prompt="again"))
            assert agent.agent_state.state == WORKING
            session.attention.hook(agent.id, claude("Stop", last_assistant_message="Again."))
            assert agent.agent_state.state == IDLE and len(sent) == 2

    run(body)


def test_agents_list_goes_to_the_pane_that_needs_you_and_c_b_g_jumps_there(tmp_path: Path) -> None:
    async def body() -> None:
        from dsh.persist.records import AgentInfo

        async with running_app(tmp_path) as h:
            session = h.session
            first = h.pane
            h.send(C_B + "%")
            await h.wait(lambda: len(session.panes) == 2 and h.pane is not first, "a second pane, focused")
            second = h.pane
            for pane in (first, second):
                pane.agent = AgentInfo(kind="claude", session_id=None, resume_argv=None)
                session.attention.started(pane)
            session.attention.hook(second.id, claude("UserPromptSubmit", prompt="refactor"))
            session.attention.hook(
                first.id, claude("PermissionRequest", tool_name="Bash", tool_input={"command": "ls"})
            )
            h.send(C_B + "a")
            await h.wait(lambda: h.app.list_overlay is not None, "the agents list")
            lines = h.app.list_overlay.lines
            assert [line.target.pane for line in lines[:2]] == [first.id, second.id]
            assert lines[0].text.startswith("needs you") and "allow Bash: ls" in lines[0].text
            assert "this session" in lines[0].text
            shown = text(h.app._help_fragments())
            assert "▶" in shown and "needs you" in shown
            h.send("\r")
            await h.wait(lambda: h.pane is first and h.app.list_overlay is None, "Enter focuses the blocked pane")
            h.send(C_B + "o")
            await h.wait(lambda: h.pane is second, "back on the working pane")
            h.send(C_B + "g")
            await h.wait(lambda: h.pane is first, "C-b g goes to the pane that needs you")
            h.send(C_B + "g")
            await h.wait(lambda: "no agent needs you" in h.message, "nothing else needs you")
            # /notifications: the one notice (the ask came while its pane was hidden), read now.
            if h.app.mode == "pane":  # an agent's pane takes the keyboard: back to the prompt
                h.send(C_RBRACKET)
                await h.wait(lambda: h.app.mode == "prompt", "the keyboard on the prompt")
            h.type_line("/notifications")
            await h.wait(lambda: h.app.list_overlay is not None, "the notifications list")
            assert [line.glyph for line in h.app.list_overlay.lines] == ["·"]
            assert "claude needs you: allow Bash: ls" in h.app.list_overlay.lines[0].text
            h.send("q")
            await h.wait(lambda: h.app.list_overlay is None, "q closes it")

    run(body)


def test_a_background_hook_that_arrives_after_a_later_one_is_old_news(tmp_path: Path) -> None:
    async def body() -> None:
        from dsh.persist.records import AgentInfo

        async with running_app(tmp_path) as h:
            pane = h.pane
            pane.agent = AgentInfo(kind="claude", session_id=None, resume_argv=None)
            attention = h.session.attention
            attention.hook(pane.id, claude("PermissionRequest", tool_name="Bash", tool_input={}), at=100.0, order=11)
            # The prompt's hook started first (same clock tick, lower pid) but its report came second.
            assert not attention.hook(pane.id, claude("UserPromptSubmit", prompt="p"), at=100.0, order=10)
            assert not attention.hook(pane.id, claude("UserPromptSubmit", prompt="p"), at=99.0, order=99)
            assert pane.agent_state.state == BLOCKED
            assert attention.hook(pane.id, claude("PostToolUse", tool_name="Bash"), at=100.2, order=12)
            assert pane.agent_state.state == WORKING
            # A clock set back an hour: not "older", taken.
            assert attention.hook(pane.id, claude("Stop", last_assistant_message="x"), at=100.2 - 3600, order=1)

    run(body)
