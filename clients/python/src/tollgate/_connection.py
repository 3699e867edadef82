"""One blocking TCP connection: sends request frames, pipelined up to a window, and matches the
answers by request id. Not thread-safe: the pool hands a connection to one thread at a time."""

from __future__ import annotations

import socket
import time
from typing import Sequence

from .errors import CallTimeoutError, ConnectError, ConnectionClosedError
from .framing import ResponseDecoder, ResponseFrame, encode_request


def open_socket(host: str, port: int, connect_timeout: float | None) -> socket.socket:
    """A connected TCP socket with TCP_NODELAY, or ConnectError / CallTimeoutError."""
    try:
        sock = socket.create_connection((host, port), timeout=connect_timeout)
    except socket.timeout as error:
        raise CallTimeoutError(f"connect to {host}:{port}: no connection within {connect_timeout} s") from error
    except socket.gaierror as error:
        raise ConnectError(f"cannot resolve {host}: {error.strerror}") from error
    except OSError as error:
        raise ConnectError(f"connect to {host}:{port}: {error.strerror or error}") from error
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return sock


class Connection:
    __slots__ = ("host", "port", "_sock", "_decoder", "_next_id", "closed")

    def __init__(self, host: str, port: int, connect_timeout: float | None, max_response_bytes: int) -> None:
        self.host = host
        self.port = port
        self._sock = open_socket(host, port, connect_timeout)
        self._decoder = ResponseDecoder(max_response_bytes)
        self._next_id = 1
        self.closed = False

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            self._sock.close()

    def is_stale(self) -> bool:
        """True when this idle connection can no longer carry a call: the peer closed or reset it,
        or sent bytes nobody asked for. Never blocks."""
        if self.closed:
            return True
        self._sock.settimeout(0.0)  # with a timeout set, recv would first wait for data
        try:
            self._sock.recv(1, socket.MSG_PEEK)
            return True  # b"": the peer closed; bytes: an answer nobody waits for
        except BlockingIOError:
            return False
        except OSError:
            return True

    def exchange(
        self, method_index: int, payloads: Sequence[bytes], window: int, timeout: float | None
    ) -> list[ResponseFrame]:
        """Sends every payload as a request of method_index, at most `window` unanswered at a time,
        and returns the answers in request order. `timeout` bounds each wait for the next answer.

        Raises a TransportError when the connection fails; the connection is then closed (also
        after a timeout, so that a late answer is never taken for another call's)."""
        try:
            return self._exchange(method_index, payloads, max(1, window), timeout)
        except BaseException:
            self.close()
            raise

    def _exchange(
        self, method_index: int, payloads: Sequence[bytes], window: int, timeout: float | None
    ) -> list[ResponseFrame]:
        count = len(payloads)
        first_id = self._next_id
        self._next_id = (first_id + count) & 0xFFFFFFFF or 1
        answers: list[ResponseFrame | None] = [None] * count
        sent = answered = 0
        deadline = None if timeout is None else time.monotonic() + timeout
        while answered < count:
            if sent - answered < window and sent < count:
                end = min(count, answered + window)
                frames = b"".join(
                    encode_request(method_index, (first_id + i) & 0xFFFFFFFF, payloads[i]) for i in range(sent, end)
                )
                self._send(frames, deadline)
                sent = end
            for frame in self._receive(deadline):
                index = (frame.request_id - first_id) & 0xFFFFFFFF
                if index >= sent or answers[index] is not None:
                    continue  # nobody waits for it
                answers[index] = frame
                answered += 1
                if timeout is not None:
                    deadline = time.monotonic() + timeout
        return answers  # type: ignore[return-value]  # every slot is filled

    def _remaining(self, deadline: float | None) -> float | None:
        if deadline is None:
            return None
        left = deadline - time.monotonic()
        if left <= 0:
            raise CallTimeoutError(f"no answer from {self.host}:{self.port} in time")
        return left

    def _send(self, data: bytes, deadline: float | None) -> None:
        self._sock.settimeout(self._remaining(deadline))
        try:
            self._sock.sendall(data)
        except socket.timeout as error:
            raise CallTimeoutError(f"sending to {self.host}:{self.port} timed out") from error
        except OSError as error:
            raise ConnectionClosedError(f"sending to {self.host}:{self.port}: {error.strerror or error}") from error

    def _receive(self, deadline: float | None) -> list[ResponseFrame]:
        self._sock.settimeout(self._remaining(deadline))
        try:
            data = self._sock.recv(65536)
        except socket.timeout as error:
            raise CallTimeoutError(f"no answer from {self.host}:{self.port} in time") from error
        except OSError as error:
            raise ConnectionClosedError(f"receiving from {self.host}:{self.port}: {error.strerror or error}") from error
        if not data:
            raise ConnectionClosedError(f"{self.host}:{self.port} closed the connection")
        return self._decoder.feed(data)
