"""Launches timed by a pair of CUDA events, read back in launch order.

The recorder (a captured kernel's total event time) and the launch timer (every launch's time) both
record a start and an end event around a launch and must read the elapsed time later without stalling
the program: a finished pair is read whenever it is polled (a query, not a synchronisation), and only past
`max_pending` unread pairs does the queue wait for the GPU, until half of them are read, so that memory
stays bounded. Events can be reused once read, which saves creating two per launch in a long run.
"""
from collections import deque


class EventQueue:
    def __init__(self, make_event, max_pending, reuse=False):
        self._make_event = make_event
        self.max_pending = max_pending
        self._reuse = reuse
        self._pool = []
        self._pending = deque()

    def __len__(self):
        return len(self._pending)

    def pooled(self):
        """Read events kept for reuse."""
        return len(self._pool)

    def event(self):
        """A timing event: a read one when events are reused, else a new one."""
        return self._pool.pop() if self._pool else self._make_event()

    def push(self, sink, start, end):
        """start and end were recorded around one launch; sink(microseconds) gets its time once read."""
        self._pending.append((sink, start, end))

    def over_limit(self):
        return len(self._pending) > self.max_pending

    def drain(self, block):
        """Reads the finished pairs in launch order; with block, waits for the GPU while more than half of
        max_pending are unread (block=True after a synchronisation reads them all)."""
        while self._pending:
            sink, start, end = self._pending[0]
            if block:
                end.synchronize()
            elif not end.query():
                return
            sink(start.elapsed_time(end) * 1000.0)
            self._pending.popleft()
            if self._reuse:
                self._pool += (start, end)
            block = block and len(self._pending) > self.max_pending // 2
