"""One view's keys: the keymap, escape key and copy keys from the config, and the key bindings built from them."""

from __future__ import annotations

from typing import TYPE_CHECKING

from dsh.commands.keymap import Keymap, key_display
from dsh.home import dsh_home_path

if TYPE_CHECKING:
    from prompt_toolkit.key_binding import KeyBindingsBase

    from dsh.ui.app import DshApp


class ViewKeys:
    """The keymap as the config gives it, and the bindings made from it: built for the first key, or on
    the loop's turn after the first frame (drawing asks nothing of them); /reload builds them again."""

    keymap: Keymap
    escape_key: str
    copy_keys: str

    def __init__(self, app: DshApp) -> None:
        self.app = app
        self.bindings: KeyBindingsBase | None = None

    def read_keymap(self) -> list[str]:
        """The keymap and the escape key from the config; what is wrong in [keys], as warnings."""
        app = self.app
        self.keymap, warnings = Keymap.from_settings(
            app.config, known_commands=set(app.registry.names()), source=str(dsh_home_path("config.toml"))
        )
        self.escape_key = app.config.text("ui.escape_key")
        app.keyboard.style = app.config.text("ui.keyboard")
        self.copy_keys = app.config.text("ui.copy_keys")
        return warnings

    def current_bindings(self) -> KeyBindingsBase:
        if self.bindings is None:
            from dsh.ui.bindings.merged import mode_bindings  # after the first frame (ARCHITECTURE.md)

            self.bindings = mode_bindings(self.app, self.app.modes)
        return self.bindings

    def config_reloaded(self, warnings: list[str], by: str | None) -> None:
        """The session read its config again (/reload here, or in the session `by`): new keys, prefix
        and settings apply at once, and the message line says so."""
        app = self.app
        app.config = app.session.config
        warnings = warnings + self.read_keymap()
        from dsh.ui.bindings.merged import build_key_bindings

        self.bindings = build_key_bindings(app)
        if warnings:
            app.announce(" | ".join(warnings), error=True)
        else:
            where = "" if by is None else f" by /reload in session {by}"
            path = dsh_home_path("config.toml")
            app.announce(f"config reloaded{where} ({path}); prefix {key_display(self.keymap.prefix)}")
