"""The host/client wire protocol: frames survive any split of the stream; bad input is a clear error."""

from __future__ import annotations

import json

import pytest

from dsh import protocol


def test_frames_come_back_whole_however_the_stream_is_cut() -> None:
    stream = (
        protocol.frame(protocol.INPUT, b"ls\r")
        + protocol.size(40, 120)
        + protocol.control("leave")
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
