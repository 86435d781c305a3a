"""A tiny in-memory job queue for a build bot: highest priority first, ties in arrival order."""


class TaskQueue:
    def __init__(self):
        self._tasks = []

    def push(self, name, priority=0):
        self._tasks.append((name, priority))

    def __len__(self):
        return len(self._tasks)

    def pop_next(self):
        """Remove and return the name of the task to run next."""
        if not self._tasks:
            raise IndexError("pop from an empty queue")
        best = 0
        for i, (_, priority) in enumerate(self._tasks):
            if priority >= self._tasks[best][1]:
                best = i
        name, _ = self._tasks.pop(best)
        return name

    def drain(self):
        """Every task name in the order they would run."""
        order = []
        while self._tasks:
            order.append(self.pop_next())
        return order
