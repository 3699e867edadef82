"""A thread-safe pool of connections to one server: a thread takes a connection, runs its calls,
and gives it back. Each new connection is opened (and authenticated) by the client's opener. Broken connections are dropped; idle ones the server closed are replaced
before use, so a server restart between calls costs no failed call."""

from __future__ import annotations

import threading
import time
from contextlib import contextmanager
from typing import Callable, Iterator

from ._connection import Connection
from .errors import CallTimeoutError, ConnectionClosedError


class Pool:
    def __init__(self, open_connection: Callable[[], Connection], size: int) -> None:
        if size < 1:
            raise ValueError("pool size must be at least 1")
        self._open_connection = open_connection
        self._size = size
        self._idle: list[Connection] = []
        self._open = 0  # idle + in use + being opened
        self._closed = False
        self._changed = threading.Condition(threading.Lock())

    @contextmanager
    def connection(self, wait: float | None) -> Iterator[Connection]:
        """A connection for the caller's thread alone; waits up to `wait` seconds for a free one."""
        connection = self._take(wait)
        try:
            yield connection
        finally:
            self._give_back(connection)

    def close(self) -> None:
        """Closes idle connections now and the others when they come back; later calls fail."""
        with self._changed:
            self._closed = True
            idle, self._idle = self._idle, []
            self._open -= len(idle)
            self._changed.notify_all()
        for connection in idle:
            connection.close()

    def _take(self, wait: float | None) -> Connection:
        deadline = None if wait is None else time.monotonic() + wait
        with self._changed:
            while True:
                if self._closed:
                    raise ConnectionClosedError("the client is closed")
                while self._idle:
                    connection = self._idle.pop()
                    if not connection.is_stale():
                        return connection
                    connection.close()
                    self._open -= 1
                if self._open < self._size:
                    self._open += 1  # reserve the slot; connect outside the lock
                    break
                left = None if deadline is None else deadline - time.monotonic()
                if left is not None and left <= 0:
                    raise CallTimeoutError(f"all {self._size} connections stayed busy")
                self._changed.wait(left)
        try:
            return self._open_connection()
        except BaseException:
            with self._changed:
                self._open -= 1
                self._changed.notify()
            raise

    def _give_back(self, connection: Connection) -> None:
        with self._changed:
            if connection.closed or self._closed:
                self._open -= 1
                keep = False
            else:
                self._idle.append(connection)
                keep = True
            self._changed.notify()
        if not keep:
            connection.close()
