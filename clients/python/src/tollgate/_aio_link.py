"""One asyncio connection of an AsyncClient to one server (TCP, TLS or a Unix socket): many calls
in flight at once, answers matched by request id; made on demand and again after it broke."""

from __future__ import annotations

import asyncio
import socket
import ssl
from typing import TypeVar

from . import _methods
from ._methods import MethodSpec
from .errors import (
    BadResponseError,
    CallTimeoutError,
    ConnectError,
    ConnectionClosedError,
    TLSError,
    TollgateError,
)
from .framing import ResponseDecoder, ResponseFrame, encode_request
from .models import Identity
from .security import Endpoint, authentication_failed, tls_error

R = TypeVar("R")


class _Protocol(asyncio.Protocol):
    """Decodes answers and completes the waiting futures; fails them all when the connection ends."""

    def __init__(self, max_response_bytes: int, peer: str) -> None:
        self.decoder = ResponseDecoder(max_response_bytes)
        self.pending: dict[int, asyncio.Future[ResponseFrame]] = {}
        self.transport: asyncio.Transport | None = None
        self.closed = False
        self.next_id = 1
        self.peer = peer

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]

    def data_received(self, data: bytes) -> None:
        try:
            frames = self.decoder.feed(data)
        except BadResponseError as error:
            self._fail_all(error)
            if self.transport is not None:
                self.transport.abort()
            return
        pending = self.pending
        for frame in frames:
            future = pending.pop(frame.request_id, None)
            if future is not None and not future.done():
                future.set_result(frame)

    def connection_lost(self, exc: Exception | None) -> None:
        if isinstance(exc, ssl.SSLError) and not isinstance(exc, (ssl.SSLEOFError, ssl.SSLZeroReturnError)):
            self._fail_all(tls_error(exc, self.peer, handshake=False))  # e.g. our certificate refused
            return
        reason = f": {exc}" if exc else ""
        self._fail_all(ConnectionClosedError(f"{self.peer} closed the connection{reason}"))

    def _fail_all(self, error: TollgateError) -> None:
        self.closed = True
        pending, self.pending = self.pending, {}
        for future in pending.values():
            if not future.done():
                future.set_exception(error)


