from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Iterable as _Iterable, Mapping as _Mapping, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor
ENVIRONMENT_PRODUCTION: Environment
ENVIRONMENT_SANDBOX: Environment
ENVIRONMENT_UNSPECIFIED: Environment
ERROR_CODE_DEADLINE_EXCEEDED: ErrorCode
ERROR_CODE_INTERNAL: ErrorCode
ERROR_CODE_INVALID_ARGUMENT: ErrorCode
ERROR_CODE_NOT_FOUND: ErrorCode
ERROR_CODE_PERMISSION_DENIED: ErrorCode
ERROR_CODE_RESOURCE_EXHAUSTED: ErrorCode
ERROR_CODE_UNAUTHENTICATED: ErrorCode
ERROR_CODE_UNAVAILABLE: ErrorCode
ERROR_CODE_UNSPECIFIED: ErrorCode
IDENTIFIER_KIND_AMAZON_RECEIPT_ID: IdentifierKind
IDENTIFIER_KIND_AMAZON_USER_ID: IdentifierKind
IDENTIFIER_KIND_APP_STORE_ORDER_ID: IdentifierKind
IDENTIFIER_KIND_APP_STORE_ORIGINAL_TRANSACTION_ID: IdentifierKind
IDENTIFIER_KIND_APP_STORE_TRANSACTION_ID: IdentifierKind
IDENTIFIER_KIND_GOOGLE_PLAY_ORDER_ID: IdentifierKind
IDENTIFIER_KIND_GOOGLE_PLAY_PURCHASE_TOKEN: IdentifierKind
IDENTIFIER_KIND_UNSPECIFIED: IdentifierKind
SERVING_STATUS_DEGRADED: ServingStatus
SERVING_STATUS_NOT_SERVING: ServingStatus
SERVING_STATUS_SERVING: ServingStatus
SERVING_STATUS_UNSPECIFIED: ServingStatus
STORE_AMAZON: Store
STORE_APP_STORE: Store
STORE_GOOGLE_PLAY: Store
STORE_PROMOTIONAL: Store
STORE_UNSPECIFIED: Store
SUBMISSION_STATUS_PENDING: SubmissionStatus
SUBMISSION_STATUS_REJECTED: SubmissionStatus
SUBMISSION_STATUS_UNSPECIFIED: SubmissionStatus
SUBMISSION_STATUS_VERIFIED: SubmissionStatus
SUBSCRIPTION_STATE_ACTIVE: SubscriptionState
SUBSCRIPTION_STATE_BILLING_RETRY: SubscriptionState
SUBSCRIPTION_STATE_EXPIRED: SubscriptionState
SUBSCRIPTION_STATE_GRACE_PERIOD: SubscriptionState
SUBSCRIPTION_STATE_INTRO_OFFER: SubscriptionState
SUBSCRIPTION_STATE_ON_HOLD: SubscriptionState
SUBSCRIPTION_STATE_PAUSED: SubscriptionState
SUBSCRIPTION_STATE_REVOKED: SubscriptionState
SUBSCRIPTION_STATE_TRIAL: SubscriptionState
SUBSCRIPTION_STATE_UNSPECIFIED: SubscriptionState

class AuthenticateRequest(_message.Message):
    __slots__ = ["caller", "key"]
    CALLER_FIELD_NUMBER: _ClassVar[int]
    KEY_FIELD_NUMBER: _ClassVar[int]
    caller: str
    key: str
    def __init__(self, caller: _Optional[str] = ..., key: _Optional[str] = ...) -> None: ...

class AuthenticateResponse(_message.Message):
    __slots__ = ["caller", "error", "scopes"]
    CALLER_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    SCOPES_FIELD_NUMBER: _ClassVar[int]
    caller: str
    error: Error
    scopes: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, error: _Optional[_Union[Error, _Mapping]] = ..., caller: _Optional[str] = ..., scopes: _Optional[_Iterable[str]] = ...) -> None: ...

