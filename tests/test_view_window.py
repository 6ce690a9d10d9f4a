"""dsh's windows skip prompt_toolkit's per-frame 'last-line' restyle (ui/window.py): it must change nothing
drawn, and the pass must really be gone."""

from __future__ import annotations

from prompt_toolkit.layout.controls import FormattedTextControl
from prompt_toolkit.layout.screen import Screen, WritePosition
from prompt_toolkit.styles import default_ui_style, merge_styles

from dsh.ui import chrome
from dsh.ui.window import LAST_LINE_CLASS, ViewWindow


def test_dsh_s_style_draws_the_last_line_class_as_nothing() -> None:
    style = merge_styles([default_ui_style(), chrome.STYLE])  # what the view's Application uses
    classes = sorted({f"class:{name}" for names, _ in chrome.STYLE.class_names_and_attrs for name in names})
    assert classes, "dsh's style lists its classes"
    for base in ["", *classes, "class:prompt class:suggestion", "fg:#ff0000 bold"]:
        with_class = f"{base} class:{LAST_LINE_CLASS}"
        assert style.get_attrs_for_style_str(with_class) == style.get_attrs_for_style_str(base), base


def test_a_view_window_leaves_its_last_row_s_style_alone() -> None:
    window = ViewWindow(FormattedTextControl("abc\ndef"), style="class:status")
    screen = Screen()
    position = WritePosition(xpos=0, ypos=0, width=10, height=2)
    window.write_to_screen(
        screen, mouse_handlers=_Handlers(), write_position=position, parent_style="", erase_bg=False, z_index=None
    )
    styles = {cell.style for row in screen.data_buffer.values() for cell in row.values()}
    assert any("class:status" in s for s in styles)
    assert not any(LAST_LINE_CLASS in s for s in styles)


class _Handlers:
    def set_mouse_handler_for_range(self, **_kwargs: object) -> None:
        pass
