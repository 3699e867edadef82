"""The asyncio client: one connection per server (TCP, TLS or a Unix socket) carrying many calls at
once, answers matched by request id; with several servers, calls spread over them and fail over."""

from __future__ import annotations

import time
from typing import Sequence, TypeVar

from . import _methods
from ._aio_link import Link
from ._methods import MethodSpec
from ._replicas import REPEATABLE, ReplicaHealth, Rotation, Server, is_dead_connection, server_list
from .errors import TransportError, UnavailableError
from .framing import DEFAULT_MAX_RESPONSE_BYTES
from .models import Health, Identity, IsSubscriberResult, Purchase, Submission, SubscriptionInfo
from .security import TLSConfig, describe, make_endpoint

R = TypeVar("R")


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

    ``servers``, ``replica_backoff`` and ``replica_backoff_max`` work as for
    :class:`tollgate.Client`: one connection to each server, calls spread over the healthy ones,
    and a call whose connection cannot be made or dies tried on another server within its timeout
    when that is safe (reads always, a submission only when it never left).
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
        servers: Sequence[Server] | None = None,
        replica_backoff: float = 1.0,
        replica_backoff_max: float = 30.0,
    ) -> None:
        addresses = server_list(host, port, servers)
        self.host, self.port = addresses[0]
        self.connect_timeout = connect_timeout
        self.timeout = timeout
        self._links = [
            Link(make_endpoint(h, p, tls, caller, key), connect_timeout, timeout, max_response_bytes)
            for h, p in addresses
        ]
        self._health = [ReplicaHealth() for _ in self._links]
        self._rotation = Rotation(self._health)
        self._backoff = (replica_backoff, replica_backoff_max)

    async def __aenter__(self) -> AsyncClient:
        await self.connect()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()

    def __repr__(self) -> str:
        return describe("AsyncClient", self._links[0].endpoint, self.servers)

    @property
    def servers(self) -> list[str]:
        """The servers, as messages name them ("host:port" or "unix:/path"), in the order given."""
        return [link.endpoint.peer for link in self._links]

    @property
    def identity(self) -> Identity | None:
        """The caller and scopes the server named in its latest answer to Authenticate (None
        before the first connection, or without credentials)."""
        identities = [link.identity for link in self._links if link.identity is not None]
        return identities[-1] if identities else None

    async def connect(self) -> None:
        """Connects now (calls connect on demand anyway): fails early when the server is
        unreachable. With several servers, connects to the first one that can be reached."""
        for index, link in enumerate(self._links):
            try:
                await link.connected()
                return
            except TransportError as error:
                if not is_dead_connection(error) or index == len(self._links) - 1:
                    raise
                self._health[index].failed(time.monotonic(), *self._backoff)

    async def close(self) -> None:
        """Closes the connections; calls in flight fail with ConnectionClosedError, later calls too."""
        for link in self._links:
            await link.close()

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
        """Runs the call on one server after another while that is safe and the timeout lasts
        (see tollgate._replicas); a one-server client tries once, as before."""
        timeout = self.timeout if timeout is None else timeout
        deadline = None if timeout is None else time.monotonic() + timeout
        repeatable = method.index in REPEATABLE
        tried: list[int] = []
        while True:
            now = time.monotonic()
            index = self._rotation.pick(tried, now)
            assert index is not None, "a call ran out of servers without an error to raise"
            tried.append(index)
            last = len(tried) == len(self._links)
            wait = timeout if len(tried) == 1 or deadline is None else max(0.0, deadline - now)
            link = self._links[index]
            sent = False
            try:
                protocol = await link.connected()
                sent = True
                answer = await link.call_on(protocol, method, payload, wait)
            except TransportError as error:
                if not is_dead_connection(error):
                    raise
                self._health[index].failed(time.monotonic(), *self._backoff)
                if last or (sent and not repeatable) or (deadline is not None and time.monotonic() >= deadline):
                    raise
                continue
            except UnavailableError:
                if last or not repeatable or (deadline is not None and time.monotonic() >= deadline):
                    raise
                self._health[index].failed(time.monotonic(), *self._backoff)
                continue
            self._health[index].succeeded()
            return answer