class EntitlementStatus(_message.Message):
    __slots__ = ["access_level", "active", "entitlement", "environment", "expires_at_ms", "product_id", "state", "store", "store_subscription_id", "verified_at_ms", "will_renew"]
    ACCESS_LEVEL_FIELD_NUMBER: _ClassVar[int]
    ACTIVE_FIELD_NUMBER: _ClassVar[int]
    ENTITLEMENT_FIELD_NUMBER: _ClassVar[int]
    ENVIRONMENT_FIELD_NUMBER: _ClassVar[int]
    EXPIRES_AT_MS_FIELD_NUMBER: _ClassVar[int]
    PRODUCT_ID_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    STORE_FIELD_NUMBER: _ClassVar[int]
    STORE_SUBSCRIPTION_ID_FIELD_NUMBER: _ClassVar[int]
    VERIFIED_AT_MS_FIELD_NUMBER: _ClassVar[int]
    WILL_RENEW_FIELD_NUMBER: _ClassVar[int]
    access_level: str
    active: bool
    entitlement: str
    environment: Environment
    expires_at_ms: int
    product_id: str
    state: SubscriptionState
    store: Store
    store_subscription_id: str
    verified_at_ms: int
    will_renew: bool
    def __init__(self, entitlement: _Optional[str] = ..., active: bool = ..., expires_at_ms: _Optional[int] = ..., state: _Optional[_Union[SubscriptionState, str]] = ..., will_renew: bool = ..., store: _Optional[_Union[Store, str]] = ..., product_id: _Optional[str] = ..., environment: _Optional[_Union[Environment, str]] = ..., verified_at_ms: _Optional[int] = ..., store_subscription_id: _Optional[str] = ..., access_level: _Optional[str] = ...) -> None: ...

class EraseUserRequest(_message.Message):
    __slots__ = ["dry_run", "requested_by", "user_id"]
    DRY_RUN_FIELD_NUMBER: _ClassVar[int]
    REQUESTED_BY_FIELD_NUMBER: _ClassVar[int]
    USER_ID_FIELD_NUMBER: _ClassVar[int]
    dry_run: bool
    requested_by: str
    user_id: str
    def __init__(self, user_id: _Optional[str] = ..., dry_run: bool = ..., requested_by: _Optional[str] = ...) -> None: ...

class EraseUserResponse(_message.Message):
    __slots__ = ["dry_run", "entitlement_records", "error", "events", "events_scrubbed", "grants", "submissions", "subscriptions_unbound"]
    DRY_RUN_FIELD_NUMBER: _ClassVar[int]
    ENTITLEMENT_RECORDS_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    EVENTS_SCRUBBED_FIELD_NUMBER: _ClassVar[int]
    GRANTS_FIELD_NUMBER: _ClassVar[int]
    SUBMISSIONS_FIELD_NUMBER: _ClassVar[int]
    SUBSCRIPTIONS_UNBOUND_FIELD_NUMBER: _ClassVar[int]
    dry_run: bool
    entitlement_records: int
    error: Error
    events: int
    events_scrubbed: int
    grants: int
    submissions: int
    subscriptions_unbound: int
    def __init__(self, error: _Optional[_Union[Error, _Mapping]] = ..., dry_run: bool = ..., subscriptions_unbound: _Optional[int] = ..., grants: _Optional[int] = ..., events: _Optional[int] = ..., events_scrubbed: _Optional[int] = ..., submissions: _Optional[int] = ..., entitlement_records: _Optional[int] = ...) -> None: ...

class Error(_message.Message):
    __slots__ = ["code", "message"]
    CODE_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    code: ErrorCode
    message: str
    def __init__(self, code: _Optional[_Union[ErrorCode, str]] = ..., message: _Optional[str] = ...) -> None: ...

class ExplainEvent(_message.Message):
    __slots__ = ["at", "detail", "kind", "state", "store_subscription_id"]
    AT_FIELD_NUMBER: _ClassVar[int]
    DETAIL_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    STORE_SUBSCRIPTION_ID_FIELD_NUMBER: _ClassVar[int]
    at: str
    detail: str
    kind: str
    state: SubscriptionState
    store_subscription_id: str
    def __init__(self, at: _Optional[str] = ..., kind: _Optional[str] = ..., store_subscription_id: _Optional[str] = ..., state: _Optional[_Union[SubscriptionState, str]] = ..., detail: _Optional[str] = ...) -> None: ...

class ExplainPayload(_message.Message):
    __slots__ = ["id", "kind", "sha256", "signed_at"]
    ID_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    SHA256_FIELD_NUMBER: _ClassVar[int]
    SIGNED_AT_FIELD_NUMBER: _ClassVar[int]
    id: str
    kind: str
    sha256: str
    signed_at: str
    def __init__(self, kind: _Optional[str] = ..., id: _Optional[str] = ..., sha256: _Optional[str] = ..., signed_at: _Optional[str] = ...) -> None: ...

