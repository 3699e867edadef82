"""What a call can fail with.

Every failure is a :class:`TollgateError` with a :class:`ErrorCode`, a human-readable ``message``
and ``retryable``. Three families, as in docs/protocol.md:

* :class:`ApplicationError` -- the server answered with the response's ``error`` field set
  (INVALID_ARGUMENT, NOT_FOUND, ...).
* :class:`FrameError` -- the server refused the frame: status 1 SERVICE_FAILED or
  status 2 TOO_MANY_PENDING.
* :class:`TransportError` -- this side: cannot connect, connection closed, timeout, bytes that
  do not follow the protocol, or a TLS handshake that failed.

Messages never contain receipts, tokens or keys.
"""

from __future__ import annotations

import enum


class ErrorCode(enum.Enum):
    # Application errors (the proto's ErrorCode).
    INVALID_ARGUMENT = "invalid_argument"
    NOT_FOUND = "not_found"
    UNAUTHENTICATED = "unauthenticated"
    PERMISSION_DENIED = "permission_denied"
    RESOURCE_EXHAUSTED = "resource_exhausted"
    UNAVAILABLE = "unavailable"
    DEADLINE_EXCEEDED = "deadline_exceeded"
    INTERNAL = "internal"
    # Frame-level refusals.
    SERVICE_FAILED = "service_failed"
    TOO_MANY_PENDING = "too_many_pending"
    # This side.
    CONNECT_FAILED = "connect_failed"
    TIMEOUT = "timeout"
    CONNECTION_CLOSED = "connection_closed"
    BAD_RESPONSE = "bad_response"
    TLS_FAILED = "tls_failed"


_RETRYABLE = frozenset(
    {
        ErrorCode.CONNECT_FAILED,
        ErrorCode.TIMEOUT,
        ErrorCode.CONNECTION_CLOSED,
        ErrorCode.TOO_MANY_PENDING,
        ErrorCode.UNAVAILABLE,
        ErrorCode.RESOURCE_EXHAUSTED,
        ErrorCode.DEADLINE_EXCEEDED,
    }
)


class TollgateError(Exception):
    """Base class of every error the client raises."""

    code: ErrorCode = ErrorCode.INTERNAL

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    @property
    def retryable(self) -> bool:
        """Whether the same call may succeed later."""
        return self.code in _RETRYABLE

    def __str__(self) -> str:
        return f"{self.code.value}: {self.message}"


# ---- application errors -------------------------------------------------------------------------


class ApplicationError(TollgateError):
    """The server answered with an application error (the response's ``error`` field)."""

    #: The proto ErrorCode number as the server sent it.
    proto_code: int = 0

    def __init__(self, message: str, proto_code: int | None = None) -> None:
        super().__init__(message)
        if proto_code is not None:
            self.proto_code = proto_code


class InvalidArgumentError(ApplicationError):
    code, proto_code = ErrorCode.INVALID_ARGUMENT, 1


class NotFoundError(ApplicationError):
    code, proto_code = ErrorCode.NOT_FOUND, 2


class UnauthenticatedError(ApplicationError):
    code, proto_code = ErrorCode.UNAUTHENTICATED, 3


class PermissionDeniedError(ApplicationError):
    code, proto_code = ErrorCode.PERMISSION_DENIED, 4


class ResourceExhaustedError(ApplicationError):
    code, proto_code = ErrorCode.RESOURCE_EXHAUSTED, 5


class UnavailableError(ApplicationError):
    code, proto_code = ErrorCode.UNAVAILABLE, 6


class DeadlineExceededError(ApplicationError):
    code, proto_code = ErrorCode.DEADLINE_EXCEEDED, 7


class InternalError(ApplicationError):
    """A server bug, or an error code this client does not know."""

    code, proto_code = ErrorCode.INTERNAL, 8


_BY_PROTO_CODE: dict[int, type[ApplicationError]] = {
    cls.proto_code: cls
    for cls in (
        InvalidArgumentError,
        NotFoundError,
        UnauthenticatedError,
        PermissionDeniedError,
        ResourceExhaustedError,
        UnavailableError,
        DeadlineExceededError,
        InternalError,
    )
}


def application_error(proto_code: int, message: str) -> ApplicationError:
    """The exception for an ``Error{code, message}`` the server sent (code != 0)."""
    return _BY_PROTO_CODE.get(proto_code, InternalError)(message, proto_code)


# ---- frame-level refusals -----------------------------------------------------------------------


class FrameError(TollgateError):
    """The server refused the request frame (response status_code 1 or 2)."""


class ServiceFailedError(FrameError):
    """Status 1: unknown method, undecodable or oversized request, or a server failure."""

    code = ErrorCode.SERVICE_FAILED


class TooManyPendingError(FrameError):
    """Status 2: too many deferred calls (SubmitPurchase) in flight on this connection."""

    code = ErrorCode.TOO_MANY_PENDING


# ---- this side ----------------------------------------------------------------------------------


class TransportError(TollgateError):
    """The call did not get an answer: connecting, the connection or the protocol failed."""


class ConnectError(TransportError):
    """Refused, unreachable, or the host name does not resolve."""

    code = ErrorCode.CONNECT_FAILED


class CallTimeoutError(TransportError):
    """No connection or no answer within the timeout."""

    code = ErrorCode.TIMEOUT


class ConnectionClosedError(TransportError):
    """The connection broke before the answer came (or the client was closed)."""

    code = ErrorCode.CONNECTION_CLOSED


class BadResponseError(TransportError):
    """The server's bytes do not follow the protocol."""

    code = ErrorCode.BAD_RESPONSE


class TLSError(TransportError):
    """The TLS handshake failed: the server's certificate did not verify for the name, or the server
    refused this client's certificate (mutual TLS). Not retryable: the configuration is wrong."""

    code = ErrorCode.TLS_FAILED
