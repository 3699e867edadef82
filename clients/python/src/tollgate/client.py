"""The blocking client: thread-safe, over a pool of connections (TCP, TLS or a Unix socket)."""

from __future__ import annotations

from typing import Iterable, Sequence, TypeVar

from . import _methods
from ._methods import MethodSpec
from ._connection import Connection
from ._pool import Pool
from .errors import TollgateError
from .framing import DEFAULT_MAX_RESPONSE_BYTES
from .models import Health, Identity, IsSubscriberResult, Purchase, Submission, SubscriptionInfo
from .security import TLSConfig, describe, make_endpoint

R = TypeVar("R")


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
    ) -> None:
        self.host = host
        self.port = port
        self.timeout = timeout
        self._endpoint = make_endpoint(host, port, tls, caller, key)
        self._connect_timeout = connect_timeout
        self._max_response_bytes = max_response_bytes
        self._identity: Identity | None = None
        self._pool = Pool(self._open_connection, pool_size)

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def close(self) -> None:
        """Closes every connection; calls after this raise ConnectionClosedError."""
        self._pool.close()

    def __repr__(self) -> str:
        return describe("Client", self._endpoint)

    @property
    def identity(self) -> Identity | None:
        """The caller and scopes the server named in its latest answer to Authenticate (None
        before the first connection, or without credentials)."""
        return self._identity

    def _open_connection(self) -> Connection:
        connection = Connection(self._endpoint, self._connect_timeout, self._max_response_bytes, self.timeout)
        if connection.identity is not None:
            self._identity = connection.identity
        return connection

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
        timeout = self._timeout(timeout)
        with self._pool.connection(timeout) as connection:
            (frame,) = connection.exchange(method.index, (payload,), 1, timeout)
        return method.decode(frame)

    def _many(
        self, method: MethodSpec[R], payloads: Sequence[bytes], max_in_flight: int, timeout: float | None
    ) -> list[R | TollgateError]:
        if not payloads:
            return []
        timeout = self._timeout(timeout)
        with self._pool.connection(timeout) as connection:
            frames = connection.exchange(method.index, payloads, max_in_flight, timeout)
        return [method.outcome(frame) for frame in frames]