class ExplainRequest(_message.Message):
    __slots__ = ["entitlement", "user_id"]
    ENTITLEMENT_FIELD_NUMBER: _ClassVar[int]
    USER_ID_FIELD_NUMBER: _ClassVar[int]
    entitlement: str
    user_id: str
    def __init__(self, user_id: _Optional[str] = ..., entitlement: _Optional[str] = ...) -> None: ...

class ExplainResponse(_message.Message):
    __slots__ = ["active", "entitlement", "error", "evaluated_at", "recent_events", "rejected_submissions", "sources", "state", "transferred_away", "user_id"]
    ACTIVE_FIELD_NUMBER: _ClassVar[int]
    ENTITLEMENT_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    EVALUATED_AT_FIELD_NUMBER: _ClassVar[int]
    RECENT_EVENTS_FIELD_NUMBER: _ClassVar[int]
    REJECTED_SUBMISSIONS_FIELD_NUMBER: _ClassVar[int]
    SOURCES_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    TRANSFERRED_AWAY_FIELD_NUMBER: _ClassVar[int]
    USER_ID_FIELD_NUMBER: _ClassVar[int]
    active: bool
    entitlement: str
    error: Error
    evaluated_at: str
    recent_events: _containers.RepeatedCompositeFieldContainer[ExplainEvent]
    rejected_submissions: _containers.RepeatedCompositeFieldContainer[RejectedSubmission]
    sources: _containers.RepeatedCompositeFieldContainer[ExplainSource]
    state: SubscriptionState
    transferred_away: _containers.RepeatedCompositeFieldContainer[TransferredAway]
    user_id: str
    def __init__(self, error: _Optional[_Union[Error, _Mapping]] = ..., user_id: _Optional[str] = ..., entitlement: _Optional[str] = ..., evaluated_at: _Optional[str] = ..., active: bool = ..., state: _Optional[_Union[SubscriptionState, str]] = ..., sources: _Optional[_Iterable[_Union[ExplainSource, _Mapping]]] = ..., recent_events: _Optional[_Iterable[_Union[ExplainEvent, _Mapping]]] = ..., transferred_away: _Optional[_Iterable[_Union[TransferredAway, _Mapping]]] = ..., rejected_submissions: _Optional[_Iterable[_Union[RejectedSubmission, _Mapping]]] = ...) -> None: ...

class ExplainSource(_message.Message):
    __slots__ = ["access_ends_at", "active", "checks_stopped_at", "checks_stopped_reason", "decides", "environment", "evidence_source", "expires_at", "grant_note", "payloads", "product_id", "replaces", "rule", "source", "state", "store", "verified_at", "will_renew"]
    ACCESS_ENDS_AT_FIELD_NUMBER: _ClassVar[int]
    ACTIVE_FIELD_NUMBER: _ClassVar[int]
    CHECKS_STOPPED_AT_FIELD_NUMBER: _ClassVar[int]
    CHECKS_STOPPED_REASON_FIELD_NUMBER: _ClassVar[int]
    DECIDES_FIELD_NUMBER: _ClassVar[int]
    ENVIRONMENT_FIELD_NUMBER: _ClassVar[int]
    EVIDENCE_SOURCE_FIELD_NUMBER: _ClassVar[int]
    EXPIRES_AT_FIELD_NUMBER: _ClassVar[int]
    GRANT_NOTE_FIELD_NUMBER: _ClassVar[int]
    PAYLOADS_FIELD_NUMBER: _ClassVar[int]
    PRODUCT_ID_FIELD_NUMBER: _ClassVar[int]
    REPLACES_FIELD_NUMBER: _ClassVar[int]
    RULE_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    STORE_FIELD_NUMBER: _ClassVar[int]
    VERIFIED_AT_FIELD_NUMBER: _ClassVar[int]
    WILL_RENEW_FIELD_NUMBER: _ClassVar[int]
    access_ends_at: str
    active: bool
    checks_stopped_at: str
    checks_stopped_reason: str
    decides: bool
    environment: Environment
    evidence_source: str
    expires_at: str
    grant_note: str
    payloads: _containers.RepeatedCompositeFieldContainer[ExplainPayload]
    product_id: str
    replaces: _containers.RepeatedScalarFieldContainer[str]
    rule: str
    source: str
    state: SubscriptionState
    store: Store
    verified_at: str
    will_renew: bool
    def __init__(self, source: _Optional[str] = ..., store: _Optional[_Union[Store, str]] = ..., product_id: _Optional[str] = ..., active: bool = ..., state: _Optional[_Union[SubscriptionState, str]] = ..., access_ends_at: _Optional[str] = ..., expires_at: _Optional[str] = ..., will_renew: bool = ..., environment: _Optional[_Union[Environment, str]] = ..., verified_at: _Optional[str] = ..., rule: _Optional[str] = ..., evidence_source: _Optional[str] = ..., payloads: _Optional[_Iterable[_Union[ExplainPayload, _Mapping]]] = ..., grant_note: _Optional[str] = ..., replaces: _Optional[_Iterable[str]] = ..., decides: bool = ..., checks_stopped_reason: _Optional[str] = ..., checks_stopped_at: _Optional[str] = ...) -> None: ...

