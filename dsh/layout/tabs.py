"""Tabs of split trees: the whole window's layout state and every operation the keys and commands need.

Focus moves and structural changes end a zoom, as tmux does. Tab titles are stored with control
characters already escaped (`dsh.text.sanitize`), so a title typed, set by a child or read from disk can
be drawn as is.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from dsh.layout import presets, tree
from dsh.layout.errors import LayoutError
from dsh.layout.geometry import (
    DIRECTIONS,
    MIN_HEIGHT,
    MIN_WIDTH,
    Direction,
    Layout,
    Rect,
    layout_rects,
    min_size,
    neighbor,
)
from dsh.layout.ids import check_id, next_id
from dsh.layout.tree import Leaf, Node, Orientation, Split
from dsh.text import sanitize
from dsh.values import Value

MAX_TITLE = 200


class Tab(Value, fields=("id", "title", "root", "active_pane", "zoomed", "last_active", "last_layout")):
    """One tab: a split tree, its active pane, zoom, and the panes active before (most recent first).

    `last_layout` is the preset last applied (an index into `presets.LAYOUT_NAMES`, -1 for none), so
    the next-layout key goes on from it as tmux's does.
    """

    __slots__ = ("active_pane", "id", "last_active", "last_layout", "root", "title", "zoomed")
    id: str
    title: str | None
    root: Node
    active_pane: str
    zoomed: bool
    last_active: list[str]
    last_layout: int

    def __init__(
        self,
        id: str,
        title: str | None,
        root: Node,
        active_pane: str,
        zoomed: bool = False,
        last_active: list[str] | None = None,
    ) -> None:
        self.id = id
        self.title = title
        self.root = root
        self.active_pane = active_pane
        self.zoomed = zoomed
        self.last_active = [] if last_active is None else last_active
        self.last_layout = -1

    def pane_ids(self) -> list[str]:
        """This tab's panes in reading order."""
        return tree.pane_ids(self.root)

    def activate(self, pane_id: str) -> None:
        """Make `pane_id` active, remembering the one it replaces."""
        if pane_id == self.active_pane:
            return
        previous = self.active_pane
        self.last_active = [previous, *(p for p in self.last_active if p not in (pane_id, previous))]
        self.active_pane = pane_id


class CloseResult(Value, fields=("tab_closed", "last_tab_closed", "new_active"), frozen=True):
    """What closing a pane did: whether its tab went too, whether that was the last tab, the new focus."""

    __slots__ = ("last_tab_closed", "new_active", "tab_closed")
    tab_closed: bool
    last_tab_closed: bool
    new_active: str | None

    def __init__(self, tab_closed: bool, last_tab_closed: bool, new_active: str | None) -> None:
        setattr_ = object.__setattr__
        setattr_(self, "tab_closed", tab_closed)
        setattr_(self, "last_tab_closed", last_tab_closed)
        setattr_(self, "new_active", new_active)


def clean_title(title: str | None) -> str | None:
    """A title trimmed, capped and with control characters escaped; empty means None (automatic)."""
    if title is None:
        return None
    if not isinstance(title, str):
        raise LayoutError(f"a tab title must be text, not {type(title).__name__}")
    return sanitize(title.strip(), MAX_TITLE) or None


