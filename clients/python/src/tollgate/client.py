"""The blocking client: thread-safe, over a pool of connections (TCP, TLS or a Unix socket)."""

from __future__ import annotations

import time
from typing import Callable, Iterable, Sequence, TypeVar

from . import _methods
from ._methods import MethodSpec
from ._connection import Connection
from ._pool import Pool
from ._replicas import REPEATABLE, ReplicaHealth, Rotation, Server, is_dead_connection, server_list
from .errors import TollgateError, TransportError, UnavailableError
from .framing import DEFAULT_MAX_RESPONSE_BYTES, ResponseFrame
from .models import Health, Identity, IsSubscriberResult, Purchase, Submission, SubscriptionInfo
from .security import Endpoint, TLSConfig, describe, make_endpoint

R = TypeVar("R")
A = TypeVar("A")


class Client:
    """A client of the Tollgate entitlement service.

    ``host`` and ``port`` name a TCP server; ``Client("unix:/run/tollgate.sock")`` a Unix domain
    socket (the port is then ignored). ``tls=True`` (the system's roots) or a :class:`TLSConfig`
    speaks TLS, always verified. With ``caller`` and ``key``, every new connection sends
    Authenticate before any other call; a refusal raises :class:`UnauthenticatedError` from the
    call that needed the connection. The key never shows in a repr or a message.

    Thread-safe: each call borrows one of up to ``pool_size`` connections for its duration, so
    that many threads can share one client. A connection that broke is dropped and the next call
    opens a new one; an idle connection the server closed (a restart) is replaced before use. A
    request already sent is never sent again.

    ``timeout`` (seconds; None: forever) bounds each call; for the ``*_many`` batches it bounds
    the wait for each next answer. Failures raise :class:`tollgate.TollgateError` subclasses.

    Several servers (replicas of ``tollgate serve`` on one database): ``servers=["10.0.0.1:7701",
    "10.0.0.2:7701"]`` (``"host:port"``, ``"unix:/path"`` or ``(host, port)``; ``host`` and
    ``port`` are then not used) keeps a pool of up to ``pool_size`` connections to each, and
    spreads the calls over the healthy ones in turn. A call whose connection cannot be made or
    dies is tried on another server within its timeout when that is safe: reads always, a
    submission only when it never left (one that may have reached a server raises, and is never
    sent twice). A failed server is skipped for ``replica_backoff`` seconds (doubled for each
    further failure in a row, up to ``replica_backoff_max``), then tried again.
    """

    def __init__(
        self,
        host: str = "127.0.0.1",
        port: int = 7701,
        *,
        pool_size: int = 4,
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
        self.timeout = timeout
        self._endpoints = [make_endpoint(h, p, tls, caller, key) for h, p in addresses]
        self._endpoint = self._endpoints[0]
        self._connect_timeout = connect_timeout
        self._max_response_bytes = max_response_bytes
        self._identity: Identity | None = None
        self._pools = [Pool(self._opener(endpoint), pool_size) for endpoint in self._endpoints]
        self._pool = self._pools[0]
        self._health = [ReplicaHealth() for _ in self._endpoints]
        self._rotation = Rotation(self._health)
        self._backoff = (replica_backoff, replica_backoff_max)

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def close(self) -> None:
        """Closes every connection; calls after this raise ConnectionClosedError."""
        for pool in self._pools:
            pool.close()

    @property
    def servers(self) -> list[str]:
        """The servers, as messages name them ("host:port" or "unix:/path"), in the order given."""
        return [endpoint.peer for endpoint in self._endpoints]

    def __repr__(self) -> str:
        return describe("Client", self._endpoint, self.servers)

    @property
    def identity(self) -> Identity | None:
        """The caller and scopes the server named in its latest answer to Authenticate (None
        before the first connection, or without credentials)."""
        return self._identity

    def _opener(self, endpoint: Endpoint) -> Callable[[], Connection]:
        def open_connection() -> Connection:
            connection = Connection(endpoint, self._connect_timeout, self._max_response_bytes, self.timeout)
            if connection.identity is not None:
                self._identity = connection.identity
            return connection

        return open_connection

    # ---- calls ----------------------------------------------------------------------------------

    def is_subscriber(self, user_id: str, entitlement: str, *, timeout: float | None = None) -> IsSubscriberResult:
        """Is ``user_id`` entitled to ``entitlement`` now? An unknown user is not an error."""
        return self._one(_methods.IS_SUBSCRIBER, _methods.is_subscriber_request(user_id, entitlement), timeout)

    def get_subscription(self, user_id: str, *, timeout: float | None = None) -> SubscriptionInfo:
        """Every subscription and entitlement of ``user_id``; NotFoundError for a user with nothing."""
        return self._one(_methods.GET_SUBSCRIPTION, _methods.get_subscription_request(user_id), timeout)

    def submit_purchase(self, purchase: Purchase, *, timeout: float | None = None) -> Submission:
        """Submits a purchase for verification. The timeout should exceed ``purchase.wait_ms``."""
        return self._one(_methods.SUBMIT_PURCHASE, _methods.submit_purchase_request(purchase), timeout)

    def get_submission(self, submission_id: str, *, timeout: float | None = None) -> Submission:
        """A submission's status now, by the id :meth:`submit_purchase` returned (for a caller whose
        wait ran out), with ``received_at_ms`` and ``user_id``. NotFoundError for an unknown id or
        another caller's submission."""
        return self._one(_methods.GET_SUBMISSION, _methods.get_submission_request(submission_id), timeout)

    def health(self, *, timeout: float | None = None) -> Health:
        return self._one(_methods.HEALTH, _methods.health_request(), timeout)

    def is_subscriber_many(
        self, queries: Iterable[tuple[str, str]], *, max_in_flight: int = 16, timeout: float | None = None
    ) -> list[IsSubscriberResult | TollgateError]:
        """Pipelines IsSubscriber for each ``(user_id, entitlement)`` on one connection, at most
        ``max_in_flight`` at a time. Returns, in order, each result or the error for that query
        alone (e.g. InvalidArgumentError); raises when the connection fails.

        Keep ``max_in_flight`` modest (16 already hides the round trip): this client writes a whole
        window before it reads, and the server stops reading from a peer that does not read."""
        payloads = [_methods.is_subscriber_request(user, entitlement) for user, entitlement in queries]
        return self._many(_methods.IS_SUBSCRIBER, payloads, max_in_flight, timeout)

    def submit_purchase_many(
        self, purchases: Iterable[Purchase], *, max_in_flight: int = 16, timeout: float | None = None
    ) -> list[Submission | TollgateError]:
        """Pipelines SubmitPurchase like :meth:`is_subscriber_many`. The server defers these calls
        and refuses more than its per-connection limit in flight with TooManyPendingError."""
        payloads = [_methods.submit_purchase_request(purchase) for purchase in purchases]
        return self._many(_methods.SUBMIT_PURCHASE, payloads, max_in_flight, timeout)

    # ---- plumbing -------------------------------------------------------------------------------

    def _timeout(self, timeout: float | None) -> float | None:
        return self.timeout if timeout is None else timeout

    def _one(self, method: MethodSpec[R], payload: bytes, timeout: float | None) -> R:
        return self._failover(method, (payload,), 1, timeout, lambda frames: method.decode(frames[0]))

    def _many(
        self, method: MethodSpec[R], payloads: Sequence[bytes], max_in_flight: int, timeout: float | None
    ) -> list[R | TollgateError]:
        if not payloads:
            return []
        return self._failover(
            method, payloads, max_in_flight, timeout, lambda frames: [method.outcome(frame) for frame in frames]
        )

    def _failover(
        self,
        method: MethodSpec[R],
        payloads: Sequence[bytes],
        window: int,
        timeout: float | None,
        decode: Callable[[list[ResponseFrame]], A],
    ) -> A:
        """Runs the exchange on one server after another while that is safe and the timeout
        lasts (see tollgate._replicas); a one-server client tries once, as before."""
        timeout = self._timeout(timeout)
        deadline = None if timeout is None else time.monotonic() + timeout
        repeatable = method.index in REPEATABLE
        tried: list[int] = []
        while True:
            now = time.monotonic()
            index = self._rotation.pick(tried, now)
            assert index is not None, "a call ran out of servers without an error to raise"
            tried.append(index)
            last = len(tried) == len(self._pools)
            wait = timeout if len(tried) == 1 or deadline is None else max(0.0, deadline - now)
            sent = False
            try:
                with self._pools[index].connection(wait) as connection:
                    sent = True
                    frames = connection.exchange(method.index, payloads, window, wait)
                answer = decode(frames)
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