class Link:
    """The connection to one server. ``timeout`` is the default call timeout (Authenticate's too)."""

    def __init__(
        self, endpoint: Endpoint, connect_timeout: float | None, timeout: float | None, max_response_bytes: int
    ) -> None:
        self.endpoint = endpoint
        self.connect_timeout = connect_timeout
        self.timeout = timeout
        self._max_response_bytes = max_response_bytes
        self._protocol: _Protocol | None = None
        self._socket: socket.socket | None = None
        self._connecting: asyncio.Lock | None = None
        self.closed = False
        #: What the server answered to the latest Authenticate (None without credentials).
        self.identity: Identity | None = None

    async def close(self) -> None:
        """Closes the connection; calls in flight fail with ConnectionClosedError, later calls too."""
        self.closed = True
        protocol, self._protocol = self._protocol, None
        if protocol is not None and protocol.transport is not None:
            protocol.transport.close()
            await asyncio.sleep(0)  # let connection_lost run

    async def call_on(self, protocol: _Protocol, method: MethodSpec[R], payload: bytes, timeout: float | None) -> R:
        loop = asyncio.get_running_loop()
        request_id = protocol.next_id
        protocol.next_id = (request_id + 1) & 0xFFFFFFFF or 1
        future: asyncio.Future[ResponseFrame] = loop.create_future()
        protocol.pending[request_id] = future
        protocol.transport.write(encode_request(method.index, request_id, payload))  # type: ignore[union-attr]
        timeout = self.timeout if timeout is None else timeout
        timer = None if timeout is None else loop.call_later(timeout, self._expire, protocol, request_id, timeout)
        try:
            frame = await future
        finally:
            if timer is not None:
                timer.cancel()
            protocol.pending.pop(request_id, None)
        return method.decode(frame)

    def _expire(self, protocol: _Protocol, request_id: int, timeout: float) -> None:
        future = protocol.pending.pop(request_id, None)
        if future is not None and not future.done():
            future.set_exception(CallTimeoutError(f"no answer from {self.endpoint.peer} within {timeout} s"))

    async def connected(self) -> _Protocol:
        """The open connection, made (and authenticated) when there is none or it broke."""
        protocol = self._protocol
        if protocol is not None and not protocol.closed and not self._peer_closed():
            return protocol
        if self.closed:
            raise ConnectionClosedError("the client is closed")
        if self._connecting is None:
            self._connecting = asyncio.Lock()
        async with self._connecting:
            protocol = self._protocol
            if protocol is not None and not protocol.closed and not self._peer_closed():
                return protocol
            if protocol is not None and protocol.transport is not None:
                protocol.transport.abort()
            self._protocol = await self._open()
            return self._protocol

    def _peer_closed(self) -> bool:
        """True when the server closed the connection and the event loop has not noticed yet (a
        restart while this loop was busy). Never blocks; unread answers do not count."""
        try:
            return self._socket is not None and self._socket.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT) == b""
        except BlockingIOError:
            return False
        except OSError:
            return True

    async def _open(self) -> _Protocol:
        protocol = await self._open_transport()
        credentials = self.endpoint.credentials
        if credentials is not None:
            request = _methods.authenticate_request(credentials.caller, credentials.key)
            try:
                self.identity = await self.call_on(protocol, _methods.AUTHENTICATE, request, self.timeout)
            except TollgateError as error:
                if protocol.transport is not None:
                    protocol.transport.abort()
                raise authentication_failed(error, credentials.caller) from None
        return protocol

    async def _open_transport(self) -> _Protocol:
        endpoint = self.endpoint
        peer = endpoint.peer
        loop = asyncio.get_running_loop()
        path = endpoint.unix_path
        if path is not None:
            candidates = [(socket.AF_UNIX, socket.SOCK_STREAM, 0, "", path)]
        else:
            try:
                candidates = await loop.getaddrinfo(endpoint.host, endpoint.port, type=socket.SOCK_STREAM)
            except socket.gaierror as error:
                raise ConnectError(f"cannot resolve {endpoint.host}: {error.strerror}") from error
        failure: OSError | None = None
        for family, kind, proto, _, address in candidates:
            sock = socket.socket(family, kind, proto)
            sock.setblocking(False)
            try:
                await asyncio.wait_for(loop.sock_connect(sock, address), self.connect_timeout)
            except asyncio.TimeoutError as error:
                sock.close()
                raise CallTimeoutError(f"connect to {peer}: no connection within {self.connect_timeout} s") from error
            except OSError as error:
                sock.close()
                failure = error
                continue
            if family != socket.AF_UNIX:
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            try:
                _, protocol = await loop.create_connection(
                    lambda: _Protocol(self._max_response_bytes, peer),
                    sock=sock,
                    ssl=endpoint.tls,
                    server_hostname=endpoint.server_name,
                    ssl_handshake_timeout=self.connect_timeout if endpoint.tls is not None else None,
                )
            except (asyncio.TimeoutError, TimeoutError) as error:
                sock.close()
                raise CallTimeoutError(f"TLS handshake with {peer}: no answer within {self.connect_timeout} s") from error
            except ssl.SSLError as error:
                sock.close()
                if isinstance(error, (ssl.SSLEOFError, ssl.SSLZeroReturnError)):
                    raise TLSError(f"TLS handshake with {peer}: the connection closed during the handshake") from error
                raise tls_error(error, peer, handshake=True) from error
            except OSError as error:
                sock.close()
                raise TLSError(f"TLS handshake with {peer}: {error.strerror or error}") from error
            self._socket = sock
            return protocol
        reason = failure.strerror if failure is not None and failure.strerror else str(failure)
        raise ConnectError(f"connect to {peer}: {reason}")
