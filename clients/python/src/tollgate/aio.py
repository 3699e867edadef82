"""The asyncio client: one connection (TCP, TLS or a Unix socket) carrying many calls at once, answers
matched by request id."""

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
from .framing import DEFAULT_MAX_RESPONSE_BYTES, ResponseDecoder, ResponseFrame, encode_request
from .models import Health, Identity, IsSubscriberResult, Purchase, Submission, SubscriptionInfo
from .security import Endpoint, TLSConfig, authentication_failed, describe, make_endpoint, tls_error

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


class AsyncClient:
    """An asyncio client of the Tollgate entitlement service.

    Addresses, ``tls`` and ``caller``/``key`` work as for :class:`tollgate.Client`: every new
    connection authenticates before its first call, and a refusal raises UnauthenticatedError.

    Calls share one connection and may run concurrently (``asyncio.gather``): every call is in
    flight at once and answers are matched by request id. When the connection breaks, the calls
    in flight fail with ConnectionClosedError and the next call connects again; a request
    already sent is never sent again. Use a client from one event loop.

    ``timeout`` (seconds; None: forever) bounds each call. A call that times out leaves the
    connection open: its late answer is recognised by its request id and dropped.
    """

    def __init__(
        self,
        host: str = "127.0.0.1",
        port: int = 7701,
        *,
        connect_timeout: float | None = 5.0,
        timeout: float | None = 5.0,
        max_response_bytes: int = DEFAULT_MAX_RESPONSE_BYTES,
        caller: str | None = None,
        key: str | None = None,
        tls: TLSConfig | bool | None = None,
    ) -> None:
        self.host = host
        self.port = port
        self.connect_timeout = connect_timeout
        self.timeout = timeout
        self._endpoint: Endpoint = make_endpoint(host, port, tls, caller, key)
        self._max_response_bytes = max_response_bytes
        self._protocol: _Protocol | None = None
        self._socket: socket.socket | None = None
        self._connecting: asyncio.Lock | None = None
        self._closed = False
        self._identity: Identity | None = None

    async def __aenter__(self) -> AsyncClient:
        await self.connect()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()

    def __repr__(self) -> str:
        return describe("AsyncClient", self._endpoint)

    @property
    def identity(self) -> Identity | None:
        """The caller and scopes the server named in its latest answer to Authenticate (None
        before the first connection, or without credentials)."""
        return self._identity

    async def connect(self) -> None:
        """Connects now (calls connect on demand anyway): fails early when the server is unreachable."""
        await self._connected()

    async def close(self) -> None:
        """Closes the connection; calls in flight fail with ConnectionClosedError, later calls too."""
        self._closed = True
        protocol, self._protocol = self._protocol, None
        if protocol is not None and protocol.transport is not None:
            protocol.transport.close()
            await asyncio.sleep(0)  # let connection_lost run

    # ---- calls ----------------------------------------------------------------------------------

    async def is_subscriber(
        self, user_id: str, entitlement: str, *, timeout: float | None = None
    ) -> IsSubscriberResult:
        """Is ``user_id`` entitled to ``entitlement`` now? An unknown user is not an error."""
        return await self._call(_methods.IS_SUBSCRIBER, _methods.is_subscriber_request(user_id, entitlement), timeout)

    async def get_subscription(self, user_id: str, *, timeout: float | None = None) -> SubscriptionInfo:
        """Every subscription and entitlement of ``user_id``; NotFoundError for a user with nothing."""
        return await self._call(_methods.GET_SUBSCRIPTION, _methods.get_subscription_request(user_id), timeout)

    async def submit_purchase(self, purchase: Purchase, *, timeout: float | None = None) -> Submission:
        """Submits a purchase for verification. More deferred submissions in flight than the
        server's per-connection limit raise TooManyPendingError."""
        return await self._call(_methods.SUBMIT_PURCHASE, _methods.submit_purchase_request(purchase), timeout)

    async def get_submission(self, submission_id: str, *, timeout: float | None = None) -> Submission:
        """A submission's status now, by the id :meth:`submit_purchase` returned, with
        ``received_at_ms`` and ``user_id``. NotFoundError for an unknown id or another caller's."""
        return await self._call(_methods.GET_SUBMISSION, _methods.get_submission_request(submission_id), timeout)

    async def health(self, *, timeout: float | None = None) -> Health:
        return await self._call(_methods.HEALTH, _methods.health_request(), timeout)

    # ---- plumbing -------------------------------------------------------------------------------

    async def _call(self, method: MethodSpec[R], payload: bytes, timeout: float | None) -> R:
        return await self._call_on(await self._connected(), method, payload, timeout)

    async def _call_on(self, protocol: _Protocol, method: MethodSpec[R], payload: bytes, timeout: float | None) -> R:
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
            future.set_exception(CallTimeoutError(f"no answer from {self._endpoint.peer} within {timeout} s"))

    async def _connected(self) -> _Protocol:
        protocol = self._protocol
        if protocol is not None and not protocol.closed and not self._peer_closed():
            return protocol
        if self._closed:
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
        credentials = self._endpoint.credentials
        if credentials is not None:
            request = _methods.authenticate_request(credentials.caller, credentials.key)
            try:
                self._identity = await self._call_on(protocol, _methods.AUTHENTICATE, request, self.timeout)
            except TollgateError as error:
                if protocol.transport is not None:
                    protocol.transport.abort()
                raise authentication_failed(error, credentials.caller) from None
        return protocol

    async def _open_transport(self) -> _Protocol:
        endpoint = self._endpoint
        peer = endpoint.peer
        loop = asyncio.get_running_loop()
        path = endpoint.unix_path
        if path is not None:
            candidates = [(socket.AF_UNIX, socket.SOCK_STREAM, 0, "", path)]
        else:
            try:
                candidates = await loop.getaddrinfo(self.host, self.port, type=socket.SOCK_STREAM)
            except socket.gaierror as error:
                raise ConnectError(f"cannot resolve {self.host}: {error.strerror}") from error
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
