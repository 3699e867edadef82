"""The golden frames in proto/testdata: what this client writes must equal the request frames
byte for byte, and it must read the response frames as documented."""

from __future__ import annotations

import pytest

from golden import golden
from tollgate import (
    BadResponseError,
    SubmissionStatus,
    UnauthenticatedError,
    Environment,
    InternalError,
    NotFoundError,
    ServiceFailedError,
    Store,
    SubscriptionState,
    TooManyPendingError,
)
from tollgate import _methods
from tollgate._generated import tollgate_pb2 as pb
from tollgate.framing import Method, ResponseDecoder, encode_request


def test_request_is_subscriber() -> None:
    frame = encode_request(Method.IS_SUBSCRIBER, 42, _methods.is_subscriber_request("user-42", "premium"))
    assert frame == golden("request-is-subscriber.hex")


def test_request_get_subscription() -> None:
    frame = encode_request(Method.GET_SUBSCRIPTION, 7, _methods.get_subscription_request("user-42"))
    assert frame == golden("request-get-subscription.hex")


def test_request_health() -> None:
    assert encode_request(Method.HEALTH, 0xDEADBEEF, _methods.health_request()) == golden("request-health.hex")


def test_request_authenticate() -> None:
    frame = encode_request(Method.AUTHENTICATE, 1, _methods.authenticate_request("web", "example-key-0001"))
    assert frame == golden("request-authenticate.hex")


def test_request_get_submission() -> None:
    frame = encode_request(Method.GET_SUBMISSION, 9, _methods.get_submission_request("sub-0001"))
    assert frame == golden("request-get-submission.hex")


def test_request_look_up() -> None:
    request = pb.LookUpRequest(identifier="MK5TTTVWJH", kind=pb.IDENTIFIER_KIND_APP_STORE_ORDER_ID)
    frame = encode_request(Method.LOOK_UP, 11, request.SerializeToString())
    assert frame == golden("request-look-up.hex")


def test_method_indexes_follow_the_service() -> None:
    service = pb.DESCRIPTOR.services_by_name["Entitlements"]
    assert [m.name for m in service.methods] == [
        "".join(part.capitalize() for part in member.name.split("_")) for member in Method
    ]


def decode_one(data: bytes):
    frames = ResponseDecoder().feed(data)
    assert len(frames) == 1
    return frames[0]


def test_response_success_is_subscriber() -> None:
    frame = decode_one(golden("response-success-is-subscriber.hex"))
    assert (frame.status_code, frame.method_index, frame.request_id) == (0, 0, 42)
    result = _methods.IS_SUBSCRIBER.decode(frame)
    assert result.active is True
    assert result.expires_at_ms == 1700000000000
    assert result.state is SubscriptionState.ACTIVE
    assert result.will_renew is True
    assert result.store is Store.APP_STORE
    assert result.product_id == "monthly"
    assert result.environment is Environment.PRODUCTION
    assert result.verified_at_ms == 1699999000000
    assert result.store_subscription_id == ""
    assert result.access_level == ""


def test_response_success_is_subscriber_access_level() -> None:
    frame = decode_one(golden("response-success-is-subscriber-access-level.hex"))
    assert (frame.status_code, frame.method_index, frame.request_id) == (0, 0, 43)
    result = _methods.IS_SUBSCRIBER.decode(frame)
    assert result.active is False
    assert result.state is SubscriptionState.BILLING_RETRY
    assert result.store is Store.GOOGLE_PLAY
    assert result.evaluated_at_ms == 1700000100000
    assert result.store_subscription_id == "token-1"
    assert result.access_level == "read_only"


def test_response_success_not_found() -> None:
    frame = decode_one(golden("response-success-not-found.hex"))
    assert (frame.status_code, frame.method_index, frame.request_id) == (0, 1, 7)
    with pytest.raises(NotFoundError) as raised:
        _methods.GET_SUBSCRIPTION.decode(frame)
    assert raised.value.message == "no subscriptions or grants for this user"
    assert raised.value.proto_code == 2
    assert not raised.value.retryable


def test_response_success_authenticate() -> None:
    frame = decode_one(golden("response-success-authenticate.hex"))
    assert (frame.status_code, frame.method_index, frame.request_id) == (0, 4, 1)
    identity = _methods.AUTHENTICATE.decode(frame)
    assert identity.caller == "web"
    assert identity.scopes == ("read", "submit")


