"""Copy mode: a cell cursor with vi's motions that keeps itself in view, selections of three kinds,
search both ways, the shell's prompts to jump between."""

from __future__ import annotations

from dsh.term.copymode import CopyMode
from dsh.term.selection import BLOCK, LINE
from dsh.term.terminal import Terminal


def terminal_with_lines(n: int, rows: int = 5, cols: int = 20) -> Terminal:
    term = Terminal(["true"], cwd="/", rows=rows, cols=cols)
    term.feed("\r\n".join(f"line {i}" for i in range(n)).encode())
    return term


def terminal_showing(text: str, rows: int = 6, cols: int = 30) -> Terminal:
    term = Terminal(["true"], cwd="/", rows=rows, cols=cols)
    term.feed(text.replace("\n", "\r\n").encode())
    return term


def at(copy: CopyMode, line_text: str, col: int) -> None:
    """Put the cursor on the line showing `line_text`, at cell `col`."""
    copy.line = copy.terminal.text_lines().index(line_text)
    copy.col = col
    copy._moved()


def test_cursor_starts_at_the_screen_cursor() -> None:
    term = terminal_with_lines(30)
    copy = CopyMode(term)
    assert term.text_lines()[copy.line] == "line 29" and copy.col == 7
    assert copy.selected_text() == "line 29"  # no selection: y takes the cursor's line


def test_moving_past_the_view_scrolls_it() -> None:
    term = terminal_with_lines(30)
    copy = CopyMode(term)
    copy.move(4)  # to the top row of the view: no scroll yet
    assert term.scroll_offset == 0 and copy.selected_text() == "line 25"
    copy.move(3)
    assert term.scroll_offset == 3 and copy.selected_text() == "line 22"
    assert copy.cursor_in_view(5) == (7, 0)
    copy.top()
    assert copy.selected_text() == "line 0" and copy.cursor == (0, 0)
    copy.bottom()
    assert term.scroll_offset == 0 and copy.selected_text() == "line 29"


def test_h_l_0_caret_dollar_move_along_the_line() -> None:
    term = terminal_showing("   indented words here\n")
    copy = CopyMode(term)
    at(copy, "   indented words here", 5)
    copy.left()
    assert copy.col == 4
    copy.right()
    copy.right()
    assert copy.col == 6
    copy.line_start()
    assert copy.col == 0
    copy.first_nonblank()
    assert copy.col == 3
    copy.line_end()
    assert copy.col == len("   indented words here") - 1
    copy.left()
    copy.line_start()
    copy.left()  # at the edge: stays
    assert copy.col == 0


def test_dollar_keeps_to_each_lines_end_going_up_and_down() -> None:
    term = terminal_showing("short\na much longer line\nmid line\n")
    copy = CopyMode(term)
    at(copy, "short", 0)
    copy.line_end()
    copy.move(-1)
    assert copy.col == len("a much longer line") - 1
    copy.move(-1)
    assert copy.col == len("mid line") - 1


def test_w_b_e_walk_words_and_punctuation_across_lines() -> None:
    term = terminal_showing("foo.bar  baz\nqux_1 end\n")
    copy = CopyMode(term)
    at(copy, "foo.bar  baz", 0)
    stops = []
    for _ in range(6):
        copy.word_forward()
        stops.append(copy.cursor)
    first = copy.terminal.text_lines().index("foo.bar  baz")
    # foo . bar baz | qux_1 end: punctuation is a word of its own, a line break is a blank
    assert stops == [(first, 3), (first, 4), (first, 9), (first + 1, 0), (first + 1, 6), (first + 1, 6)]
    copy.word_backward()
    assert copy.cursor == (first + 1, 0)
    copy.word_backward()
    assert copy.cursor == (first, 9)
    copy.word_backward()
    assert copy.cursor == (first, 4)
    copy.line_start()
    copy.word_end()
    assert copy.cursor == (first, 2)
    copy.word_end()
    assert copy.cursor == (first, 3)  # the "." is a word
    copy.word_end()
    assert copy.cursor == (first, 6)
    copy.line_start()
    copy.word_forward(big=True)  # WORDs are split by blanks only
    assert copy.cursor == (first, 9)
    copy.word_end(big=True)
    copy.word_end(big=True)
    assert copy.cursor == (first + 1, 4)


def test_b_from_the_blank_after_a_line_lands_on_its_last_word() -> None:
    term = terminal_showing("one two\n")
    copy = CopyMode(term)
    at(copy, "one two", 15)
    copy.word_backward()
    assert copy.col == 4


def test_a_word_a_long_line_wrapped_stays_one_word() -> None:
    term = Terminal(["true"], cwd="/", rows=4, cols=10)
    term.feed(b"abcdefghijklmno rest\r\n")
    copy = CopyMode(term)
    copy.top()
    copy.word_end()
    assert copy.cursor == (1, 4)  # the word goes on in the next row
    copy.top()
    copy.select()
    copy.word_end()
    assert copy.selected_text() == "abcdefghijklmno"


