"""One blocking connection (TCP, TLS or a Unix socket): sends request frames, pipelined up to a
window, and matches the answers by request id; authenticates right after connecting when the
client has credentials. Not thread-safe: the pool hands a connection to one thread at a time."""

from __future__ import annotations

import socket
import ssl
import time
from typing import Sequence

from . import _methods
from .errors import CallTimeoutError, ConnectError, ConnectionClosedError, TLSError, TollgateError
from .framing import ResponseDecoder, ResponseFrame, encode_request
from .models import Identity
from .security import Endpoint, authentication_failed, tls_error


def _connect_plain(endpoint: Endpoint, connect_timeout: float | None) -> socket.socket:
    path = endpoint.unix_path
    if path is not None:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.settimeout(connect_timeout)
        try:
            sock.connect(path)
        except socket.timeout as error:
            sock.close()
            raise CallTimeoutError(f"connect to {endpoint.peer}: no connection within {connect_timeout} s") from error
        except OSError as error:
            sock.close()
            raise ConnectError(f"connect to {endpoint.peer}: {error.strerror or error}") from error
        return sock
    host, port = endpoint.host, endpoint.port
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


def open_socket(endpoint: Endpoint, connect_timeout: float | None) -> socket.socket:
    """A connected socket (TCP with TCP_NODELAY, or Unix), with the TLS handshake done when the
    endpoint has TLS; or ConnectError / CallTimeoutError / TLSError."""
    sock = _connect_plain(endpoint, connect_timeout)
    if endpoint.tls is None:
        return sock
    try:
        return endpoint.tls.wrap_socket(sock, server_hostname=endpoint.server_name)
    except socket.timeout as error:
        sock.close()
        raise CallTimeoutError(f"TLS handshake with {endpoint.peer}: no answer within {connect_timeout} s") from error
    except ssl.SSLError as error:
        sock.close()
        if isinstance(error, (ssl.SSLEOFError, ssl.SSLZeroReturnError)):
            raise TLSError(f"TLS handshake with {endpoint.peer}: the connection closed during the handshake") from error
        raise tls_error(error, endpoint.peer, handshake=True) from error
    except OSError as error:
        sock.close()
        raise TLSError(f"TLS handshake with {endpoint.peer}: {error.strerror or error}") from error


class Connection:
    __slots__ = ("peer", "_sock", "_decoder", "_next_id", "closed", "identity")

    def __init__(
        self, endpoint: Endpoint, connect_timeout: float | None, max_response_bytes: int, timeout: float | None
    ) -> None:
        self.peer = endpoint.peer
        self._sock = open_socket(endpoint, connect_timeout)
        self._decoder = ResponseDecoder(max_response_bytes)
        self._next_id = 1
        self.closed = False
        #: What the server answered to Authenticate on this connection (None without credentials).
        self.identity: Identity | None = None
        if endpoint.credentials is not None:
            self._authenticate(endpoint.credentials.caller, endpoint.credentials.key, timeout)

    def _authenticate(self, caller: str, key: str, timeout: float | None) -> None:
        request = _methods.authenticate_request(caller, key)
        try:
            (frame,) = self.exchange(_methods.AUTHENTICATE.index, (request,), 1, timeout)
            self.identity = _methods.AUTHENTICATE.decode(frame)
        except TollgateError as error:
            self.close()
            raise authentication_failed(error, caller) from None

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            self._sock.close()

    def is_stale(self) -> bool:
        """True when this idle connection can no longer carry a call: the peer closed or reset it,
        or sent bytes nobody asked for (records TLS handles itself, such as TLS 1.3 session
        tickets, do not count). Never blocks."""
        if self.closed:
            return True
        sock = self._sock
        sock.settimeout(0.0)  # with a timeout set, recv would first wait for data
        if isinstance(sock, ssl.SSLSocket):
            if sock.pending():
                return True  # an answer nobody waits for
            try:
                sock.recv(1)  # TLS reads what waits: handshake records leave nothing to return
                return True  # b"": the peer closed; bytes: an answer nobody waits for
            except ssl.SSLWantReadError:
                return False  # nothing waited, or only handshake records (session tickets)
            except OSError:
                return True
        try:
            sock.recv(1, socket.MSG_PEEK)
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
            raise CallTimeoutError(f"no answer from {self.peer} in time")
        return left

    def _send(self, data: bytes, deadline: float | None) -> None:
        self._sock.settimeout(self._remaining(deadline))
        try:
            self._sock.sendall(data)
        except socket.timeout as error:
            raise CallTimeoutError(f"sending to {self.peer} timed out") from error
        except ssl.SSLError as error:
            raise self._tls_failure(error) from error
        except OSError as error:
            raise ConnectionClosedError(f"sending to {self.peer}: {error.strerror or error}") from error

    def _receive(self, deadline: float | None) -> list[ResponseFrame]:
        self._sock.settimeout(self._remaining(deadline))
        try:
            data = self._sock.recv(65536)
        except socket.timeout as error:
            raise CallTimeoutError(f"no answer from {self.peer} in time") from error
        except ssl.SSLError as error:
            raise self._tls_failure(error) from error
        except OSError as error:
            raise ConnectionClosedError(f"receiving from {self.peer}: {error.strerror or error}") from error
        if not data:
            raise ConnectionClosedError(f"{self.peer} closed the connection")
        return self._decoder.feed(data)

    def _tls_failure(self, error: ssl.SSLError) -> TollgateError:
        """An alert from the server (it refused our certificate) is a TLSError; an unexpected end
        of the stream is a closed connection."""
        if isinstance(error, (ssl.SSLEOFError, ssl.SSLZeroReturnError)):
            return ConnectionClosedError(f"{self.peer} closed the connection")
        return tls_error(error, self.peer, handshake=False)