class GetSubmissionRequest(_message.Message):
    __slots__ = ["submission_id"]
    SUBMISSION_ID_FIELD_NUMBER: _ClassVar[int]
    submission_id: str
    def __init__(self, submission_id: _Optional[str] = ...) -> None: ...

class GetSubmissionResponse(_message.Message):
    __slots__ = ["entitlements", "error", "received_at_ms", "rejection_reason", "status", "submission_id", "user_id"]
    ENTITLEMENTS_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    RECEIVED_AT_MS_FIELD_NUMBER: _ClassVar[int]
    REJECTION_REASON_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    SUBMISSION_ID_FIELD_NUMBER: _ClassVar[int]
    USER_ID_FIELD_NUMBER: _ClassVar[int]
    entitlements: _containers.RepeatedCompositeFieldContainer[EntitlementStatus]
    error: Error
    received_at_ms: int
    rejection_reason: str
    status: SubmissionStatus
    submission_id: str
    user_id: str
    def __init__(self, submission_id: _Optional[str] = ..., status: _Optional[_Union[SubmissionStatus, str]] = ..., error: _Optional[_Union[Error, _Mapping]] = ..., entitlements: _Optional[_Iterable[_Union[EntitlementStatus, _Mapping]]] = ..., rejection_reason: _Optional[str] = ..., received_at_ms: _Optional[int] = ..., user_id: _Optional[str] = ...) -> None: ...

class GetSubscriptionRequest(_message.Message):
    __slots__ = ["user_id"]
    USER_ID_FIELD_NUMBER: _ClassVar[int]
    user_id: str
    def __init__(self, user_id: _Optional[str] = ...) -> None: ...

class GetSubscriptionResponse(_message.Message):
    __slots__ = ["entitlements", "error", "evaluated_at_ms", "subscriptions", "user_id"]
    ENTITLEMENTS_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    EVALUATED_AT_MS_FIELD_NUMBER: _ClassVar[int]
    SUBSCRIPTIONS_FIELD_NUMBER: _ClassVar[int]
    USER_ID_FIELD_NUMBER: _ClassVar[int]
    entitlements: _containers.RepeatedCompositeFieldContainer[EntitlementStatus]
    error: Error
    evaluated_at_ms: int
    subscriptions: _containers.RepeatedCompositeFieldContainer[Subscription]
    user_id: str
    def __init__(self, user_id: _Optional[str] = ..., subscriptions: _Optional[_Iterable[_Union[Subscription, _Mapping]]] = ..., entitlements: _Optional[_Iterable[_Union[EntitlementStatus, _Mapping]]] = ..., error: _Optional[_Union[Error, _Mapping]] = ..., evaluated_at_ms: _Optional[int] = ...) -> None: ...

class GetTimelineRequest(_message.Message):
    __slots__ = ["user_id"]
    USER_ID_FIELD_NUMBER: _ClassVar[int]
    user_id: str
    def __init__(self, user_id: _Optional[str] = ...) -> None: ...

class GetTimelineResponse(_message.Message):
    __slots__ = ["entries", "error", "evaluated_at", "user_id"]
    ENTRIES_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    EVALUATED_AT_FIELD_NUMBER: _ClassVar[int]
    USER_ID_FIELD_NUMBER: _ClassVar[int]
    entries: _containers.RepeatedCompositeFieldContainer[TimelineEntry]
    error: Error
    evaluated_at: str
    user_id: str
    def __init__(self, error: _Optional[_Union[Error, _Mapping]] = ..., user_id: _Optional[str] = ..., evaluated_at: _Optional[str] = ..., entries: _Optional[_Iterable[_Union[TimelineEntry, _Mapping]]] = ...) -> None: ...

