"""dsh.ui.pane_colours: a program's palette and default colours put into its cells' styles."""

from __future__ import annotations

from dsh.ui.pane_colours import PaneColours, recolour


def test_only_what_was_set_changes() -> None:
    sets: dict[int | str, str] = {1: "00ff00", 200: "123456"}
    assert recolour("fg:ansired bg:ansibrightred bold", sets) == "fg:#00ff00 bg:ansibrightred bold"
    assert recolour("fg:#ff00d7 [fi:200] bg:#ff0000 [bi:196] underline", sets) == (
        "fg:#123456 bg:#ff0000 [bi:196] underline"
    )
    assert recolour("fg:#cd0000", sets) == "fg:#cd0000"  # 24-bit: the program's own exact colour
    assert recolour("reverse", sets) == "reverse"  # defaults stay the user's until 10/11 set them
    assert recolour("reverse", {"fg": "111111", "bg": "222222"}) == "bg:#222222 fg:#111111 reverse"


def test_styles_are_made_again_when_the_sets_change() -> None:
    colours = PaneColours()
    fragments = [("fg:ansiblue", "ab"), ("", "c")]
    assert colours.fragments(fragments, {4: "0000aa"}, 1, 3) == [("fg:#0000aa", "ab"), ("", "c")]
    assert colours.fragments(fragments, {4: "0000bb", "bg": "ffffff"}, 2, 5) == [
        ("bg:#ffffff fg:#0000bb", "ab"),
        ("bg:#ffffff", "c"),
        ("bg:#ffffff", "  "),
    ]
    assert colours.fragments([("", "日本")], {"bg": "ffffff"}, 2, 5) == [("bg:#ffffff", "日本"), ("bg:#ffffff", " ")]
