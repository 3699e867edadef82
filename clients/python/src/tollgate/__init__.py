"""Python client for the Tollgate entitlement service (protobuf-c-rpc over TCP).

    from tollgate import Client
    with Client("127.0.0.1", 7701) as client:
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
    TollgateError,
    TooManyPendingError,
    TransportError,
    UnauthenticatedError,
    UnavailableError,
)
from .gate import EntitlementRequired, requires_entitlement
from .models import (
    EntitlementStatus,
    Environment,
    Health,
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

__version__ = "0.1.0"

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
    "TollgateError",
    "TooManyPendingError",
    "TransportError",
    "UnauthenticatedError",
    "UnavailableError",
    "requires_entitlement",
]