class GrantRequest(_message.Message):
    __slots__ = ["entitlement", "note", "requested_by", "until", "user_id"]
    ENTITLEMENT_FIELD_NUMBER: _ClassVar[int]
    NOTE_FIELD_NUMBER: _ClassVar[int]
    REQUESTED_BY_FIELD_NUMBER: _ClassVar[int]
    UNTIL_FIELD_NUMBER: _ClassVar[int]
    USER_ID_FIELD_NUMBER: _ClassVar[int]
    entitlement: str
    note: str
    requested_by: str
    until: str
    user_id: str
    def __init__(self, user_id: _Optional[str] = ..., entitlement: _Optional[str] = ..., until: _Optional[str] = ..., note: _Optional[str] = ..., requested_by: _Optional[str] = ...) -> None: ...

class GrantResponse(_message.Message):
    __slots__ = ["entitlements", "error", "grant_id"]
    ENTITLEMENTS_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    GRANT_ID_FIELD_NUMBER: _ClassVar[int]
    entitlements: _containers.RepeatedCompositeFieldContainer[EntitlementStatus]
    error: Error
    grant_id: str
    def __init__(self, error: _Optional[_Union[Error, _Mapping]] = ..., grant_id: _Optional[str] = ..., entitlements: _Optional[_Iterable[_Union[EntitlementStatus, _Mapping]]] = ...) -> None: ...

class HealthRequest(_message.Message):
    __slots__ = []
    def __init__(self) -> None: ...

class HealthResponse(_message.Message):
    __slots__ = ["change_feed_applied_seq", "change_feed_head_seq", "change_feed_lag_ms", "error", "index_records", "index_users", "reason", "status", "uptime_ms", "version"]
    CHANGE_FEED_APPLIED_SEQ_FIELD_NUMBER: _ClassVar[int]
    CHANGE_FEED_HEAD_SEQ_FIELD_NUMBER: _ClassVar[int]
    CHANGE_FEED_LAG_MS_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    INDEX_RECORDS_FIELD_NUMBER: _ClassVar[int]
    INDEX_USERS_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    UPTIME_MS_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    change_feed_applied_seq: int
    change_feed_head_seq: int
    change_feed_lag_ms: int
    error: Error
    index_records: int
    index_users: int
    reason: str
    status: ServingStatus
    uptime_ms: int
    version: str
    def __init__(self, status: _Optional[_Union[ServingStatus, str]] = ..., index_users: _Optional[int] = ..., index_records: _Optional[int] = ..., change_feed_applied_seq: _Optional[int] = ..., change_feed_head_seq: _Optional[int] = ..., change_feed_lag_ms: _Optional[int] = ..., version: _Optional[str] = ..., uptime_ms: _Optional[int] = ..., error: _Optional[_Union[Error, _Mapping]] = ..., reason: _Optional[str] = ...) -> None: ...

class IsSubscriberRequest(_message.Message):
    __slots__ = ["entitlement", "user_id"]
    ENTITLEMENT_FIELD_NUMBER: _ClassVar[int]
    USER_ID_FIELD_NUMBER: _ClassVar[int]
    entitlement: str
    user_id: str
    def __init__(self, user_id: _Optional[str] = ..., entitlement: _Optional[str] = ...) -> None: ...

class IsSubscriberResponse(_message.Message):
    __slots__ = ["access_level", "active", "environment", "error", "evaluated_at_ms", "expires_at_ms", "product_id", "state", "store", "store_subscription_id", "verified_at_ms", "will_renew"]
    ACCESS_LEVEL_FIELD_NUMBER: _ClassVar[int]
    ACTIVE_FIELD_NUMBER: _ClassVar[int]
    ENVIRONMENT_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    EVALUATED_AT_MS_FIELD_NUMBER: _ClassVar[int]
    EXPIRES_AT_MS_FIELD_NUMBER: _ClassVar[int]
    PRODUCT_ID_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    STORE_FIELD_NUMBER: _ClassVar[int]
    STORE_SUBSCRIPTION_ID_FIELD_NUMBER: _ClassVar[int]
    VERIFIED_AT_MS_FIELD_NUMBER: _ClassVar[int]
    WILL_RENEW_FIELD_NUMBER: _ClassVar[int]
    access_level: str
    active: bool
    environment: Environment
    error: Error
    evaluated_at_ms: int
    expires_at_ms: int
    product_id: str
    state: SubscriptionState
    store: Store
    store_subscription_id: str
    verified_at_ms: int
    will_renew: bool
    def __init__(self, active: bool = ..., expires_at_ms: _Optional[int] = ..., state: _Optional[_Union[SubscriptionState, str]] = ..., will_renew: bool = ..., store: _Optional[_Union[Store, str]] = ..., product_id: _Optional[str] = ..., environment: _Optional[_Union[Environment, str]] = ..., verified_at_ms: _Optional[int] = ..., error: _Optional[_Union[Error, _Mapping]] = ..., evaluated_at_ms: _Optional[int] = ..., store_subscription_id: _Optional[str] = ..., access_level: _Optional[str] = ...) -> None: ...

