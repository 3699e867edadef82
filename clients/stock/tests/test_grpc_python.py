"""A stock gRPC client nobody here wrote, against `tollgate serve` as a process: grpcio with stubs
that grpcio-tools generates from proto/tollgate.proto into a temporary folder, and the standard
health stubs of grpcio-health-checking. Its answers must equal the fast port's (clients/python's
client) for the same users, and its refusals be the documented status codes (docs/grpc.md)."""

from __future__ import annotations

import importlib
import subprocess
import sys
from types import SimpleNamespace

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from compare import fields, same_fields
from conftest import ENTITLEMENT, USERS
from doors_server import CALLERS, REPO, DoorsServer, new_caller
from fastport import answers


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> SimpleNamespace:
    """tollgate_pb2 and tollgate_pb2_grpc, generated now by grpcio-tools' protoc."""
    out = tmp_path_factory.mktemp("grpc-python")
    subprocess.run([sys.executable, "-m", "grpc_tools.protoc", f"-I{REPO / 'proto'}", f"--python_out={out}",
                    f"--grpc_python_out={out}", "tollgate.proto"], check=True)
    sys.path.insert(0, str(out))
    try:
        return SimpleNamespace(pb=importlib.import_module("tollgate_pb2"),
                               grpc=importlib.import_module("tollgate_pb2_grpc"))
    finally:
        sys.path.remove(str(out))


@pytest.fixture(scope="module")
def channel(doors: DoorsServer):
    with grpc.insecure_channel(f"127.0.0.1:{doors.grpc_port}") as opened:
        yield opened


@pytest.fixture(scope="module")
def stub(generated: SimpleNamespace, channel):
    return generated.grpc.EntitlementsStub(channel)


def bearer(doors: DoorsServer, caller: str) -> list[tuple[str, str]]:
    return [("authorization", f"Bearer {doors.keys[caller]}")]


def test_reads_answer_as_the_fast_port_does(doors: DoorsServer, generated, stub) -> None:
    users = [f"user-{n}" for n in range(USERS)]
    fast = answers(doors.fast_port, "reader", doors.keys["reader"],
                   [["is_subscriber", user, ENTITLEMENT] for user in users]
                   + [["get_subscription", user] for user in users])
    active = 0
    for n, user in enumerate(users):
        read = stub.IsSubscriber(generated.pb.IsSubscriberRequest(user_id=user, entitlement=ENTITLEMENT),
                                 metadata=bearer(doors, "reader"), timeout=5)
        same_fields(fields(read, "evaluated_at_ms"), fast[n])
        active += read.active
        subscription = stub.GetSubscription(generated.pb.GetSubscriptionRequest(user_id=user),
                                            metadata=bearer(doors, "reader"), timeout=5)
        assert subscription.subscriptions and subscription.entitlements
        same_fields(fields(subscription, "evaluated_at_ms"), fast[USERS + n])
    assert active == USERS - USERS // 5  # every fifth user without access, as seeded


def test_application_errors_are_status_codes(doors: DoorsServer, generated, stub) -> None:
    fast = answers(doors.fast_port, "reader", doors.keys["reader"], [["get_subscription", "nobody-here"]])
    assert fast == [{"error": "NotFoundError"}]
    with pytest.raises(grpc.RpcError) as raised:
        stub.GetSubscription(generated.pb.GetSubscriptionRequest(user_id="nobody-here"),
                             metadata=bearer(doors, "reader"), timeout=5)
    assert raised.value.code() == grpc.StatusCode.NOT_FOUND
    assert ("tollgate-error-code", "ERROR_CODE_NOT_FOUND") in raised.value.trailing_metadata()
    with pytest.raises(grpc.RpcError) as raised:
        stub.IsSubscriber(generated.pb.IsSubscriberRequest(user_id="", entitlement=ENTITLEMENT),
                          metadata=bearer(doors, "reader"), timeout=5)
    assert raised.value.code() == grpc.StatusCode.INVALID_ARGUMENT