def test_character_line_and_block_selections() -> None:
    term = terminal_showing("alpha beta\ngamma delta\nepsilon zeta\n")
    copy = CopyMode(term)
    at(copy, "alpha beta", 6)
    copy.select()
    copy.move(-1)
    assert copy.selected_text() == "beta\ngamma d"
    copy.select(LINE)  # V over a character selection: whole lines
    assert copy.selected_text() == "alpha beta\ngamma delta"
    copy.select(BLOCK)
    copy.move(-1)
    copy.right()
    assert copy.selected_text() == "be\nde\nn"  # a block's rows lose their trailing blanks
    copy.other_end()
    assert copy.cursor[1] == 6
    copy.select(BLOCK)  # the same key again: no selection
    assert copy.selection is None


def test_the_selection_shows_in_the_view() -> None:
    term = terminal_showing("alpha beta\ngamma delta\n", rows=4)
    copy = CopyMode(term)
    at(copy, "alpha beta", 6)
    copy.select()
    copy.move(-1)
    copy.left()
    y = copy.cursor_in_view(4)[1]
    assert copy.view_spans(4) == {y - 1: (6, 30), y: (0, 6)}


def test_scrolling_a_page_moves_the_view_and_the_cursor() -> None:
    term = terminal_with_lines(40)
    copy = CopyMode(term)
    copy.scroll(2)  # C-u in a view of 5 rows
    assert term.scroll_offset == 2 and copy.selected_text() == "line 37"
    assert copy.cursor_in_view(5)[1] == 4  # the cursor keeps its row
    copy.scroll(-2)
    assert term.scroll_offset == 0 and copy.selected_text() == "line 39"


def test_h_m_l_go_to_the_views_rows() -> None:
    term = terminal_with_lines(40)
    copy = CopyMode(term)
    copy.view_line("top")
    assert copy.selected_text() == "line 35"
    copy.view_line("middle")
    assert copy.selected_text() == "line 37"
    copy.view_line("bottom")
    assert copy.selected_text() == "line 39"


def test_search_forward_and_backward_from_the_cursor_wrapping() -> None:
    term = terminal_showing("one apple\ntwo apple\nthree\n")
    copy = CopyMode(term)
    first = term.text_lines().index("one apple")
    at(copy, "two apple", 0)
    assert copy.search("apple", forward=True)
    assert copy.cursor == (first + 1, 4) and term.search_match == (first + 1, 4, 5)
    assert copy.search("apple", forward=True)  # wraps to the top
    assert copy.cursor == (first, 4)
    assert copy.search("apple", forward=False)  # back: wraps to the bottom
    assert copy.cursor == (first + 1, 4)
    assert copy.search("APPLE", forward=True) is False  # capitals: case matters
    assert copy.cursor == (first + 1, 4)


def test_prompt_marks_are_jumped_between() -> None:
    prompt = "\x1b]133;A\x07$ \x1b]133;B\x07"
    term = Terminal(["true"], cwd="/", rows=4, cols=20)
    term.feed(
        (prompt + "ls\r\n" + "".join(f"out {i}\r\n" for i in range(6)) + prompt + "pwd\r\n/x\r\n" + prompt).encode()
    )
    copy = CopyMode(term)
    lines = term.text_lines()
    assert copy.previous_prompt()
    assert copy.line == lines.index("$ pwd")
    assert copy.previous_prompt()
    assert copy.line == lines.index("$ ls") and copy.cursor_in_view(4) == (0, 0)  # shown at the top
    assert not copy.previous_prompt()  # the first one: nowhere further back
    assert copy.next_prompt()
    assert copy.line == lines.index("$ pwd")


def test_no_marks_no_jump() -> None:
    copy = CopyMode(terminal_with_lines(10))
    before = copy.cursor
    assert not copy.previous_prompt() and not copy.next_prompt()
    assert copy.cursor == before


def test_wide_characters_are_stepped_over_and_copied_whole() -> None:
    term = terminal_showing("日本語 text\n")
    copy = CopyMode(term)
    at(copy, "日本語 text", 0)
    copy.right()
    assert copy.col == 2  # the next character, not the first one's second half
    copy.select()
    copy.right()
    assert copy.selected_text() == "本語"
    copy.word_forward()
    assert copy.col == 7


def test_over_a_full_screen_program_the_cursor_stays_on_its_screen() -> None:
    term = terminal_with_lines(30)
    term.feed(b"\x1b[?1049h\x1b[Hfull screen")
    copy = CopyMode(term)
    copy.move(100)
    assert copy.selected_text() == "full screen"  # its top row: the history is the main screen's
    copy.top()
    assert copy.selected_text() == "full screen" and term.scroll_offset == 0