class LookUpRequest(_message.Message):
    __slots__ = ["identifier", "kind"]
    IDENTIFIER_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    identifier: str
    kind: IdentifierKind
    def __init__(self, identifier: _Optional[str] = ..., kind: _Optional[_Union[IdentifierKind, str]] = ...) -> None: ...

class LookUpResponse(_message.Message):
    __slots__ = ["error", "matches", "notes"]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    MATCHES_FIELD_NUMBER: _ClassVar[int]
    NOTES_FIELD_NUMBER: _ClassVar[int]
    error: Error
    matches: _containers.RepeatedCompositeFieldContainer[PurchaseMatch]
    notes: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, error: _Optional[_Union[Error, _Mapping]] = ..., matches: _Optional[_Iterable[_Union[PurchaseMatch, _Mapping]]] = ..., notes: _Optional[_Iterable[str]] = ...) -> None: ...

class PurchaseMatch(_message.Message):
    __slots__ = ["access_ends_at", "environment", "erased_at", "known", "matched_as", "product_id", "state", "store", "store_subscription_id", "transaction_id", "user_id"]
    ACCESS_ENDS_AT_FIELD_NUMBER: _ClassVar[int]
    ENVIRONMENT_FIELD_NUMBER: _ClassVar[int]
    ERASED_AT_FIELD_NUMBER: _ClassVar[int]
    KNOWN_FIELD_NUMBER: _ClassVar[int]
    MATCHED_AS_FIELD_NUMBER: _ClassVar[int]
    PRODUCT_ID_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    STORE_FIELD_NUMBER: _ClassVar[int]
    STORE_SUBSCRIPTION_ID_FIELD_NUMBER: _ClassVar[int]
    TRANSACTION_ID_FIELD_NUMBER: _ClassVar[int]
    USER_ID_FIELD_NUMBER: _ClassVar[int]
    access_ends_at: str
    environment: Environment
    erased_at: str
    known: bool
    matched_as: IdentifierKind
    product_id: str
    state: SubscriptionState
    store: Store
    store_subscription_id: str
    transaction_id: str
    user_id: str
    def __init__(self, store: _Optional[_Union[Store, str]] = ..., matched_as: _Optional[_Union[IdentifierKind, str]] = ..., store_subscription_id: _Optional[str] = ..., transaction_id: _Optional[str] = ..., product_id: _Optional[str] = ..., user_id: _Optional[str] = ..., state: _Optional[_Union[SubscriptionState, str]] = ..., access_ends_at: _Optional[str] = ..., environment: _Optional[_Union[Environment, str]] = ..., known: bool = ..., erased_at: _Optional[str] = ...) -> None: ...

class RejectedSubmission(_message.Message):
    __slots__ = ["product_id", "reason", "received_at", "rejected_at", "store"]
    PRODUCT_ID_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    RECEIVED_AT_FIELD_NUMBER: _ClassVar[int]
    REJECTED_AT_FIELD_NUMBER: _ClassVar[int]
    STORE_FIELD_NUMBER: _ClassVar[int]
    product_id: str
    reason: str
    received_at: str
    rejected_at: str
    store: Store
    def __init__(self, store: _Optional[_Union[Store, str]] = ..., product_id: _Optional[str] = ..., reason: _Optional[str] = ..., received_at: _Optional[str] = ..., rejected_at: _Optional[str] = ...) -> None: ...

class ReverifyRequest(_message.Message):
    __slots__ = ["user_id"]
    USER_ID_FIELD_NUMBER: _ClassVar[int]
    user_id: str
    def __init__(self, user_id: _Optional[str] = ...) -> None: ...

