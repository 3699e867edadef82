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

class Error(_message.Message):
    __slots__ = ["code", "message"]
    CODE_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    code: ErrorCode
    message: str
    def __init__(self, code: _Optional[_Union[ErrorCode, str]] = ..., message: _Optional[str] = ...) -> None: ...

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
