"""Start-up's leftover work runs a job per turn of the loop, after any input that arrived meanwhile."""

from __future__ import annotations

import asyncio
import socket

from dsh.ui import turns


def test_a_key_that_arrives_between_jobs_goes_before_the_next_job() -> None:
    order: list[str] = []

    async def body() -> None:
        loop = asyncio.get_running_loop()
        reader, writer = socket.socketpair()
        reader.setblocking(False)
        done = loop.create_future()

        def key() -> None:
            order.append("key:" + reader.recv(16).decode())

        loop.add_reader(reader.fileno(), key)

        def first() -> None:
            order.append("first")
            writer.send(b"x")  # a key typed while the first job runs

        def last() -> None:
            order.append("last")
            done.set_result(None)

        turns.one_per_turn(loop, first)
        turns.one_per_turn(loop, lambda: order.append("second"))
        turns.one_per_turn(loop, last)
        await asyncio.wait_for(done, 5)
        loop.remove_reader(reader.fileno())
        reader.close()
        writer.close()

    asyncio.run(body())
    assert order == ["first", "key:x", "second", "last"]


def test_a_job_already_waiting_is_not_queued_twice_and_a_failing_one_stops_nothing() -> None:
    ran: list[str] = []

    async def body() -> None:
        loop = asyncio.get_running_loop()
        loop.set_exception_handler(lambda _loop, _context: ran.append("failed"))
        done = loop.create_future()

        def again() -> None:
            ran.append("again")

        def fails() -> None:
            raise RuntimeError("a job that fails")

        for job in (again, again, fails, again):
            turns.one_per_turn(loop, job)
        turns.one_per_turn(loop, lambda: done.set_result(None))
        await asyncio.wait_for(done, 5)

    asyncio.run(body())
    assert ran == ["again", "failed"]
