"""The methods, shared by the sync and asyncio clients: building each request payload, and
turning an answer frame into a result or the exception it stands for."""

from __future__ import annotations

from typing import Callable, Generic, TypeVar

from google.protobuf.message import DecodeError, Message

from ._generated import tollgate_pb2 as pb
from .errors import BadResponseError, TollgateError, application_error
from .framing import Method, ResponseFrame
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
    enum_value,
)

R = TypeVar("R")


class MethodSpec(Generic[R]):
    __slots__ = ("index", "name", "response_type", "convert")

    def __init__(self, index: Method, name: str, response_type: type[Message], convert: Callable[[Message], R]):
        self.index = int(index)
        self.name = name
        self.response_type = response_type
        self.convert = convert

    def decode(self, frame: ResponseFrame) -> R:
        """The result of an answer frame, or raises what it stands for."""
        refusal = frame.refusal()
        if refusal is not None:
            raise refusal
        if frame.method_index != self.index:
            raise BadResponseError(f"answer for method {frame.method_index} to a call of {self.name}")
        try:
            response = self.response_type.FromString(frame.payload)
        except DecodeError as error:
            raise BadResponseError(f"undecodable {self.name} response") from error
        if response.HasField("error") and response.error.code != 0:
            raise application_error(response.error.code, response.error.message)
        return self.convert(response)

    def outcome(self, frame: ResponseFrame) -> R | TollgateError:
        """Like decode, with the error returned instead of raised (for batches)."""
        try:
            return self.decode(frame)
        except TollgateError as error:
            return error


def _entitlement(e: pb.EntitlementStatus) -> EntitlementStatus:
    return EntitlementStatus(
        entitlement=e.entitlement,
        active=e.active,
        expires_at_ms=e.expires_at_ms,
        state=enum_value(SubscriptionState, e.state),
        will_renew=e.will_renew,
        store=enum_value(Store, e.store),
        product_id=e.product_id,
        environment=enum_value(Environment, e.environment),
        verified_at_ms=e.verified_at_ms,
        store_subscription_id=e.store_subscription_id,
        access_level=e.access_level,
    )


def _is_subscriber(r: pb.IsSubscriberResponse) -> IsSubscriberResult:
    return IsSubscriberResult(
        active=r.active,
        expires_at_ms=r.expires_at_ms,
        state=enum_value(SubscriptionState, r.state),
        will_renew=r.will_renew,
        store=enum_value(Store, r.store),
        product_id=r.product_id,
        environment=enum_value(Environment, r.environment),
        verified_at_ms=r.verified_at_ms,
        evaluated_at_ms=r.evaluated_at_ms,
        store_subscription_id=r.store_subscription_id,
        access_level=r.access_level,
    )


def _subscription(s: pb.Subscription) -> Subscription:
    return Subscription(
        store=enum_value(Store, s.store),
        store_subscription_id=s.store_subscription_id,
        product_id=s.product_id,
        state=enum_value(SubscriptionState, s.state),
        active=s.active,
        expires_at_ms=s.expires_at_ms,
        will_renew=s.will_renew,
        environment=enum_value(Environment, s.environment),
        verified_at_ms=s.verified_at_ms,
        entitlements=tuple(s.entitlements),
        reason=s.reason,
        replaces=tuple(s.replaces),
    )


def _subscription_info(r: pb.GetSubscriptionResponse) -> SubscriptionInfo:
    return SubscriptionInfo(
        user_id=r.user_id,
        subscriptions=tuple(_subscription(s) for s in r.subscriptions),
        entitlements=tuple(_entitlement(e) for e in r.entitlements),
        evaluated_at_ms=r.evaluated_at_ms,
    )


def _submission(r: pb.SubmitPurchaseResponse) -> Submission:
    return Submission(
        submission_id=r.submission_id,
        status=enum_value(SubmissionStatus, r.status),
        entitlements=tuple(_entitlement(e) for e in r.entitlements),
        rejection_reason=r.rejection_reason,
    )


def _get_submission(r: pb.GetSubmissionResponse) -> Submission:
    return Submission(
        submission_id=r.submission_id,
        status=enum_value(SubmissionStatus, r.status),
        entitlements=tuple(_entitlement(e) for e in r.entitlements),
        rejection_reason=r.rejection_reason,
        received_at_ms=r.received_at_ms,
        user_id=r.user_id,
    )


def _identity(r: pb.AuthenticateResponse) -> Identity:
    return Identity(caller=r.caller, scopes=tuple(r.scopes))


def _health(r: pb.HealthResponse) -> Health:
    return Health(
        status=enum_value(ServingStatus, r.status),
        index_users=r.index_users,
        index_records=r.index_records,
        change_feed_applied_seq=r.change_feed_applied_seq,
        change_feed_head_seq=r.change_feed_head_seq,
        change_feed_lag_ms=r.change_feed_lag_ms,
        version=r.version,
        uptime_ms=r.uptime_ms,
    )


IS_SUBSCRIBER: MethodSpec[IsSubscriberResult] = MethodSpec(
    Method.IS_SUBSCRIBER, "IsSubscriber", pb.IsSubscriberResponse, _is_subscriber
)
GET_SUBSCRIPTION: MethodSpec[SubscriptionInfo] = MethodSpec(
    Method.GET_SUBSCRIPTION, "GetSubscription", pb.GetSubscriptionResponse, _subscription_info
)
SUBMIT_PURCHASE: MethodSpec[Submission] = MethodSpec(
    Method.SUBMIT_PURCHASE, "SubmitPurchase", pb.SubmitPurchaseResponse, _submission
)
HEALTH: MethodSpec[Health] = MethodSpec(Method.HEALTH, "Health", pb.HealthResponse, _health)
AUTHENTICATE: MethodSpec[Identity] = MethodSpec(
    Method.AUTHENTICATE, "Authenticate", pb.AuthenticateResponse, _identity
)
GET_SUBMISSION: MethodSpec[Submission] = MethodSpec(
    Method.GET_SUBMISSION, "GetSubmission", pb.GetSubmissionResponse, _get_submission
)


def is_subscriber_request(user_id: str, entitlement: str) -> bytes:
    return pb.IsSubscriberRequest(user_id=user_id, entitlement=entitlement).SerializeToString()


def get_subscription_request(user_id: str) -> bytes:
    return pb.GetSubscriptionRequest(user_id=user_id).SerializeToString()


def authenticate_request(caller: str, key: str) -> bytes:
    return pb.AuthenticateRequest(caller=caller, key=key).SerializeToString()


def get_submission_request(submission_id: str) -> bytes:
    return pb.GetSubmissionRequest(submission_id=submission_id).SerializeToString()


def health_request() -> bytes:
    return pb.HealthRequest().SerializeToString()


def submit_purchase_request(purchase: Purchase) -> bytes:
    return pb.SubmitPurchaseRequest(
        user_id=purchase.user_id,
        store=int(purchase.store),
        receipt=purchase.receipt,
        purchase_token=purchase.purchase_token,
        receipt_id=purchase.receipt_id,
        amazon_user_id=purchase.amazon_user_id,
        product_id=purchase.product_id,
        app_id=purchase.app_id,
        wait_ms=purchase.wait_ms,
        google_purchase_data=purchase.google_purchase_data,
        google_signature=purchase.google_signature,
    ).SerializeToString()
