"""The host/client wire protocol: frames survive any split of the stream; bad input is a clear error."""

from __future__ import annotations

import json
import re

import pytest

from dsh import protocol


def test_frames_come_back_whole_however_the_stream_is_cut() -> None:
    stream = (
        protocol.frame(protocol.INPUT, b"ls\r")
        + protocol.size(40, 120)
        + protocol.control(protocol.ToHost.LEAVE)
        + protocol.frame(protocol.OUTPUT, b"x" * 70000)
    )
    for cut in (1, 2, 5, 7, 4096, len(stream)):
        reader = protocol.FrameReader()
        got = []
        for i in range(0, len(stream), cut):
            got += list(reader.feed(stream[i : i + cut]))
        assert [kind for kind, _ in got] == [protocol.INPUT, protocol.SIZE, protocol.CONTROL, protocol.OUTPUT]
        assert got[0][1] == b"ls\r" and protocol.parse_size(got[1][1]) == (40, 120)
        assert protocol.parse_json(got[2][1]) == {"type": "leave"} and len(got[3][1]) == 70000


@pytest.mark.parametrize(
    ("data", "error"),
    [
        (b"z\x00\x00\x00\x01x", "unknown frame kind"),
        (b"o\xff\xff\xff\xff", "frame too large"),
    ],
)
def test_a_broken_peer_is_a_protocol_error(data: bytes, error: str) -> None:
    with pytest.raises(protocol.ProtocolError, match=error):
        list(protocol.FrameReader().feed(data))


def test_the_handshake_is_one_json_line_and_checked() -> None:
    line = protocol.hello(rows=30, cols=100, env={"TERM": "xterm"}, pid=42, intent={"kind": "stop"})
    assert line.endswith(b"\n") and line.count(b"\n") == 1
    message = protocol.decode_line(line[:-1])
    assert message["protocol"] == protocol.PROTOCOL_VERSION and message["intent"] == {"kind": "stop"}
    for bad in (b"not json", b"[1, 2]", json.dumps({"protocol": 1}).encode(), b"{" * 100000):
        with pytest.raises(protocol.ProtocolError):
            protocol.decode_line(bad)


@pytest.mark.parametrize("payload", [b'{"rows": 0, "cols": 80}', b'{"rows": "x", "cols": 80}', b"[]"])
def test_a_bad_window_size_is_refused(payload: bytes) -> None:
    with pytest.raises(protocol.ProtocolError):
        protocol.parse_size(payload)


def test_a_version_mismatch_says_the_way_forward() -> None:
    text = protocol.version_mismatch(1, 2, we_are="client")
    assert "protocol 1" in text and "host speaks 2" in text
    assert "dsh stop ID" in text and "dsh --resume=ID" in text
    refusal = protocol.decode_line(protocol.refusal(text)[:-1])
    assert refusal["ok"] is False and refusal["error"] == text


def test_a_window_size_is_whole_positive_and_bounded() -> None:
    assert protocol.window_size(40, 120) == (40, 120)
    # A 100000-square hello grew a host to 1.6 GB and a MemoryError: clamped, drawn in the corner.
    assert protocol.window_size(100000, 100000) == (protocol.MAX_ROWS, protocol.MAX_COLS)
    assert protocol.parse_size(b'{"rows": 5000, "cols": 99999}') == (protocol.MAX_ROWS, protocol.MAX_COLS)
    for rows, cols in ((0, 80), (-1, 80), (24, True), (24.5, 80), ("24", 80), (None, 80)):
        with pytest.raises(protocol.ProtocolError):
            protocol.window_size(rows, cols)