class ReverifyResponse(_message.Message):
    __slots__ = ["error", "subscriptions"]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    SUBSCRIPTIONS_FIELD_NUMBER: _ClassVar[int]
    error: Error
    subscriptions: int
    def __init__(self, error: _Optional[_Union[Error, _Mapping]] = ..., subscriptions: _Optional[int] = ...) -> None: ...

class RevokeRequest(_message.Message):
    __slots__ = ["entitlement", "note", "requested_by", "user_id"]
    ENTITLEMENT_FIELD_NUMBER: _ClassVar[int]
    NOTE_FIELD_NUMBER: _ClassVar[int]
    REQUESTED_BY_FIELD_NUMBER: _ClassVar[int]
    USER_ID_FIELD_NUMBER: _ClassVar[int]
    entitlement: str
    note: str
    requested_by: str
    user_id: str
    def __init__(self, user_id: _Optional[str] = ..., entitlement: _Optional[str] = ..., note: _Optional[str] = ..., requested_by: _Optional[str] = ...) -> None: ...

class RevokeResponse(_message.Message):
    __slots__ = ["entitlements", "error", "revoked"]
    ENTITLEMENTS_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    REVOKED_FIELD_NUMBER: _ClassVar[int]
    entitlements: _containers.RepeatedCompositeFieldContainer[EntitlementStatus]
    error: Error
    revoked: int
    def __init__(self, error: _Optional[_Union[Error, _Mapping]] = ..., revoked: _Optional[int] = ..., entitlements: _Optional[_Iterable[_Union[EntitlementStatus, _Mapping]]] = ...) -> None: ...

class SubmitPurchaseRequest(_message.Message):
    __slots__ = ["amazon_user_id", "app_id", "google_purchase_data", "google_signature", "product_id", "purchase_token", "receipt", "receipt_id", "store", "user_id", "wait_ms"]
    AMAZON_USER_ID_FIELD_NUMBER: _ClassVar[int]
    APP_ID_FIELD_NUMBER: _ClassVar[int]
    GOOGLE_PURCHASE_DATA_FIELD_NUMBER: _ClassVar[int]
    GOOGLE_SIGNATURE_FIELD_NUMBER: _ClassVar[int]
    PRODUCT_ID_FIELD_NUMBER: _ClassVar[int]
    PURCHASE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    RECEIPT_FIELD_NUMBER: _ClassVar[int]
    RECEIPT_ID_FIELD_NUMBER: _ClassVar[int]
    STORE_FIELD_NUMBER: _ClassVar[int]
    USER_ID_FIELD_NUMBER: _ClassVar[int]
    WAIT_MS_FIELD_NUMBER: _ClassVar[int]
    amazon_user_id: str
    app_id: str
    google_purchase_data: str
    google_signature: str
    product_id: str
    purchase_token: str
    receipt: str
    receipt_id: str
    store: Store
    user_id: str
    wait_ms: int
    def __init__(self, user_id: _Optional[str] = ..., store: _Optional[_Union[Store, str]] = ..., receipt: _Optional[str] = ..., purchase_token: _Optional[str] = ..., receipt_id: _Optional[str] = ..., amazon_user_id: _Optional[str] = ..., product_id: _Optional[str] = ..., app_id: _Optional[str] = ..., wait_ms: _Optional[int] = ..., google_purchase_data: _Optional[str] = ..., google_signature: _Optional[str] = ...) -> None: ...

class SubmitPurchaseResponse(_message.Message):
    __slots__ = ["entitlements", "error", "rejection_reason", "status", "submission_id"]
    ENTITLEMENTS_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    REJECTION_REASON_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    SUBMISSION_ID_FIELD_NUMBER: _ClassVar[int]
    entitlements: _containers.RepeatedCompositeFieldContainer[EntitlementStatus]
    error: Error
    rejection_reason: str
    status: SubmissionStatus
    submission_id: str
    def __init__(self, submission_id: _Optional[str] = ..., status: _Optional[_Union[SubmissionStatus, str]] = ..., error: _Optional[_Union[Error, _Mapping]] = ..., entitlements: _Optional[_Iterable[_Union[EntitlementStatus, _Mapping]]] = ..., rejection_reason: _Optional[str] = ...) -> None: ...

