"""What the model reads beside a function (engine/callees.py): the stubs of what it calls in its
module, the constants it reads, and for a method the class's lines that set what it uses."""

from __future__ import annotations

from selfdebug.server.engine.callees import callees_of
from selfdebug.server.engine.model_edits import chat_holes
from selfdebug.server.engine.model_edits.fim_prompt import build_prompt
from selfdebug.server.engine.model_edits.holes import holes_at
from selfdebug.server.engine.search.localize import all_lines
from selfdebug.server.engine.target import locate

MODULE = '''import math

RATE = 0.2
TABLE = {
    "a": 1,
}
UNUSED = 3


def net(price, tax=RATE):
    """The price after tax. Rounded to cents.

    Longer text the caller need not read."""
    return round(price * (1 + tax), 2)


def unused_helper():
    return 1


class Point:
    """A point on the plane."""

    def __init__(self, x, y):
        self.x = x
        self.y = y


class Cart:
    def __init__(self, items, discount=0):
        self.items = list(items)
        self.discount = discount
        self.log = []

    def subtotal(self) -> float:
        """Sum of the items' prices."""
        return sum(net(p) for p in self.items)

    def total(self, origin=None):
        origin = origin or Point(0, 0)
        if len(self.items) > TABLE["a"]:
            return self.subtotal() - self.discount
        return self.total(origin) * RATE
'''


def test_a_method_sees_what_it_calls_and_the_lines_that_set_what_it_reads():
    target = locate(MODULE, "Cart.total")
    found = callees_of(MODULE, target)
    assert [(c.kind, c.name) for c in found] == [
        ("constant", "RATE"),  # a one-line constant it reads
        ("class", "Point"),
        ("method", "__init__"),
        ("method", "subtotal"),
    ]  # TABLE spans lines, UNUSED and unused_helper are not read, `total` is itself
    stubs = {c.name: c.stub for c in found}
    assert stubs["RATE"] == "RATE = 0.2"
    assert stubs["Point"] == (
        'class Point:\n    """A point on the plane."""\n    def __init__(self, x, y):\n        ...'
    )
    # the attributes it uses, as __init__ sets them; `log` is not used by `total`
    assert stubs["__init__"] == (
        "def __init__(self, items, discount=0):\n"
        "    self.items = list(items)\n    self.discount = discount"
    )
    assert stubs["subtotal"] == (
        'def subtotal(self) -> float:\n    """Sum of the items\' prices."""\n    ...'
    )


def test_a_function_sees_a_helper_by_its_docstrings_first_sentence():
    source = MODULE + "\n\ndef checkout(prices):\n    return [net(p) for p in prices]\n"
    found = callees_of(source, locate(source, "checkout"))
    assert [c.stub for c in found] == [
        'def net(price, tax=RATE):\n    """The price after tax."""\n    ...'
    ]
    assert callees_of("def broken(:\n", locate(MODULE, "net")) == []


def test_the_fim_prompt_and_the_chat_show_the_stubs_above_the_function():
    target = locate(MODULE, "Cart.total")
    hole = holes_at(target, all_lines(target), top=1)[0]
    prompt = build_prompt(MODULE, target, hole, ["a failing test: x"])
    above = prompt.prefix.split("class Cart:")[0]
    assert "RATE = 0.2\n" in above and "class Point:" in above  # module level, column 0
    cart = prompt.prefix.split("class Cart:\n")[1]
    assert cart.startswith("    def __init__(self, items, discount=0):\n")
    assert "    def subtotal(self) -> float:\n" in cart
    assert cart.index("def subtotal") < cart.index("# a failing test: x") < cart.index("def total")
    (_, user) = chat_holes.messages(target, hole, ["a failing test: x"], MODULE)
    assert "What the function uses from its module:" in user["content"]
    assert user["content"].index("def subtotal") < user["content"].index(chat_holes.MARK)
    (_, bare) = chat_holes.messages(target, hole, ["a failing test: x"])
    assert "uses from its module" not in bare["content"]
