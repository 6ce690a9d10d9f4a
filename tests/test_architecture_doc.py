"""ARCHITECTURE.md names what the code writes: every log event (and its fields), the log header, every
snapshot field, every control message and frame kind, and the current value of each version constant."""

from __future__ import annotations

import ast
import dataclasses
import json
import re
from collections import defaultdict
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import pytest

from dsh import protocol
from dsh.persist.records import SNAPSHOT_VERSION, AgentInfo, Notification, PaneRecord, Snapshot, TabRecord
from dsh.store.index import SCHEMA_VERSION
from dsh.store.log import LOG_VERSION, SessionLog

REPO = Path(__file__).resolve().parent.parent
PACKAGE = REPO / "dsh"
PAGE = (REPO / "ARCHITECTURE.md").read_text()

# The functions that write a log event, and which positional argument is its type. A function that
# passes on a type it was given (rather than a literal) must be one of these, so its own callers are read.
WRITERS = {"log_event": 0, "append": 0, "append_event": 1, "_event": 0, "_append_to_listed": 2}


def _receiver_is_a_log(call: ast.Call, path: Path) -> bool:
    """`.append` writes an event only on a session log (`log.append`, `self.log.append`, and `self` in
    the log's own module); every other `.append` is a list's."""
    func = call.func
    if not isinstance(func, ast.Attribute):
        return False  # a bound `append = rows.append`
    receiver = ast.unparse(func.value)
    return receiver == "log" or receiver.endswith(".log") or (receiver == "self" and path.name == "log.py")


@cache
def _trees() -> tuple[tuple[Path, ast.Module], ...]:
    return tuple((path, ast.parse(path.read_text(), str(path))) for path in sorted(PACKAGE.rglob("*.py")))


def _calls_in_functions(tree: ast.Module) -> Iterator[tuple[str, ast.Call]]:
    """(name of the innermost enclosing function, call) for every call in the module."""
    stack: list[tuple[str, ast.AST]] = [("<module>", tree)]
    while stack:
        owner, node = stack.pop()
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                stack.append((child.name, child))
                continue
            if isinstance(child, ast.Call):
                yield owner, child
            stack.append((owner, child))


@cache
def _event_calls() -> tuple[dict[str, set[str]], list[str]]:
    """{event type: its fields} for every event the code writes, and the calls whose type is not a literal
    outside a registered writer."""
    written: dict[str, set[str]] = defaultdict(set)
    unread: list[str] = []
    for path, tree in _trees():
        for owner, call in _calls_in_functions(tree):
            name = call.func.attr if isinstance(call.func, ast.Attribute) else getattr(call.func, "id", None)
            if name not in WRITERS or (name == "append" and not _receiver_is_a_log(call, path)):
                continue
            position = WRITERS[name]
            kind = call.args[position] if len(call.args) > position else None
            if isinstance(kind, ast.Constant) and isinstance(kind.value, str):
                fields = {keyword.arg for keyword in call.keywords if keyword.arg is not None}
                given = call.args[position + 1] if len(call.args) > position + 1 else None
                if isinstance(given, ast.Dict):  # `_event(type, {field: value})`
                    fields |= {key.value for key in given.keys if isinstance(key, ast.Constant)}
                written[kind.value] |= fields
            elif owner not in WRITERS:
                where = f"{path.relative_to(REPO)}:{call.lineno}"
                unread.append(f"{where}: {name}() in {owner}() is given a type that is not a literal")
    return written, unread


def _table_after(heading: str) -> dict[str, str]:
    """The rows of the first table after the line starting with `heading`: {first cell's `name`: the row}."""
    lines = PAGE.splitlines()
    start = next((i for i, line in enumerate(lines) if line.startswith(heading)), None)
    assert start is not None, f"ARCHITECTURE.md has no line starting with {heading!r}"
    rows: dict[str, str] = {}
    for line in lines[start + 1 :]:
        if not line.strip():
            if rows:
                break
            continue
        if not line.startswith("|"):
            if rows:
                break
            continue
        first = line.split("|")[1].strip()
        found = re.fullmatch(r"`([^`]+)`", first)
        if found:
            rows[found.group(1)] = line
    assert rows, f"no table of `names` after {heading!r} in ARCHITECTURE.md"
    return rows


def _named(cell: str) -> set[str]:
    return set(re.findall(r"`([A-Za-z_][A-Za-z0-9_]*)`", cell))