def test_submit_purchase_and_get_submission(doors: DoorsServer, generated, stub) -> None:
    purchase = generated.pb.SubmitPurchaseRequest(user_id="buyer-grpc", store=generated.pb.STORE_APP_STORE,
                                                  receipt="2000000000990")
    submitted = stub.SubmitPurchase(purchase, metadata=bearer(doors, "submitter"), timeout=10)
    assert submitted.submission_id
    assert submitted.status in (generated.pb.SUBMISSION_STATUS_PENDING, generated.pb.SUBMISSION_STATUS_REJECTED)
    found = stub.GetSubmission(generated.pb.GetSubmissionRequest(submission_id=submitted.submission_id),
                               metadata=bearer(doors, "submitter"), timeout=5)
    assert found.user_id == "buyer-grpc"
    # The same purchase for another user through the fast port: the same status; each door then
    # reads either submission as the other does.
    fast = answers(doors.fast_port, "submitter", doors.keys["submitter"],
                   [["submit_purchase", "buyer-fast", generated.pb.STORE_APP_STORE, "2000000000992"],
                    ["get_submission", submitted.submission_id]])
    assert fast[0]["status"] == submitted.status
    same_fields(fields(found), fast[1])
    again = stub.GetSubmission(generated.pb.GetSubmissionRequest(submission_id=fast[0]["submission_id"]),
                               metadata=bearer(doors, "submitter"), timeout=5)
    assert again.user_id == "buyer-fast"
    assert again.status == fast[0]["status"]


def test_health_both_ways(doors: DoorsServer, generated, stub, channel) -> None:
    health = stub.Health(generated.pb.HealthRequest(), metadata=bearer(doors, "reader"), timeout=5)
    fast = answers(doors.fast_port, "reader", doors.keys["reader"], [["health"]])[0]
    assert health.status == generated.pb.SERVING_STATUS_SERVING == fast["status"]
    assert health.index_users == fast["index_users"] == USERS
    assert health.index_records == fast["index_records"]
    # The standard health service needs no key (probes send none).
    probe = health_pb2_grpc.HealthStub(channel)
    for service in ("", "tollgate.v1.Entitlements"):
        answer = probe.Check(health_pb2.HealthCheckRequest(service=service), timeout=5)
        assert answer.status == health_pb2.HealthCheckResponse.SERVING
    with pytest.raises(grpc.RpcError) as raised:
        probe.Check(health_pb2.HealthCheckRequest(service="no.such.Service"), timeout=5)
    assert raised.value.code() == grpc.StatusCode.NOT_FOUND
    watch = probe.Watch(health_pb2.HealthCheckRequest(service=""), timeout=5)
    assert next(watch).status == health_pb2.HealthCheckResponse.SERVING
    watch.cancel()
    # Entitlements/Health, with the counts, is a read: it needs a key.
    with pytest.raises(grpc.RpcError) as raised:
        stub.Health(generated.pb.HealthRequest(), timeout=5)
    assert raised.value.code() == grpc.StatusCode.UNAUTHENTICATED


def test_unauthenticated_without_or_with_a_wrong_key(doors: DoorsServer, generated, stub) -> None:
    request = generated.pb.IsSubscriberRequest(user_id="user-1", entitlement=ENTITLEMENT)
    for metadata in ([], [("authorization", "Bearer not-a-key")], [("authorization", f"Basic {doors.keys['both']}")]):
        with pytest.raises(grpc.RpcError) as raised:
            stub.IsSubscriber(request, metadata=metadata, timeout=5)
        assert raised.value.code() == grpc.StatusCode.UNAUTHENTICATED
        assert ("tollgate-error-code", "ERROR_CODE_UNAUTHENTICATED") in raised.value.trailing_metadata()


