from taskqueue import TaskQueue


def test_drain_keeps_arrival_order_within_a_priority():
    q = TaskQueue()
    for name, prio in [("a", 1), ("b", 3), ("c", 1), ("d", 3), ("e", 2)]:
        q.push(name, prio)
    assert q.drain() == ["b", "d", "e", "a", "c"]


def test_all_default_priority():
    q = TaskQueue()
    for name in "xyz":
        q.push(name)
    assert q.drain() == ["x", "y", "z"]