def _section(title: str) -> str:
    """The text of the section whose heading is `title`, up to the next heading of any level."""
    found = re.search(rf"^#+ {re.escape(title)}\n(.*?)(?=^#)", PAGE, re.S | re.M)
    assert found, f"ARCHITECTURE.md has no section {title!r}"
    return found.group(1)


def test_every_event_type_the_code_writes_is_in_the_table_with_exactly_its_fields() -> None:
    written, unread = _event_calls()
    assert unread == [], "a new event writer: add it to WRITERS in this test"
    table = _table_after("Every event type the code writes")
    assert sorted(table) == sorted(written), "ARCHITECTURE.md's event table and the code disagree on the types"
    for kind, fields in written.items():
        documented = _named(table[kind].split("|")[2])
        assert documented == fields, f"event {kind!r}: the code writes {sorted(fields)}, the page {sorted(documented)}"


def test_the_scan_finds_the_events_written_through_each_kind_of_writer() -> None:
    written, _ = _event_calls()
    # log_event (the session), the log's own appends, append_event (another session's log), _event.
    assert {"input", "attach", "resume", "close", "title", "archive", "events_lost"} <= set(written)
    assert written["archive"] == {"archived", "reason"}


def test_the_log_header_fields_are_in_the_page(tmp_path: Path) -> None:
    log = SessionLog.create(tmp_path / "sessions", "/somewhere", base=tmp_path)
    log.close()
    header = json.loads(log.path.read_bytes().split(b"\n", 1)[0])
    assert set(_table_after("The header, written by")) == set(header)


@pytest.mark.parametrize("record", [Snapshot, TabRecord, PaneRecord, AgentInfo, Notification])
def test_every_snapshot_field_is_in_its_records_table(record: type) -> None:
    fields = {field.name for field in dataclasses.fields(record)}
    assert set(_table_after(f"`{record.__name__}`")) == fields


def test_every_control_message_and_frame_kind_is_in_the_protocol_section() -> None:
    section = _section("The host/client protocol")
    sent: dict[str, set[str]] = defaultdict(set)
    for _path, tree in _trees():
        for call in ast.walk(tree):
            if isinstance(call, ast.Call) and ast.unparse(call.func) in ("protocol.control", "control"):
                first = ast.unparse(call.args[0]).split(".") if call.args else []
                if first[-2:-1] in (["ToClient"], ["ToHost"]):  # protocol.ToHost.LEAVE
                    kind = getattr(getattr(protocol, first[-2]), first[-1])
                    sent[kind] |= {keyword.arg for keyword in call.keywords if keyword.arg}
    assert {"exit", "switch", "leave", "switch_failed", "redraw"} <= set(sent)
    for kind in (*protocol.ToClient.ALL, *protocol.ToHost.ALL):
        assert f"`{kind}" in section, f"control message {kind!r} is not in the protocol section"
    for kind, fields in sent.items():
        assert f"`{kind}" in section, f"control message {kind!r} is not in the protocol section"
        for field in fields:
            assert re.search(rf"\b{field}\b", section), f"field {field!r} of {kind!r} is not in the protocol section"
    for name in ("INPUT", "SIZE", "OUTPUT", "CONTROL"):
        kind = getattr(protocol, name).decode()
        assert f"`{name}` (`{kind}`" in section, f"frame kind {name} ({kind!r}) is not named with its byte"


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("LOG_VERSION", LOG_VERSION),
        ("SNAPSHOT_VERSION", SNAPSHOT_VERSION),
        ("SCHEMA_VERSION", SCHEMA_VERSION),
        ("PROTOCOL_VERSION", protocol.PROTOCOL_VERSION),
    ],
)
def test_the_versions_table_holds_each_constants_current_value(name: str, value: int) -> None:
    row = _table_after("| constant |")[name]
    assert row.split("|")[3].strip() == str(value), f"{name} is {value}: update ARCHITECTURE.md (and its rule)"


def test_the_man_page_gives_every_event_type_with_exactly_its_fields() -> None:
    written, _ = _event_calls()
    page = (REPO / "man" / "dsh.1").read_text().replace("\\-", "-")
    section = page.split(".SH SESSION LOG FORMAT", 1)[1].split("\n.SH ", 1)[0]
    documented = {
        found.group(1): {field.strip() for field in found.group(2).split(",") if field.strip()}
        for found in re.finditer(r"^\.B (\w+) \{([^}]*)\}$", section, re.M)
    }
    assert documented == dict(written), "man/dsh.1 SESSION LOG FORMAT and the code disagree"