def test_response_unauthenticated() -> None:
    frame = decode_one(golden("response-unauthenticated.hex"))
    assert (frame.status_code, frame.method_index, frame.request_id) == (0, 4, 1)
    with pytest.raises(UnauthenticatedError) as raised:
        _methods.AUTHENTICATE.decode(frame)
    assert raised.value.message == "unknown caller or wrong key"
    assert raised.value.proto_code == 3
    assert not raised.value.retryable


def test_response_success_get_submission() -> None:
    frame = decode_one(golden("response-success-get-submission.hex"))
    assert (frame.status_code, frame.method_index, frame.request_id) == (0, 5, 9)
    submission = _methods.GET_SUBMISSION.decode(frame)
    assert submission.submission_id == "sub-0001"
    assert submission.status is SubmissionStatus.REJECTED
    assert submission.rejection_reason == "sandbox receipt in production"
    assert submission.received_at_ms == 1700000000000
    assert submission.user_id == "user-42"
    assert submission.entitlements == ()


def test_response_service_failed() -> None:
    frame = decode_one(golden("response-service-failed.hex"))
    assert (frame.status_code, frame.method_index, frame.request_id, frame.payload) == (1, 9, 5, b"")
    assert isinstance(frame.refusal(), ServiceFailedError)


def test_response_too_many_pending() -> None:
    frame = decode_one(golden("response-too-many-pending.hex"))
    assert (frame.status_code, frame.method_index, frame.request_id, frame.payload) == (2, 2, 0x01020304, b"")
    with pytest.raises(TooManyPendingError) as raised:
        _methods.SUBMIT_PURCHASE.decode(frame)
    assert raised.value.retryable


def test_decoder_reassembles_frames_split_anywhere() -> None:
    stream = b"".join(
        golden(name)
        for name in ("response-success-is-subscriber.hex", "response-too-many-pending.hex",
                     "response-success-not-found.hex")
    )
    decoder = ResponseDecoder()
    frames = []
    for byte in stream:
        frames += decoder.feed(bytes([byte]))
    assert [f.request_id for f in frames] == [42, 0x01020304, 7]
    assert decoder.buffered == 0


def test_decoder_rejects_oversized_frame_from_its_header() -> None:
    header = bytes.fromhex("00000000 00000000 00000080 01000000")  # 2 GiB payload announced
    with pytest.raises(BadResponseError):
        ResponseDecoder(max_response_bytes=1 << 20).feed(header)


def test_unknown_frame_status_and_error_code() -> None:
    frame = decode_one(bytes.fromhex("07000000 00000000 00000000 01000000"))
    assert isinstance(frame.refusal(), BadResponseError)
    # IsSubscriberResponse{error: {code: 42, message: "x"}}
    unknown_code = bytes.fromhex("00000000 00000000 07000000 01000000 4a05082a120178")
    with pytest.raises(InternalError) as raised:
        _methods.IS_SUBSCRIBER.decode(decode_one(unknown_code))
    assert raised.value.proto_code == 42


def test_unknown_enum_value_is_kept_as_int() -> None:
    # IsSubscriberResponse{active: true, state: 42}
    frame = decode_one(bytes.fromhex("00000000 00000000 04000000 01000000 0801182a"))
    result = _methods.IS_SUBSCRIBER.decode(frame)
    assert result.state == 42 and not isinstance(result.state, SubscriptionState)


def test_undecodable_payload() -> None:
    frame = decode_one(bytes.fromhex("00000000 00000000 03000000 01000000 0a7f61"))
    with pytest.raises(BadResponseError):
        _methods.IS_SUBSCRIBER.decode(frame)


def test_response_success_grant() -> None:
    frame = decode_one(golden("response-success-grant.hex"))
    assert (frame.status_code, frame.method_index, frame.request_id) == (0, Method.GRANT, 12)
    response = pb.GrantResponse.FromString(frame.payload)
    assert not response.HasField("error")
    assert response.grant_id == "g-17"
    (status,) = response.entitlements
    assert (status.entitlement, status.active, status.expires_at_ms) == ("premium", True, 1700000000000)
    assert (status.state, status.store) == (pb.SUBSCRIPTION_STATE_ACTIVE, pb.STORE_PROMOTIONAL)
    assert status.store_subscription_id == "g-17"
