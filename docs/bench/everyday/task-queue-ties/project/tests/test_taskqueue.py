import pytest

from taskqueue import TaskQueue


def test_highest_priority_first():
    q = TaskQueue()
    q.push("lint", 1)
    q.push("deploy", 5)
    assert q.pop_next() == "deploy"


def test_ties_go_in_arrival_order():
    q = TaskQueue()
    q.push("build", 2)
    q.push("test", 2)
    assert q.pop_next() == "build"


def test_empty_queue():
    with pytest.raises(IndexError):
        TaskQueue().pop_next()
