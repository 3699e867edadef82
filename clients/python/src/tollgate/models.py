"""The values calls take and return: frozen dataclasses and the proto's enums.

Times are milliseconds since the epoch, as on the wire. An enum value this client does not know
yet is kept as its plain ``int``, so a newer server never breaks an older client.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import TypeVar


class Store(enum.IntEnum):
    UNSPECIFIED = 0
    APP_STORE = 1
    GOOGLE_PLAY = 2
    AMAZON = 3
    PROMOTIONAL = 4


class Environment(enum.IntEnum):
    UNSPECIFIED = 0
    PRODUCTION = 1
    SANDBOX = 2


class SubscriptionState(enum.IntEnum):
    UNSPECIFIED = 0
    TRIAL = 1
    INTRO_OFFER = 2
    ACTIVE = 3
    GRACE_PERIOD = 4
    BILLING_RETRY = 5
    ON_HOLD = 6
    PAUSED = 7
    EXPIRED = 8
    REVOKED = 9


class SubmissionStatus(enum.IntEnum):
    UNSPECIFIED = 0
    PENDING = 1
    VERIFIED = 2
    REJECTED = 3


class ServingStatus(enum.IntEnum):
    UNSPECIFIED = 0
    SERVING = 1
    DEGRADED = 2
    NOT_SERVING = 3


E = TypeVar("E", bound=enum.IntEnum)


def enum_value(cls: type[E], value: int) -> E | int:
    """``cls(value)``, or the plain int when the value is not listed."""
    try:
        return cls(value)
    except ValueError:
        return value


@dataclass(frozen=True, slots=True)
class IsSubscriberResult:
    """IsSubscriber's answer. An unknown user or entitlement is not an error: ``active`` is
    False and ``state`` UNSPECIFIED."""

    active: bool
    expires_at_ms: int
    state: SubscriptionState | int
    will_renew: bool
    store: Store | int
    product_id: str
    environment: Environment | int
    verified_at_ms: int
    evaluated_at_ms: int
    store_subscription_id: str
    #: How much of the app ``state`` gives under the server's catalog: "full", "none", or a level
    #: the operator names ("read_only" in billing retry, say, with ``active`` False); "" for an
    #: unknown user or entitlement (read it as "none").
    access_level: str = ""

    def __bool__(self) -> bool:
        return self.active


@dataclass(frozen=True, slots=True)
class EntitlementStatus:
    """One entitlement of a user, as evaluated at the answer's ``evaluated_at_ms``."""

    entitlement: str
    active: bool
    expires_at_ms: int
    state: SubscriptionState | int
    will_renew: bool
    store: Store | int
    product_id: str
    environment: Environment | int
    verified_at_ms: int
    store_subscription_id: str
    #: As ``IsSubscriberResult.access_level``.
    access_level: str = ""


@dataclass(frozen=True, slots=True)
class Subscription:
    """One store subscription or promotional grant."""

    store: Store | int
    store_subscription_id: str
    product_id: str
    state: SubscriptionState | int
    active: bool
    expires_at_ms: int
    will_renew: bool
    environment: Environment | int
    verified_at_ms: int
    entitlements: tuple[str, ...]
    #: The lifecycle rule behind ``state`` as the worker last wrote it ("current_period",
    #: "billing_retry", "store_unreachable", ...); "" for a grant, or when the state has changed
    #: by itself since.
    reason: str = ""
    #: Google Play: the purchase tokens this purchase replaced, newest first.
    replaces: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class SubscriptionInfo:
    """GetSubscription's answer."""

    user_id: str
    subscriptions: tuple[Subscription, ...]
    entitlements: tuple[EntitlementStatus, ...]
    evaluated_at_ms: int


@dataclass(frozen=True, slots=True)
class Submission:
    """SubmitPurchase's and GetSubmission's answer. ``received_at_ms`` and ``user_id`` come with
    GetSubmission only (0 and "" from SubmitPurchase)."""

    submission_id: str
    status: SubmissionStatus | int
    entitlements: tuple[EntitlementStatus, ...]
    rejection_reason: str
    received_at_ms: int = 0
    user_id: str = ""


@dataclass(frozen=True, slots=True)
class Identity:
    """Authenticate's answer: the caller the server recognised and its scopes ("read", "submit",
    "admin")."""

    caller: str
    scopes: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Health:
    status: ServingStatus | int
    index_users: int
    index_records: int
    change_feed_applied_seq: int
    change_feed_head_seq: int
    change_feed_lag_ms: int
    version: str
    uptime_ms: int


def _redacted(value: str) -> str:
    return f"<{len(value)} chars>" if value else "''"


@dataclass(frozen=True, slots=True)
class Purchase:
    """A purchase to submit for verification. What each store needs: App Store ``receipt``
    (transaction id, signed transaction or app receipt); Google Play ``purchase_token`` and
    ``product_id``; Amazon ``receipt_id`` and ``amazon_user_id``.

    Google Play, optional: ``google_purchase_data``, the Play Billing library's
    INAPP_PURCHASE_DATA exactly as the app got it (``Purchase.getOriginalJson()``), and
    ``google_signature`` (``Purchase.getSignature()``): both or neither. With the app's licensing
    key configured on the server, they are what lets a purchase bound to another user move under
    a transfer policy.

    Its repr never shows the receipt, token, receipt id or Play Billing data, only their lengths.
    """

    user_id: str
    store: Store
    receipt: str = field(default="", repr=False)
    purchase_token: str = field(default="", repr=False)
    receipt_id: str = field(default="", repr=False)
    amazon_user_id: str = ""
    product_id: str = ""
    app_id: str = ""
    #: How long the server may wait for verification before answering PENDING.
    wait_ms: int = 0
    google_purchase_data: str = field(default="", repr=False)
    google_signature: str = field(default="", repr=False)

    def __repr__(self) -> str:
        return (
            f"Purchase(user_id={self.user_id!r}, store={self.store!r}, receipt={_redacted(self.receipt)}, "
            f"purchase_token={_redacted(self.purchase_token)}, receipt_id={_redacted(self.receipt_id)}, "
            f"product_id={self.product_id!r}, app_id={self.app_id!r}, wait_ms={self.wait_ms}, "
            f"google_purchase_data={_redacted(self.google_purchase_data)}, "
            f"google_signature={_redacted(self.google_signature)})"
        )
