"""Several servers (replicas of `tollgate serve` on one database), shared by Client and AsyncClient:
the list of servers, which one the next call goes to, and whether a failed call may be tried on
another.

A call goes to the next server in turn that is not backed off. When its connection cannot be
made, or dies before the answer (refused, reset, closed, timed out), the server is backed off
(``replica_backoff`` seconds, doubled for each further failure in a row up to
``replica_backoff_max``) and, while the call's timeout lasts, the call is tried on another server,
but only when that is safe: always when the request never left (the connection could not be
made); for reads (IsSubscriber, GetSubscription, GetSubmission, Health) also when it did; a
SubmitPurchase that may have reached a server never. A read refused with UNAVAILABLE (a replica
that has not loaded its index) is tried on another server too. When every server is backed off,
the one whose back-off ends first is tried."""

from __future__ import annotations

import itertools
from typing import Sequence, Union

from . import _methods
from .errors import BadResponseError, CallTimeoutError, ConnectError, ConnectionClosedError, TollgateError

Server = Union[str, "tuple[str, int]"]

#: Methods a server may have received and that may still be sent to another: the reads.
REPEATABLE = frozenset(
    m.index for m in (_methods.IS_SUBSCRIBER, _methods.GET_SUBSCRIPTION, _methods.GET_SUBMISSION, _methods.HEALTH)
)


def parse_server(server: Server) -> tuple[str, int]:
    """``"host:port"``, ``"[v6]:port"``, ``"unix:/path"`` or ``(host, port)`` as (host, port)."""
    if isinstance(server, tuple):
        host, port = server
        return str(host), int(port)
    if server.startswith("unix:"):
        return server, 0
    host, separator, port = server.rpartition(":")
    if not separator or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise ValueError(f"a server is HOST:PORT or unix:/path, not {server!r}")
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    return host, int(port)


def server_list(host: str, port: int, servers: Sequence[Server] | None) -> list[tuple[str, int]]:
    """The servers a client was given: ``servers`` when given, else ``host`` and ``port``."""
    if servers is None:
        return [(host, port)]
    if isinstance(servers, (str, bytes)):
        raise TypeError("servers is a list of servers, not one string")
    parsed = [parse_server(server) for server in servers]
    if not parsed:
        raise ValueError("servers must name at least one server")
    return parsed


def is_dead_connection(error: TollgateError) -> bool:
    """The connection could not be made or died (as opposed to an answer, or a refusal every
    server would give, such as a TLS or authentication failure)."""
    return isinstance(error, (ConnectError, CallTimeoutError, ConnectionClosedError, BadResponseError))


class ReplicaHealth:
    """Whether a server is backed off after a failure. Races between threads only ever move a
    back-off a little: no lock needed."""

    __slots__ = ("failures", "skip_until")

    def __init__(self) -> None:
        self.failures = 0
        self.skip_until = 0.0

    def backed_off_until(self, now: float) -> float | None:
        return self.skip_until if self.skip_until > now else None

    def failed(self, now: float, backoff: float, maximum: float) -> None:
        self.failures += 1
        self.skip_until = now + min(backoff * 2 ** min(self.failures - 1, 20), maximum)

    def succeeded(self) -> None:
        if self.failures:
            self.failures = 0
            self.skip_until = 0.0


class Rotation:
    """Picks the server for each attempt of a call: the next in turn that is not backed off and
    not tried yet; else the untried one whose back-off ends first; None when all were tried."""

    def __init__(self, health: Sequence[ReplicaHealth]) -> None:
        self._health = health
        self._next = itertools.count()  # next() is atomic under the GIL

    def pick(self, tried: Sequence[int], now: float) -> int | None:
        count = len(self._health)
        if count == 1:
            return None if tried else 0
        start = next(self._next)
        soonest: tuple[float, int] | None = None
        for offset in range(count):
            index = (start + offset) % count
            if index in tried:
                continue
            until = self._health[index].backed_off_until(now)
            if until is None:
                return index
            if soonest is None or until < soonest[0]:
                soonest = (until, index)
        return None if soonest is None else soonest[1]
