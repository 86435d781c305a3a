"""The edit search through a real `selfdebug serve` (issue 13): mode `search` fixes the fixture's
one-token bug with no model, the suspicious lines are published as Information diagnostics of
the function, and the edit the user confirms names the finder."""

from __future__ import annotations

import asyncio
import re

from test_lsp_e2e import start  # noqa: F401  (the fixture: a real `selfdebug serve` + client)


async def test_search_mode_shows_suspicious_lines_and_names_the_finder(start):  # noqa: F811
    ws = await start(
        script={"replies": ["never asked: there is no model in mode search"]},
        settings={"maxTurns": 1, "mode": "search"},
    )
    client = ws.client
    uri = ws.open("calc.py")
    action = (await ws.actions(uri, 3, 4))[0]  # on the `def mean` line
    await asyncio.wait_for(ws.command(action.command.command, *action.command.arguments), 180)
    information = [d for d in client.diagnostics[uri] if d.severity == 3]
    assert information, client.diagnostics[uri]
    assert all(d.code == "suspicious-line" and d.source == "selfdebug" for d in information)
    assert re.fullmatch(
        r"suspicious: run by 2/2 failing and 0/\d passing tests", information[0].message
    )
    assert {d.range.start.line for d in information} <= {4, 5, 6, 7}  # inside `mean`
    (sent,) = client.edits
    (change,) = sent.edit.document_changes
    annotation = sent.edit.change_annotations[change.edits[0].annotation_id]
    assert "found by edit search at line 8" in annotation.description
    assert "len(values)" in change.edits[0].new_text