def test_a_hello_is_checked_field_by_field_and_an_unknown_intent_refused() -> None:
    good = protocol.decode_line(protocol.hello(rows=100000, cols=3, env={"TERM": "x"}, pid=7)[:-1])
    checked = protocol.check_hello(good)
    assert (checked["rows"], checked["cols"]) == (protocol.MAX_ROWS, 3) and checked["intent"] == {}
    for kind in ("attach", "query", "stop"):
        assert protocol.check_hello({**good, "intent": {"kind": kind}})["intent"]["kind"] == kind
    bad_fields = [
        {"rows": "many"},
        {"cols": -4},
        {"env": ["TERM=x"]},
        {"env": {"TERM": 5}},
        {"pid": "me"},
        {"pid": -1},
        {"intent": "stop"},
        {"intent": {"kind": "junk"}},  # taken for an attach, it took the session over (issue 28's fuzz)
        {"intent": {"kind": None}},
        {"intent": {"kind": ["attach"]}},  # not a string (it was a TypeError, not a refusal)
        {"intent": {"attach": ["share"]}},
        {"intent": {"from_cwd": 5}},
    ]
    for fields in bad_fields:
        with pytest.raises(protocol.ProtocolError):
            protocol.check_hello({**good, **fields})


def test_a_host_reads_its_clients_frames_within_each_kinds_bound() -> None:
    reader = protocol.FrameReader(protocol.CLIENT_FRAME_MAX)
    keys = b"k" * protocol.CLIENT_FRAME_MAX[protocol.INPUT]
    assert list(reader.feed(protocol.frame(protocol.INPUT, keys))) == [(protocol.INPUT, keys)]
    with pytest.raises(protocol.ProtocolError, match="too large"):
        # Refused from its header alone: nothing of the payload is buffered first.
        list(reader.feed(protocol.frame(protocol.CONTROL, b"")[:1] + (1 << 20).to_bytes(4, "big")))
    assert list(protocol.FrameReader().feed(protocol.frame(protocol.OUTPUT, keys + keys)))  # output is not bound so


def test_control_types_keep_their_wire_values() -> None:
    # The values are the protocol's (a client and a host of one version must read each other's).
    assert protocol.ToClient.ALL == ("exit", "switch", "remote", "pong", "detach_keys")
    assert protocol.ToHost.ALL == ("leave", "switch_failed", "redraw", "ping")
    for names in (protocol.ToClient, protocol.ToHost, protocol.IntentKind, protocol.AttachMode):
        # ALL holds every constant of its class (a new one left out of it would be refused).
        assert set(names.ALL) == {v for k, v in vars(names).items() if k.isupper() and k != "ALL"}
    assert protocol.control(protocol.ToHost.LEAVE) == protocol.frame(protocol.CONTROL, b'{"type": "leave"}')
    sent = protocol.control(protocol.ToClient.EXIT, code=0, message="bye")
    assert json.loads(sent[5:]) == {"type": "exit", "code": 0, "message": "bye"}


def test_a_control_message_is_read_as_its_type_and_an_unknown_type_refused() -> None:
    kind, message = protocol.parse_control(b'{"type": "switch_failed", "error": "x"}', protocol.ToHost.ALL)
    assert kind == protocol.ToHost.SWITCH_FAILED and message["error"] == "x"
    assert protocol.parse_control(b'{"type": "pong"}', protocol.ToClient.ALL)[0] == protocol.ToClient.PONG
    # A type of the other direction, an unknown one, none, or not a string: refused, saying which.
    for payload, shown in [
        (b'{"type": "exit"}', "'exit'"),
        (b'{"type": "bogus"}', "'bogus'"),
        (b"{}", "None"),
        (b'{"type": ["leave"]}', "['leave']"),
        (b'{"type": "' + b"x" * 100 + b'"}', "'" + "x" * 39),
    ]:
        with pytest.raises(protocol.ProtocolError, match=re.escape(f"unknown control message type {shown}")):
            protocol.parse_control(payload, protocol.ToHost.ALL)
    with pytest.raises(protocol.ProtocolError, match="not an object"):
        protocol.parse_control(b"[1]", protocol.ToClient.ALL)
