"""What a pane is called: its header names the foreground program; a restored pane's title loses its
frozen spinner; a restored tail's bells and notices ring nothing."""

from __future__ import annotations

from pathlib import Path

from test_app_harness import plain_shell, run, running_app  # noqa: F401  (autouse: panes run /bin/sh)

from dsh.persist.states import PaneState
from dsh.session.pane import Pane
from dsh.term.terminal import Terminal


def pane(tmp_path: Path, **fields: object) -> Pane:
    return Pane(
        id="p1",
        argv=["/bin/bash", "-l"],
        cwd=str(tmp_path),
        env={},
        terminal=Terminal(["true"], cwd=str(tmp_path)),
        **fields,
    )  # type: ignore[arg-type]


def test_the_header_names_the_foreground_program_then_its_title(tmp_path: Path) -> None:
    p = pane(tmp_path)
    assert p.header_name == "bash"
    p.foreground = ["less", "README.md"]
    assert p.header_name == "less"  # not `bash`, as the tab says less
    p.terminal.feed(b"\x1b]2;README.md (press h for help)\x07")
    assert p.header_name == "less README.md (press h for help)"
    p.terminal.feed(b"\x1b]2;less README.md\x07")
    assert p.header_name == "less README.md"
    p.name = "docs"
    assert p.header_name == "docs"


def test_a_restored_pane_keeps_no_spinner_in_its_title(tmp_path: Path) -> None:
    p = pane(tmp_path, state=PaneState.RESTORED, saved_title="⠐ Fix the flaky test")
    assert p.title == "Fix the flaky test"
    p.saved_title = "✳ Claude Code"
    assert p.title == "Claude Code"
    p.state = PaneState.LIVE
    p.terminal.feed(b"\x1b]2;\xe2\xa0\x90 Working\x07")
    assert p.title == "⠐ Working"  # a live agent's spinner is news


def test_a_replayed_tail_rings_no_bell_and_sends_no_notice(tmp_path: Path) -> None:
    rang: list[object] = []
    term = Terminal(
        ["true"], cwd=str(tmp_path), on_bell=lambda: rang.append("bell"), on_notice=lambda text: rang.append(text)
    )
    term.replay(b"done\x07 and \x1b]9;build finished\x07")
    assert rang == []
    term.feed(b"\x07")
    assert rang == ["bell"]


def test_quit_asks_about_the_program_running_not_the_shell(tmp_path: Path) -> None:
    async def body() -> None:
        async with running_app(tmp_path) as h:
            h.type_line("sleep 30")
            await h.wait(lambda: h.pane.foreground is not None, "sleep in the foreground")
            h.type_line("/quit")
            await h.wait(lambda: "still running" in h.message, "the question")
            assert "p1 sleep" in h.message
            h.send("n")

    run(body)