class TabSet:
    """The tabs of one dsh window and which one is active."""

    def __init__(self, *, min_width: int = MIN_WIDTH, min_height: int = MIN_HEIGHT) -> None:
        self.tabs: list[Tab] = []
        self.active_index = 0
        self.min_width = max(1, min_width)
        self.min_height = max(1, min_height)
        self._tab_history: list[str] = []  # previously active tab ids, most recent first

    # --- looking things up -------------------------------------------------------------------------

    def __len__(self) -> int:
        return len(self.tabs)

    @property
    def active_tab(self) -> Tab:
        """The tab on screen; LayoutError when there is none."""
        if not self.tabs:
            raise LayoutError("there are no tabs")
        return self.tabs[self.active_index]

    @property
    def active_pane(self) -> str:
        """The active pane of the active tab."""
        return self.active_tab.active_pane

    def pane_ids(self) -> list[str]:
        """Every pane in every tab, tab by tab in reading order."""
        return [pid for tab in self.tabs for pid in tab.pane_ids()]

    def tab_ids(self) -> list[str]:
        """Every tab id, in tab order."""
        return [tab.id for tab in self.tabs]

    def tab_of(self, pane_id: str) -> Tab | None:
        """The tab holding `pane_id`, or None."""
        for tab in self.tabs:
            if tree.find_leaf(tab.root, pane_id) is not None:
                return tab
        return None

    def _require_tab(self, pane_id: str) -> Tab:
        tab = self.tab_of(pane_id)
        if tab is None:
            raise LayoutError(f"no pane {pane_id!r}")
        return tab

    def _check_new_pane(self, pane_id: str) -> None:
        check_id(pane_id)
        if self.tab_of(pane_id) is not None:
            raise LayoutError(f"pane id {pane_id!r} is already in use")

    # --- tabs --------------------------------------------------------------------------------------

    def _switch_to(self, index: int) -> None:
        if self.tabs and index != self.active_index and 0 <= self.active_index < len(self.tabs):
            old = self.tabs[self.active_index].id
            self._tab_history = [old, *(t for t in self._tab_history if t != old)]
        self.active_index = index

    def new_tab(self, pane_id: str, title: str | None = None, *, tab_id: str | None = None) -> Tab:
        """Append a tab holding one new pane and make it active. Without `tab_id`, one like `t3` is made."""
        self._check_new_pane(pane_id)
        if tab_id is None:
            tab_id = next_id("t", self.tab_ids())
        check_id(tab_id, "tab id")
        if tab_id in self.tab_ids():
            raise LayoutError(f"tab id {tab_id!r} is already in use")
        tab = Tab(tab_id, clean_title(title), Leaf(pane_id), pane_id)
        self.tabs.append(tab)
        self._switch_to(len(self.tabs) - 1)
        return tab

    def select_tab(self, index: int) -> None:
        """Show the tab at `index` (0-based)."""
        if not 0 <= index < len(self.tabs):
            raise LayoutError(f"no tab {index}: there are {len(self.tabs)}")
        self._switch_to(index)

    def next_tab(self) -> bool:
        """Show the next tab, wrapping around; False when there is only one."""
        if len(self.tabs) < 2:
            return False
        self._switch_to((self.active_index + 1) % len(self.tabs))
        return True

    def prev_tab(self) -> bool:
        """Show the previous tab, wrapping around; False when there is only one."""
        if len(self.tabs) < 2:
            return False
        self._switch_to((self.active_index - 1) % len(self.tabs))
        return True

    def rename_tab(self, title: str | None, index: int | None = None) -> None:
        """Set a tab's title (the active tab's by default); empty or None means automatic."""
        if index is None:
            index = self.active_index
        if not 0 <= index < len(self.tabs):
            raise LayoutError(f"no tab {index}: there are {len(self.tabs)}")
        self.tabs[index].title = clean_title(title)

    # --- panes -------------------------------------------------------------------------------------

    def split(
        self,
        new_pane_id: str,
        orientation: Orientation,
        *,
        pane_id: str | None = None,
        before: bool = False,
    ) -> None:
        """Split `pane_id` (default: the active pane); the new pane goes after it (or `before`), focused."""
        self._check_new_pane(new_pane_id)
        if pane_id is None:
            tab = self.active_tab
            pane_id = tab.active_pane
        else:
            tab = self._require_tab(pane_id)
        tab.root = tree.split_pane(tab.root, pane_id, new_pane_id, orientation, before=before)
        tab.zoomed = False
        tab.activate(new_pane_id)
        self._switch_to(self.tabs.index(tab))

    def close_pane(self, pane_id: str) -> CloseResult:
        """Remove a pane. Focus goes to the last active pane still there, else to the pane that got its space.

        Closing a tab's last pane closes the tab; the previously shown tab (else a neighbour) comes up.
        """
        tab = self._require_tab(pane_id)
        root, heir = tree.remove_pane(tab.root, pane_id)
        if root is None:
            return self._close_tab(tab)
        tab.root = root
        tab.zoomed = False
        tab.last_active = [p for p in tab.last_active if p != pane_id]
        if tab.active_pane == pane_id:
            replacement = tab.last_active[0] if tab.last_active else heir
            assert replacement is not None
            tab.active_pane = replacement
            tab.last_active = tab.last_active[1:] if tab.last_active else []
        return CloseResult(False, False, self.active_pane)

    def _close_tab(self, tab: Tab) -> CloseResult:
        index = self.tabs.index(tab)
        was_active = index == self.active_index
        del self.tabs[index]
        self._tab_history = [t for t in self._tab_history if t != tab.id]
        if not self.tabs:
            self.active_index = 0
            return CloseResult(True, True, None)
        if was_active:
            ids = self.tab_ids()
            if self._tab_history:
                self.active_index = ids.index(self._tab_history.pop(0))
            else:
                self.active_index = max(0, index - 1)
        elif index < self.active_index:
            self.active_index -= 1
        return CloseResult(True, False, self.active_pane)

    def focus(self, pane_id: str) -> None:
        """Make `pane_id` active, switching to its tab."""
        tab = self._require_tab(pane_id)
        if pane_id != tab.active_pane:
            tab.zoomed = False
        tab.activate(pane_id)
        self._switch_to(self.tabs.index(tab))

    def focus_direction(self, direction: Direction, area: Rect) -> bool:
        """Move focus to the pane across the active pane's border; False at the edge."""
        target = self._neighbor(direction, area)
        if target is None:
            return False
        self.focus(target)
        return True

    def _neighbor(self, direction: Direction, area: Rect) -> str | None:
        if direction not in DIRECTIONS:
            raise LayoutError(f"direction must be one of {', '.join(DIRECTIONS)}, not {direction!r}")
        tab = self.active_tab
        rects = self._layout(tab, area, ignore_zoom=True).rects
        return neighbor(rects, tab.active_pane, direction, recent=tab.last_active)

    def _cycle(self, step: int) -> str | None:
        tab = self.active_tab
        ids = tab.pane_ids()
        if len(ids) < 2:
            return None
        return ids[(ids.index(tab.active_pane) + step) % len(ids)]

    def focus_next(self) -> bool:
        """Focus the next pane in reading order, wrapping; False when the tab has one pane."""
        target = self._cycle(1)
        if target is not None:
            self.focus(target)
        return target is not None

    def focus_prev(self) -> bool:
        """Focus the previous pane in reading order, wrapping; False when the tab has one pane."""
        target = self._cycle(-1)
        if target is not None:
            self.focus(target)
        return target is not None

    def focus_last(self) -> bool:
        """Focus the pane that was active before this one (tmux `last-pane`); False when there is none."""
        tab = self.active_tab
        if not tab.last_active:
            return False
        self.focus(tab.last_active[0])
        return True

    def toggle_zoom(self) -> bool:
        """Zoom the active pane to the whole tab, or unzoom; gives the new state; a lone pane never zooms."""
        tab = self.active_tab
        tab.zoomed = False if tab.zoomed else isinstance(tab.root, Split)
        return tab.zoomed

    def swap(self, target: Direction | Literal["next", "prev"], area: Rect | None = None) -> bool:
        """Exchange the active pane with its neighbour (`next`/`prev` in reading order, or by direction).

        Focus stays with the active pane, now in its new place. False when there is nobody to swap with.
        """
        tab = self.active_tab
        if target == "next" or target == "prev":
            other = self._cycle(1 if target == "next" else -1)
        else:
            if area is None:
                raise LayoutError("swapping by direction needs the screen area")
            other = self._neighbor(target, area)
        if other is None:
            return False
        tree.swap_panes(tab.root, tab.active_pane, other)
        tab.zoomed = False
        return True

    def resize(self, direction: Direction, cells: int, area: Rect) -> int:
        """Move a border of the active pane `cells` cells towards `direction`; returns how far it moved.

        The border on that side of the pane moves (the pane grows); a pane with no border on that side
        moves its opposite border instead (the pane shrinks), like tmux `resize-pane -L/-R/-U/-D`. Panes
        never shrink below the minimum size.
        """
        if direction not in DIRECTIONS:
            raise LayoutError(f"direction must be one of {', '.join(DIRECTIONS)}, not {direction!r}")
        if cells <= 0:
            return 0
        tab = self.active_tab
        tab.zoomed = False
        path = tree.find_path(tab.root, tab.active_pane) or []
        orientation = "row" if direction in ("left", "right") else "column"
        towards_start = direction in ("left", "up")
        chosen: tuple[Split, int] | None = None
        for prefer_same_side in (True, False):
            for split, index in reversed(path):
                if split.orientation != orientation:
                    continue
                # The border between child b and b+1.
                border = index - 1 if towards_start == prefer_same_side else index
                if 0 <= border < len(split.children) - 1:
                    chosen = (split, border)
                    break
            if chosen:
                break
        if chosen is None:
            return 0
        split, border = chosen
        found: dict[str, list[int]] = {}

        def record(node: Split, _rect: Rect, sizes: list[int], _mins: list[int]) -> None:
            if node is split:
                found["sizes"] = sizes

        layout_rects(tab.root, area, min_width=self.min_width, min_height=self.min_height, on_split=record)
        return abs(self._shift(split, border, found["sizes"], -cells if towards_start else cells))

    def _shift(self, split: Split, border: int, sizes: list[int], delta: int) -> int:
        """Move the border after child `border` of `split` (laid out at `sizes`) by `delta` cells, as far as
        the children's minimum sizes let it; how far it moved (negative: towards the start)."""
        horizontal = split.orientation == "row"
        mins = [min_size(c, horizontal, self.min_width, self.min_height) for c in split.children]
        low = min(0, mins[border] - sizes[border])  # how far the border may move towards the start
        high = max(0, sizes[border + 1] - mins[border + 1])  # ... and towards the end
        moved = max(delta, low) if delta < 0 else min(delta, high)
        if moved == 0:
            return 0
        sizes = list(sizes)
        sizes[border] += moved
        sizes[border + 1] -= moved
        split.weights = [float(size) for size in sizes]
        return moved

    def drag_border(self, area: Rect, x: int, y: int, to: int) -> int | None:
        """Move the border through cell (x, y) of the active tab to column `to` (a border between
        side-by-side panes) or row `to` (between stacked ones), as far as the panes' minimum sizes let it,
        as a mouse drags it; its column or row now, or None when no border passes through that cell."""
        tab = self.active_tab
        if tab.zoomed:
            return None
        found: list[tuple[Split, int, list[int], int]] = []

        def record(node: Split, rect: Rect, sizes: list[int], _mins: list[int]) -> None:
            horizontal = node.orientation == "row"
            along, across = (x, y) if horizontal else (y, x)
            low, high = (rect.y, rect.bottom) if horizontal else (rect.x, rect.right)
            pos = rect.x if horizontal else rect.y
            for index, size in enumerate(sizes[:-1]):
                pos += size
                if pos == along and low <= across < high:
                    found.append((node, index, list(sizes), pos))
                pos += 1

        layout_rects(tab.root, area, min_width=self.min_width, min_height=self.min_height, on_split=record)
        if not found:
            return None
        split, border, sizes, at = found[0]
        return at + self._shift(split, border, sizes, to - at)

    # --- moving panes between tabs (tmux's break-pane, join-pane, kill-window) --------------------

    def find_tab(self, target: str) -> int:
        """The index of the tab `target` names: its number as the tab bar shows it, its id, or its title
        (or a unique prefix of a title)."""
        text = target.strip()
        if text.isascii() and text.isdigit():
            index = int(text)
            if index < len(self.tabs):
                return index
            raise LayoutError(f"no tab {index} (there are {len(self.tabs)})")
        for index, tab in enumerate(self.tabs):
            if tab.id == text:
                return index
        titled = [i for i, tab in enumerate(self.tabs) if tab.title and tab.title == text]
        if not titled:
            titled = [i for i, tab in enumerate(self.tabs) if tab.title and tab.title.startswith(text)]
        if len(titled) == 1:
            return titled[0]
        if titled:
            names = ", ".join(f"{i}:{self.tabs[i].title}" for i in titled)
            raise LayoutError(f"tab {sanitize(text, 40)!r} could be {names}")
        raise LayoutError(f"no tab {sanitize(text, 40)!r}")

    def previous_tab_index(self) -> int | None:
        """The index of the tab shown before this one (else the one before it), None with one tab."""
        ids = self.tab_ids()
        for tab_id in self._tab_history:
            if tab_id in ids and ids.index(tab_id) != self.active_index:
                return ids.index(tab_id)
        if len(self.tabs) < 2:
            return None
        return (self.active_index - 1) % len(self.tabs)

    def break_pane(self, pane_id: str | None = None) -> Tab:
        """Move a pane (default: the active one) to a new tab of its own after the last, and show it."""
        pane_id = pane_id or self.active_pane
        tab = self._require_tab(pane_id)
        if isinstance(tab.root, Leaf):
            raise LayoutError("the pane is alone in its tab already")
        self.close_pane(pane_id)
        new = Tab(next_id("t", self.tab_ids()), None, Leaf(pane_id), pane_id)
        self.tabs.append(new)
        self._switch_to(len(self.tabs) - 1)
        return new

    def move_pane(self, index: int, orientation: Orientation = "column", pane_id: str | None = None) -> Tab:
        """Move a pane (default: the active one) into the tab at `index`, splitting that tab's active
        pane, and show it there focused. A pane alone in its tab takes the tab with it (tmux closes the
        window a join empties)."""
        pane_id = pane_id or self.active_pane
        source = self._require_tab(pane_id)
        if not 0 <= index < len(self.tabs):
            raise LayoutError(f"no tab {index} (there are {len(self.tabs)})")
        target = self.tabs[index]
        if target is source:
            raise LayoutError("the pane is in that tab already")
        if isinstance(source.root, Leaf):
            self._close_tab(source)
        else:
            self.close_pane(pane_id)
        target.root = tree.split_pane(target.root, target.active_pane, pane_id, orientation)
        target.zoomed = False
        target.activate(pane_id)
        self._switch_to(self.tabs.index(target))
        return target

    def close_tab(self, index: int | None = None) -> tuple[list[str], CloseResult]:
        """Remove a whole tab (default: the active one): its panes, and what closing it did."""
        if index is None:
            index = self.active_index
        if not 0 <= index < len(self.tabs):
            raise LayoutError(f"no tab {index} (there are {len(self.tabs)})")
        tab = self.tabs[index]
        return tab.pane_ids(), self._close_tab(tab)

    # --- preset layouts (tmux's select-layout) ---------------------------------------------------

    def select_layout(self, name: str, area: Rect, *, main_pane_height: str = "24", main_pane_width: str = "80") -> str:
        """Lay the active tab out as preset `name` (or a unique prefix of it) for `area`; its full name."""
        full = presets.lookup(name)
        tab = self.active_tab
        tab.root = presets.build(
            full,
            tab.pane_ids(),
            area.width,
            area.height,
            main_pane_height=main_pane_height,
            main_pane_width=main_pane_width,
        )
        tab.zoomed = False
        tab.last_layout = presets.LAYOUT_NAMES.index(full)
        return full

    def next_layout_name(self, step: int = 1) -> str:
        """The preset after (or before, `step` -1) the one the active tab had last, as tmux's C-b Space."""
        last = self.active_tab.last_layout
        count = len(presets.LAYOUT_NAMES)
        if last < 0:
            return presets.LAYOUT_NAMES[0 if step > 0 else count - 1]
        return presets.LAYOUT_NAMES[(last + step) % count]

    def spread_evenly(self, area: Rect) -> bool:
        """Give the active pane and its siblings the same size (tmux's select-layout -E): the nearest split
        holding the active pane whose children are not even already; False when all are."""
        tab = self.active_tab
        path = tree.find_path(tab.root, tab.active_pane) or []
        sizes_of: dict[int, tuple[int, list[int]]] = {}

        def record(node: Split, rect: Rect, sizes: list[int], _mins: list[int]) -> None:
            sizes_of[id(node)] = (rect.width if node.orientation == "row" else rect.height, sizes)

        layout_rects(tab.root, area, min_width=self.min_width, min_height=self.min_height, on_split=record)
        for split, _index in reversed(path):
            along, sizes = sizes_of[id(split)]
            even = presets.spread(along, len(split.children))
            if even is None or even == sizes:
                continue
            split.weights = [float(size) for size in even]
            tab.zoomed = False
            return True
        return False

    # --- drawing -----------------------------------------------------------------------------------

    def _layout(self, tab: Tab, area: Rect, *, ignore_zoom: bool = False) -> Layout:
        if tab.zoomed and not ignore_zoom:
            zoomed = Layout({tab.active_pane: area})
            zoomed.too_small = area.width < self.min_width or area.height < self.min_height
            return zoomed
        return layout_rects(tab.root, area, min_width=self.min_width, min_height=self.min_height)

    def rects(self, area: Rect) -> Layout:
        """The active tab's layout in `area` (a zoomed tab gives its active pane the whole area)."""
        return self._layout(self.active_tab, area)

    # --- storing -----------------------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """A JSON-safe picture of the tabs (see `dsh.layout.serialize`)."""
        from dsh.layout.serialize import tabset_to_dict  # a cycle: serialize builds Tab and TabSet

        return tabset_to_dict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], *, min_width: int = MIN_WIDTH, min_height: int = MIN_HEIGHT) -> TabSet:
        """Rebuild tabs from `to_dict` output; anything malformed raises LayoutError saying what."""
        from dsh.layout.serialize import tabset_from_dict  # a cycle, as above

        return tabset_from_dict(data, cls(min_width=min_width, min_height=min_height))
