"""Keymap overrides from config.toml in a running app: a new prefix, bad entries reported, defaults kept."""

from __future__ import annotations

import os
from pathlib import Path

from test_app_harness import (
    C_A,
    C_B,
    C_RBRACKET,
    plain_shell,  # noqa: F401  (autouse: panes run /bin/sh)
    run,
    running_app,
)

from dsh.config import load_config


def write_config(text: str) -> Path:
    path = Path(os.environ["DSH_HOME"]) / "config.toml"
    path.write_text(text)
    return path


def test_prefix_from_config_replaces_c_b(tmp_path: Path) -> None:
    write_config('[keys]\nprefix = "c-a"\n')

    async def body() -> None:
        async with running_app(tmp_path) as h:
            assert h.message == ""
            sent = h.record(h.pane)
            h.send(C_A + "%")
            await h.wait(lambda: len(h.session.panes) == 2, "C-a % to split")
            sent = h.record(h.pane)
            h.send(C_RBRACKET)
            await h.wait(lambda: h.app.mode == "pane", "C-] to enter the pane")
            h.send(C_B + "%")
            await h.wait(lambda: b"".join(sent) == b"\x02%", "C-b % to reach the pane as plain keys")
            assert len(h.session.panes) == 2
            h.send(C_A + C_A)
            await h.wait(lambda: b"".join(sent) == b"\x02%\x01", "C-a C-a to send C-a")

    run(body)


def test_prefix_from_ui_section_is_used(tmp_path: Path) -> None:
    write_config('[ui]\nprefix = "c-a"\n')

    async def body() -> None:
        async with running_app(tmp_path) as h:
            h.send(C_A + "c")
            await h.wait(lambda: len(h.session.tabs.tabs) == 2, "C-a c to open a tab")

    run(body)


def test_c_space_prefix_pressed_twice_sends_nul(tmp_path: Path) -> None:
    write_config('[keys]\nprefix = "c-space"\n')

    async def body() -> None:
        async with running_app(tmp_path) as h:
            sent = h.record(h.pane)
            h.send("\x00\x00")
            await h.wait(lambda: b"".join(sent) == b"\x00", "C-Space C-Space to send NUL")
            h.send("\x00Q")
            await h.wait(lambda: "no binding for C-Space Q" in h.message, "C-Space Q to be reported")

    run(body)


def test_rebinding_a_key_and_a_direct_binding(tmp_path: Path) -> None:
    write_config('[keys]\n"|" = "split -h"\nx = ""\n[keys.direct]\n"M-z" = "zoom"\n')

    async def body() -> None:
        async with running_app(tmp_path) as h:
            h.send(C_B + "|")
            await h.wait(lambda: len(h.session.panes) == 2, "C-b | to split")
            h.send("\x1bz")
            await h.wait(lambda: h.session.tabs.active_tab.zoomed, "M-z to zoom")
            h.send(C_B + "x")
            await h.wait(lambda: "no binding for C-b x" in h.message, "C-b x to be unbound")
            assert len(h.session.panes) == 2

    run(body)


def test_unknown_key_name_is_reported_with_the_file_and_the_default_kept(tmp_path: Path) -> None:
    path = write_config('[keys]\n"ctrl-x" = "zoom"\n')

    async def body() -> None:
        async with running_app(tmp_path) as h:
            assert str(path) in h.message and "ctrl-x" in h.message and "unknown key" in h.message
            assert h.app.message is not None and h.app.message.error
            h.send(C_B + "%")
            await h.wait(lambda: len(h.session.panes) == 2, "the default C-b % to still split")

    run(body)


def test_unknown_action_is_reported_and_the_default_binding_kept(tmp_path: Path) -> None:
    path = write_config('[keys]\nz = "zoomify"\n')

    async def body() -> None:
        async with running_app(tmp_path) as h:
            assert str(path) in h.message and "/zoomify" in h.message and "default kept" in h.message
            h.send(C_B + "%")
            await h.wait(lambda: len(h.session.panes) == 2, "C-b % to split")
            h.send(C_B + "z")
            await h.wait(lambda: h.session.tabs.active_tab.zoomed, "the default C-b z to still zoom")

    run(body)


def test_bad_prefix_is_reported_and_c_b_kept(tmp_path: Path) -> None:
    path = write_config('[keys]\nprefix = "hyper-b"\n')

    async def body() -> None:
        async with running_app(tmp_path) as h:
            assert str(path) in h.message and "prefix" in h.message
            h.send(C_B + "c")
            await h.wait(lambda: len(h.session.tabs.tabs) == 2, "C-b c to open a tab")

    run(body)


def test_unusable_escape_key_is_reported_and_c_rbracket_kept(tmp_path: Path) -> None:
    path = write_config('[ui]\nescape_key = "ctrl-]"\n')
    # The config schema refuses it as it loads (the app shows config warnings as it starts).
    warnings = load_config().warnings
    assert any(str(path) in w and "ui.escape_key" in w and "ctrl-]" in w and "keeping 'c-]'" in w for w in warnings)

    async def body() -> None:
        async with running_app(tmp_path) as h:
            assert h.app.escape_key == "c-]"
            h.send(C_RBRACKET)
            await h.wait(lambda: h.app.mode == "pane", "C-] to enter the pane")

    run(body)


def test_escape_key_from_config(tmp_path: Path) -> None:
    write_config('[ui]\nescape_key = "c-g"\n')

    async def body() -> None:
        async with running_app(tmp_path) as h:
            h.send("\x07")
            await h.wait(lambda: h.app.mode == "pane", "C-g to enter the pane")
            h.send("\x07")
            await h.wait(lambda: h.app.mode == "prompt", "C-g to go back to the prompt")

    run(body)


def test_prefix_bound_after_itself_runs_the_command_instead_of_sending(tmp_path: Path) -> None:
    write_config('[keys]\n"c-b" = "focus last"\n')

    async def body() -> None:
        async with running_app(tmp_path) as h:
            first = h.pane.id
            sent = h.record(h.pane)
            h.send(C_B + "%")
            await h.wait(lambda: len(h.session.panes) == 2, "C-b % to split")
            h.send(C_B + C_B)
            await h.wait(lambda: h.session.tabs.active_pane == first, "C-b C-b to focus the last pane")
            assert sent == []

    run(body)


def test_reload_applies_a_new_prefix_at_once(tmp_path: Path, dsh_home: Path) -> None:
    async def body() -> None:
        async with running_app(tmp_path) as h:
            (dsh_home / "config.toml").write_text('[ui]\nprefix = "c-a"\n')
            h.type_line("/reload")
            await h.wait(lambda: "config reloaded" in h.message, "the reload message")
            assert "prefix C-a" in h.message and h.app.keymap.prefix == "c-a"
            h.send("\x01%")  # C-a %: the new prefix splits
            await h.wait(lambda: len(h.session.panes) == 2, "C-a % to split")
            (dsh_home / "config.toml").write_text("[term]\nscrollback = -5\n")
            h.type_line("/reload")
            await h.wait(lambda: "scrollback" in h.message, "the bad value named")

    run(body)
