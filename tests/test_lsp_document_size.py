"""A huge document never stalls the server (issue 51): over the `maxDocumentBytes` setting it
gets no code actions and the user is told once, while a small document keeps its actions
(through a real `selfdebug serve`); under it, its tree is parsed once per text, and a big text is
parsed in chunks to the same tree. The speed itself: `selfdebug bench lsp-latency`."""

from __future__ import annotations

from lsprotocol.types import (
    DidChangeTextDocumentParams,
    TextDocumentContentChangeWholeDocument,
    VersionedTextDocumentIdentifier,
)
from test_lsp_e2e import commands_of, start  # noqa: F401  (the fixture: a real server + client)

from selfdebug.instrument.source import READ_CHUNK, parse_tree, parser
from selfdebug.server.lsp.document_trees import DocumentTrees, over_limit

LIMIT = 5_000


def module(functions: int) -> str:
    return "".join(f"def helper_{i}(a):\n    return a + {i}\n\n\n" for i in range(functions))


async def test_a_document_over_the_limit_gets_no_actions_and_one_message(start):  # noqa: F811
    ws = await start(initialization_options={"maxDocumentBytes": LIMIT})
    client = ws.client
    big_text = module(300)
    assert len(big_text) > LIMIT
    (ws.project / "big.py").write_text(big_text, encoding="utf-8")
    (ws.project / "near.py").write_text(module(100), encoding="utf-8")  # under the limit
    big, near, small = ws.open("big.py"), ws.open("near.py"), ws.open("calc.py")

    assert await ws.actions(big, 0, 6) is None  # on helper_0's def line
    client.text_document_did_change(  # an editor sending the whole text again
        DidChangeTextDocumentParams(
            text_document=VersionedTextDocumentIdentifier(uri=big, version=2),
            content_changes=[TextDocumentContentChangeWholeDocument(text=big_text + "# x\n")],
        )
    )
    assert await ws.actions(big, 4, 6) is None  # asked again: still nothing, and no new message
    assert commands_of(await ws.actions(near, 4, 6))[0][0] == "Self-debug `helper_1`"
    assert commands_of(await ws.actions(small, 3, 6))[0][0] == "Self-debug `mean`"

    told = [m.message for m in client.messages if "big.py" in m.message]
    assert len(told) == 1, told
    assert "maxDocumentBytes" in told[0] and "no self-debug actions" in told[0]
    assert not any("near.py" in m.message or "calc.py" in m.message for m in client.messages)


def test_the_limit_counts_utf8_bytes():
    assert not over_limit("a" * LIMIT, LIMIT)
    assert over_limit("a" * (LIMIT + 1), LIMIT)
    assert over_limit("é" * (LIMIT // 2 + 1), LIMIT)  # fewer characters than the limit, more bytes
    assert not over_limit("é" * (LIMIT // 2), LIMIT)


def test_a_documents_tree_is_parsed_once_per_text():
    trees = DocumentTrees()
    text = module(3)
    tree = trees.tree("file:///p/a.py", text)
    assert trees.tree("file:///p/a.py", text) is tree
    changed = module(3) + "x = 1\n"
    assert trees.tree("file:///p/a.py", changed) is not tree
    trees.forget("file:///p/a.py")
    assert trees.tree("file:///p/a.py", changed).data == changed.encode()
    trees.close()


def test_a_big_text_read_in_chunks_gives_the_same_tree():
    source = module(2_000).encode()
    assert len(source) > 4 * READ_CHUNK
    assert str(parse_tree(source).root_node) == str(parser().parse(source).root_node)


async def test_a_big_message_is_read_exactly(start):  # noqa: F811
    """A 1 MB document (decoded in slices, read by the input thread in one buffer) with
    escapes, quotes and characters beyond the BMP on every line: the last function is where the
    editor says it is."""
    ws = await start()
    functions = 18_000
    text = "".join(
        f'def helper_{i}(a):\n    return a + "é\\t\\"😀\\\\n" + {i!r}\n\n\n'
        for i in range(functions)
    )
    assert 1_000_000 < len(text.encode("utf-8")) < 2_000_000  # over a slice, under the limit
    (ws.project / "wide.py").write_text(text, encoding="utf-8")
    wide = ws.open("wide.py")
    last = 4 * (functions - 1)
    assert (
        commands_of(await ws.actions(wide, last, 6))[0][0] == f"Self-debug `helper_{functions - 1}`"
    )