def test_permission_denied_outside_the_scopes(doors: DoorsServer, generated, stub) -> None:
    purchase = generated.pb.SubmitPurchaseRequest(user_id="buyer-denied", store=generated.pb.STORE_APP_STORE,
                                                  receipt="2000000000991")
    with pytest.raises(grpc.RpcError) as raised:
        stub.SubmitPurchase(purchase, metadata=bearer(doors, "reader"), timeout=5)
    assert raised.value.code() == grpc.StatusCode.PERMISSION_DENIED
    assert raised.value.details() == "caller reader may not call SubmitPurchase: it needs the submit scope"
    admin_calls = [
        (stub.Grant,
         generated.pb.GrantRequest(user_id="user-1", entitlement=ENTITLEMENT, until="2099-01-01T00:00:00Z")),
        (stub.LookUp, generated.pb.LookUpRequest(identifier="2000000000990")),
        (stub.EraseUser, generated.pb.EraseUserRequest(user_id="user-1", dry_run=True)),
    ]
    for caller in ("reader", "both"):
        for call, request in admin_calls:
            with pytest.raises(grpc.RpcError) as raised:
                call(request, metadata=bearer(doors, caller), timeout=5)
            assert raised.value.code() == grpc.StatusCode.PERMISSION_DENIED, (caller, call)


def test_authenticate_says_who_the_bearer_is(doors: DoorsServer, generated, stub) -> None:
    for caller, scopes in (("reader", ["read"]), ("both", ["read", "submit"]), ("ops", ["admin"])):
        who = stub.Authenticate(generated.pb.AuthenticateRequest(), metadata=bearer(doors, caller), timeout=5)
        assert (who.caller, list(who.scopes)) == (caller, scopes)


@pytest.fixture(scope="module")
def mtls_doors(stock_database, tmp_path_factory: pytest.TempPathFactory):
    """serve with mutual TLS on the gRPC door (service.grpc.tls) and the PKI it trusts."""
    certs = tmp_path_factory.mktemp("grpc-certs")
    subprocess.run([str(REPO / "clients" / "test-certs"), str(certs)], check=True)
    made = {name: new_caller(name, scopes) for name, scopes in CALLERS.items()}
    tls = {"certificateFile": str(certs / "server.pem"), "privateKeyFile": str(certs / "server.key"),
           "clientCAFile": str(certs / "ca.pem")}
    server = DoorsServer(stock_database, tmp_path_factory.mktemp("grpc-mtls"),
                         keys={name: key for name, (key, _) in made.items()}, extra_service={"grpc": {"tls": tls}})
    server.start([entry for _, entry in made.values()])
    yield server, certs
    server.stop()


def test_mutual_tls(mtls_doors, generated) -> None:
    doors, certs = mtls_doors
    request = generated.pb.IsSubscriberRequest(user_id="user-1", entitlement=ENTITLEMENT)
    read = lambda name: (certs / name).read_bytes()  # noqa: E731
    with_certificate = grpc.ssl_channel_credentials(read("ca.pem"), read("client.key"), read("client.pem"))
    with grpc.secure_channel(f"127.0.0.1:{doors.grpc_port}", with_certificate) as channel:
        answer = generated.grpc.EntitlementsStub(channel).IsSubscriber(request, metadata=bearer(doors, "reader"),
                                                                       timeout=5)
        assert answer.active
    without = grpc.ssl_channel_credentials(read("ca.pem"))
    with grpc.secure_channel(f"127.0.0.1:{doors.grpc_port}", without) as channel:
        with pytest.raises(grpc.RpcError) as raised:
            generated.grpc.EntitlementsStub(channel).IsSubscriber(request, metadata=bearer(doors, "reader"), timeout=5)
        assert raised.value.code() == grpc.StatusCode.UNAVAILABLE
    with grpc.insecure_channel(f"127.0.0.1:{doors.grpc_port}") as channel:
        with pytest.raises(grpc.RpcError) as raised:
            generated.grpc.EntitlementsStub(channel).IsSubscriber(request, metadata=bearer(doors, "reader"), timeout=5)
        assert raised.value.code() == grpc.StatusCode.UNAVAILABLE