class Subscription(_message.Message):
    __slots__ = ["active", "entitlements", "environment", "expires_at_ms", "product_id", "reason", "replaces", "state", "store", "store_subscription_id", "verified_at_ms", "will_renew"]
    ACTIVE_FIELD_NUMBER: _ClassVar[int]
    ENTITLEMENTS_FIELD_NUMBER: _ClassVar[int]
    ENVIRONMENT_FIELD_NUMBER: _ClassVar[int]
    EXPIRES_AT_MS_FIELD_NUMBER: _ClassVar[int]
    PRODUCT_ID_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    REPLACES_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    STORE_FIELD_NUMBER: _ClassVar[int]
    STORE_SUBSCRIPTION_ID_FIELD_NUMBER: _ClassVar[int]
    VERIFIED_AT_MS_FIELD_NUMBER: _ClassVar[int]
    WILL_RENEW_FIELD_NUMBER: _ClassVar[int]
    active: bool
    entitlements: _containers.RepeatedScalarFieldContainer[str]
    environment: Environment
    expires_at_ms: int
    product_id: str
    reason: str
    replaces: _containers.RepeatedScalarFieldContainer[str]
    state: SubscriptionState
    store: Store
    store_subscription_id: str
    verified_at_ms: int
    will_renew: bool
    def __init__(self, store: _Optional[_Union[Store, str]] = ..., store_subscription_id: _Optional[str] = ..., product_id: _Optional[str] = ..., state: _Optional[_Union[SubscriptionState, str]] = ..., active: bool = ..., expires_at_ms: _Optional[int] = ..., will_renew: bool = ..., environment: _Optional[_Union[Environment, str]] = ..., verified_at_ms: _Optional[int] = ..., entitlements: _Optional[_Iterable[str]] = ..., reason: _Optional[str] = ..., replaces: _Optional[_Iterable[str]] = ...) -> None: ...

class TimelineEntry(_message.Message):
    __slots__ = ["at", "detail", "kind", "product_id", "signed_at", "source", "state", "store", "store_subscription_id", "transaction_id", "until"]
    AT_FIELD_NUMBER: _ClassVar[int]
    DETAIL_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    PRODUCT_ID_FIELD_NUMBER: _ClassVar[int]
    SIGNED_AT_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    STORE_FIELD_NUMBER: _ClassVar[int]
    STORE_SUBSCRIPTION_ID_FIELD_NUMBER: _ClassVar[int]
    TRANSACTION_ID_FIELD_NUMBER: _ClassVar[int]
    UNTIL_FIELD_NUMBER: _ClassVar[int]
    at: str
    detail: str
    kind: str
    product_id: str
    signed_at: str
    source: str
    state: SubscriptionState
    store: Store
    store_subscription_id: str
    transaction_id: str
    until: str
    def __init__(self, at: _Optional[str] = ..., until: _Optional[str] = ..., kind: _Optional[str] = ..., store: _Optional[_Union[Store, str]] = ..., store_subscription_id: _Optional[str] = ..., product_id: _Optional[str] = ..., transaction_id: _Optional[str] = ..., signed_at: _Optional[str] = ..., state: _Optional[_Union[SubscriptionState, str]] = ..., detail: _Optional[str] = ..., source: _Optional[str] = ...) -> None: ...

class TransferredAway(_message.Message):
    __slots__ = ["at", "detail", "product_id", "store", "store_subscription_id", "to_user_id"]
    AT_FIELD_NUMBER: _ClassVar[int]
    DETAIL_FIELD_NUMBER: _ClassVar[int]
    PRODUCT_ID_FIELD_NUMBER: _ClassVar[int]
    STORE_FIELD_NUMBER: _ClassVar[int]
    STORE_SUBSCRIPTION_ID_FIELD_NUMBER: _ClassVar[int]
    TO_USER_ID_FIELD_NUMBER: _ClassVar[int]
    at: str
    detail: str
    product_id: str
    store: Store
    store_subscription_id: str
    to_user_id: str
    def __init__(self, store: _Optional[_Union[Store, str]] = ..., store_subscription_id: _Optional[str] = ..., product_id: _Optional[str] = ..., to_user_id: _Optional[str] = ..., at: _Optional[str] = ..., detail: _Optional[str] = ...) -> None: ...

class Store(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = []

class Environment(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = []

class SubscriptionState(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = []

class ErrorCode(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = []

class SubmissionStatus(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = []

class ServingStatus(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = []

class IdentifierKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = []
