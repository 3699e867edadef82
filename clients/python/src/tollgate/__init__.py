"""Python client for the Tollgate entitlement service (protobuf-c-rpc over TCP, TLS or a Unix socket).

    from tollgate import Client, TLSConfig
    with Client("tollgate.internal", 7701, caller="web", key=key, tls=TLSConfig(ca_file="ca.pem")) as client:
        if client.is_subscriber("user-42", "premium").active:
            ...

:class:`Client` is blocking and thread-safe (a connection pool); :class:`AsyncClient` is for
asyncio and pipelines concurrent calls on one connection. Errors are :class:`TollgateError`
subclasses; see :mod:`tollgate.errors`.
"""

from .aio import AsyncClient
from .client import Client
from .errors import (
    ApplicationError,
    BadResponseError,
    CallTimeoutError,
    ConnectError,
    ConnectionClosedError,
    DeadlineExceededError,
    ErrorCode,
    FrameError,
    InternalError,
    InvalidArgumentError,
    NotFoundError,
    PermissionDeniedError,
    ResourceExhaustedError,
    ServiceFailedError,
    TLSError,
    TollgateError,
    TooManyPendingError,
    TransportError,
    UnauthenticatedError,
    UnavailableError,
)
from .gate import EntitlementRequired, requires_entitlement
from .security import TLSConfig
from .models import (
    EntitlementStatus,
    Environment,
    Health,
    Identity,
    IsSubscriberResult,
    Purchase,
    ServingStatus,
    Store,
    Submission,
    SubmissionStatus,
    Subscription,
    SubscriptionInfo,
    SubscriptionState,
)

__version__ = "0.3.0"

__all__ = [
    "ApplicationError",
    "AsyncClient",
    "BadResponseError",
    "CallTimeoutError",
    "Client",
    "ConnectError",
    "ConnectionClosedError",
    "DeadlineExceededError",
    "EntitlementRequired",
    "EntitlementStatus",
    "Environment",
    "ErrorCode",
    "FrameError",
    "Health",
    "Identity",
    "InternalError",
    "InvalidArgumentError",
    "IsSubscriberResult",
    "NotFoundError",
    "PermissionDeniedError",
    "Purchase",
    "ResourceExhaustedError",
    "ServiceFailedError",
    "ServingStatus",
    "Store",
    "Submission",
    "SubmissionStatus",
    "Subscription",
    "SubscriptionInfo",
    "SubscriptionState",
    "TLSConfig",
    "TLSError",
    "TollgateError",
    "TooManyPendingError",
    "TransportError",
    "UnauthenticatedError",
    "UnavailableError",
    "requires_entitlement",
]
