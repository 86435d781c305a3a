"""One self-debug session at a time, the others queued (issue 51): through a real `selfdebug
serve`, a second request waits ("queued behind `f`" in its progress) and then runs to its own
result; cancelling a queued request leaves the running session alone; cancelling the running one
starts the next. The queue's own rules (first in, first out; leaving the line) without a server."""

from __future__ import annotations

import asyncio

import pytest
from lsprotocol.types import WorkDoneProgressBegin, WorkDoneProgressCancelParams
from test_lsp_e2e import FIX_REPLY, start  # noqa: F401  (the fixture: a real server + client)

from selfdebug.server.cancel import Cancelled, CancelToken
from selfdebug.server.lsp.session_queue import SessionQueue, queued_message


def messages_of(client, token) -> list[str]:
    return [getattr(r, "message", "") or "" for r in client.progress_reports[token]]


async def first_then_second(ws, uri: str, first: dict, second: dict):
    """Start `first`; once it holds the session (its progress began), ask for `second`."""
    client = ws.client
    running = asyncio.ensure_future(ws.command("selfdebug.selfDebug", {"uri": uri, **first}))
    await client.until(lambda: len(client.progress_reports) == 1)
    (token,) = client.progress_reports
    queued = asyncio.ensure_future(ws.command("selfdebug.selfDebug", {"uri": uri, **second}))
    waiting = await client.until(lambda: client.progress_token_with("queued behind `mean`"))
    return running, token, queued, waiting


async def test_a_second_session_waits_for_the_first_then_runs(start):  # noqa: F811
    ws = await start(settings={"maxTurns": 1, "mode": "search"})
    client = ws.client
    uri = ws.open("calc.py")
    running, first, queued, second = await first_then_second(
        ws, uri, {"qualname": "mean"}, {"qualname": "clamp"}
    )
    assert second != first
    done = await asyncio.wait_for(running, 180)
    later = await asyncio.wait_for(queued, 180)
    assert (done["qualname"], done["stopReason"]) == ("mean", "passed")
    assert later["qualname"] == "clamp" and later["stopReason"] not in ("cancelled", "error")
    assert [r["qualname"] for r in client.reports] == ["mean", "clamp"]  # one after the other
    messages = messages_of(client, second)
    assert isinstance(client.progress_reports[second][0], WorkDoneProgressBegin)
    assert messages[1] == "queued behind `mean`", messages  # said at once, then its own work
    assert len(messages) > 3 and not any("queued" in m for m in messages[2:]), messages


async def test_cancelling_a_queued_session_leaves_the_running_one_to_finish(start):  # noqa: F811
    ws = await start(
        script={"replies": [FIX_REPLY], "delay_s": 3.0}, settings={"maxTurns": 1, "mode": "ut"}
    )
    client = ws.client
    uri = ws.open("calc.py")
    running, first, queued, second = await first_then_second(
        ws, uri, {"qualname": "mean"}, {"qualname": "clamp", "mode": "search"}
    )
    client.window_work_done_progress_cancel(WorkDoneProgressCancelParams(token=second))
    cancelled = await asyncio.wait_for(queued, 10)
    assert (cancelled["qualname"], cancelled["stopReason"]) == ("clamp", "cancelled")
    assert not running.done()  # the model is still answering the first
    done = await asyncio.wait_for(running, 120)
    assert (done["qualname"], done["stopReason"], done["applied"]) == ("mean", "passed", True)
    assert len(client.edits) == 1
    assert messages_of(client, second)[1:] == ["queued behind `mean`", "cancelled"]
    assert not any("cancel" in m for m in messages_of(client, first))


async def test_cancelling_the_running_session_starts_the_queued_one(start):  # noqa: F811
    ws = await start(
        script={"replies": [FIX_REPLY], "delay_s": 60.0}, settings={"maxTurns": 1, "mode": "ut"}
    )
    client = ws.client
    uri = ws.open("calc.py")
    running, first, queued, second = await first_then_second(
        ws, uri, {"qualname": "mean"}, {"qualname": "clamp", "mode": "search"}
    )
    await client.until(lambda: client.progress_token_with("asking the model"))
    client.window_work_done_progress_cancel(WorkDoneProgressCancelParams(token=first))
    cancelled = await asyncio.wait_for(running, 10)
    assert (cancelled["qualname"], cancelled["stopReason"]) == ("mean", "cancelled")
    later = await asyncio.wait_for(queued, 180)
    assert later["qualname"] == "clamp" and later["stopReason"] not in ("cancelled", "error")
    assert messages_of(client, second)[-1] != "cancelled"


# -- the queue alone -----------------------------------------------------------------------------
async def settle() -> None:
    """Let every ready task run until it waits again."""
    for _ in range(10):
        await asyncio.sleep(0)


async def test_the_queue_is_first_in_first_out_and_tells_each_waiter_its_place():
    queue = SessionQueue()
    told: dict[str, list[str]] = {"b": [], "c": []}
    order: list[str] = []
    release = {name: asyncio.Event() for name in "abc"}

    async def session(name: str) -> None:
        def on_wait(running: str, ahead: int) -> None:
            told[name].append(queued_message(running, ahead))

        async with queue.turn(name, CancelToken(), on_wait):
            order.append(name)
            await release[name].wait()

    tasks = [asyncio.ensure_future(session(name)) for name in "abc"]
    await settle()
    assert order == ["a"] and queue.running == "a"
    assert told == {"b": ["queued behind `a`"], "c": ["queued behind `a` and 1 more before it"]}
    release["a"].set()
    await settle()
    assert order == ["a", "b"] and queue.running == "b"
    assert told["c"][-1] == "queued behind `b`"
    release["b"].set()
    release["c"].set()
    await asyncio.gather(*tasks)
    assert order == ["a", "b", "c"] and queue.running is None


async def test_a_waiter_leaves_the_line_when_cancelled_and_the_others_move_up():
    queue = SessionQueue()
    cancel_b = CancelToken()
    told_c: list[tuple[str, int]] = []
    entered: list[str] = []
    release_a = asyncio.Event()

    async def session(name: str, cancel: CancelToken, on_wait=lambda *_: None) -> None:
        async with queue.turn(name, cancel, on_wait):
            entered.append(name)
            if name == "a":
                await release_a.wait()

    a = asyncio.ensure_future(session("a", CancelToken()))
    b = asyncio.ensure_future(session("b", cancel_b))
    c = asyncio.ensure_future(session("c", CancelToken(), lambda *args: told_c.append(args)))
    d = asyncio.ensure_future(session("d", CancelToken()))
    await settle()
    cancel_b.cancel("cancelled by the user")
    with pytest.raises(Cancelled):
        await b
    assert told_c == [("a", 1), ("a", 0)]  # b left: c is next
    d.cancel()  # a request whose task is cancelled while it waits leaves the line too
    with pytest.raises(asyncio.CancelledError):
        await d
    assert entered == ["a"] and queue.running == "a"  # the running one is untouched
    release_a.set()
    await asyncio.gather(a, c)
    assert entered == ["a", "c"] and queue.running is None
