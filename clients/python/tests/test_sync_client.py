"""The blocking client against a real `tollgate serve`, plus a fake server for failures."""

from __future__ import annotations

import socket
import threading
import time

import pytest

from fake_server import FakeServer
from live_server import ServerProcess
from tollgate import (
    BadResponseError,
    CallTimeoutError,
    Client,
    ConnectError,
    ConnectionClosedError,
    InvalidArgumentError,
    NotFoundError,
    Purchase,
    ServingStatus,
    Store,
    SubmissionStatus,
    SubscriptionState,
    TooManyPendingError,
)

from conftest import USERS


@pytest.fixture
def client(server: ServerProcess):
    with Client("127.0.0.1", server.port, timeout=5.0) as c:
        yield c


def test_active_user(client: Client) -> None:
    result = client.is_subscriber("user-1", "premium")
    assert result.active and bool(result)
    assert result.state is SubscriptionState.ACTIVE
    assert result.store is Store.APP_STORE
    assert result.product_id == "premium_monthly"
    assert result.expires_at_ms > result.evaluated_at_ms > 0
    assert result.store_subscription_id


def test_inactive_and_unknown(client: Client) -> None:
    inactive = client.is_subscriber("user-4", "premium")
    assert not inactive.active
    assert inactive.state not in (SubscriptionState.UNSPECIFIED, SubscriptionState.ACTIVE)
    unknown = client.is_subscriber("nobody", "premium")
    assert not unknown.active and unknown.state is SubscriptionState.UNSPECIFIED
    assert not client.is_subscriber("user-1", "no-such-entitlement").active


def test_get_subscription(client: Client) -> None:
    info = client.get_subscription("user-1")
    assert info.user_id == "user-1"
    assert len(info.subscriptions) == 1
    assert info.subscriptions[0].product_id == "premium_monthly"
    assert info.subscriptions[0].entitlements == ("premium",)
    assert [e.entitlement for e in info.entitlements] == ["premium"]
    assert info.entitlements[0].active


def test_not_found(client: Client) -> None:
    with pytest.raises(NotFoundError) as raised:
        client.get_subscription("nobody")
    assert raised.value.message
    assert client.get_subscription("user-2").user_id == "user-2"  # the connection is still good


@pytest.mark.parametrize(
    "call",
    [
        lambda c: c.is_subscriber("", "premium"),
        lambda c: c.is_subscriber("user-1", ""),
        lambda c: c.is_subscriber("u" * 300, "premium"),
        lambda c: c.get_subscription(""),
    ],
    ids=["empty-user", "empty-entitlement", "long-user", "get-subscription-empty-user"],
)
def test_invalid_argument(client: Client, call) -> None:
    with pytest.raises(InvalidArgumentError) as raised:
        call(client)
    assert not raised.value.retryable
    assert client.is_subscriber("user-1", "premium").active


def test_health(client: Client) -> None:
    health = client.health()
    assert health.status is ServingStatus.SERVING
    assert health.index_users == USERS
    assert health.version


def test_batch_matches_single_calls(client: Client) -> None:
    queries = [(f"user-{i % (USERS + 10)}", "premium") for i in range(120)]
    queries[7] = ("", "premium")
    for window in (16, 1, 200):
        outcomes = client.is_subscriber_many(queries, max_in_flight=window)
        assert len(outcomes) == len(queries)
        assert isinstance(outcomes[7], InvalidArgumentError)
        for (user, _), outcome in zip(queries, outcomes):
            if user:
                single = client.is_subscriber(user, "premium")
                assert (outcome.active, outcome.state, outcome.expires_at_ms) == (
                    single.active, single.state, single.expires_at_ms)


def test_threads_share_one_client(server: ServerProcess) -> None:
    errors: list[BaseException] = []
    with Client("127.0.0.1", server.port, pool_size=3) as shared:
        def work(offset: int) -> None:
            try:
                for i in range(40):
                    user = f"user-{(offset + i) % USERS}"
                    expected = (offset + i) % USERS % 5 != 4
                    assert shared.is_subscriber(user, "premium").active is expected
            except BaseException as error:  # noqa: BLE001 - reported below
                errors.append(error)

        threads = [threading.Thread(target=work, args=(n * 7,)) for n in range(6)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    assert errors == []


def test_server_restart_reconnects(own_server: ServerProcess) -> None:
    with Client("127.0.0.1", own_server.port, connect_timeout=2.0) as client:
        assert client.is_subscriber("user-1", "premium").active
        port = own_server.port
        own_server.stop()
        with pytest.raises(ConnectError) as raised:
            client.is_subscriber("user-1", "premium")
        assert raised.value.retryable
        own_server.start(port)
        assert client.is_subscriber("user-1", "premium").active
        # Restarted between two calls: the idle connection is replaced before sending.
        own_server.restart()
        assert client.is_subscriber("user-1", "premium").active
        assert client.health().uptime_ms < 60_000


def test_too_many_pending(pending_server: ServerProcess) -> None:
    purchase = Purchase(user_id="buyer-1", store=Store.APP_STORE, receipt="2000000000777", wait_ms=1000)
    with Client("127.0.0.1", pending_server.port, pool_size=1) as client:
        first, second, third = client.submit_purchase_many([purchase] * 3, max_in_flight=3)
        assert first.status is SubmissionStatus.PENDING and first.submission_id
        assert isinstance(second, TooManyPendingError) and second.retryable
        assert isinstance(third, TooManyPendingError)
        # One at a time is within the limit; the connection is still good.
        single = client.submit_purchase(Purchase(user_id="buyer-1", store=Store.APP_STORE, receipt="2000000000777"))
        assert single.status is SubmissionStatus.PENDING
        with pytest.raises(InvalidArgumentError) as raised:
            client.submit_purchase(Purchase(user_id="buyer-1", store=Store.APP_STORE))
        assert "2000000000777" not in str(raised.value)


def test_connect_refused() -> None:
    with socket.create_server(("127.0.0.1", 0)) as probe:
        port = probe.getsockname()[1]
    with Client("127.0.0.1", port) as client:
        with pytest.raises(ConnectError, match="refused"):
            client.health()


def test_timeout() -> None:
    with FakeServer(FakeServer.SILENT) as fake, Client("127.0.0.1", fake.port, timeout=0.2) as client:
        started = time.monotonic()
        with pytest.raises(CallTimeoutError):
            client.is_subscriber("user-1", "premium")
        assert 0.19 <= time.monotonic() - started < 3


def test_connection_closed_mid_call() -> None:
    with FakeServer(FakeServer.HANG_UP) as fake, Client("127.0.0.1", fake.port) as client:
        with pytest.raises(ConnectionClosedError):
            client.is_subscriber_many([("a", "premium"), ("b", "premium")])


@pytest.mark.parametrize(
    "reply",
    [
        bytes.fromhex("00000000 00000000 03000000 00000000 0a7f61"),  # undecodable payload
        bytes.fromhex("00000000 00000000 00000080 00000000"),  # 2 GiB payload announced
        bytes.fromhex("00000000 03000000 00000000 00000000"),  # answer for another method
    ],
    ids=["undecodable", "oversized", "wrong-method"],
)
def test_bad_response(reply: bytes) -> None:
    with FakeServer(FakeServer.REPLY, reply) as fake, Client("127.0.0.1", fake.port) as client:
        with pytest.raises(BadResponseError):
            client.is_subscriber("user-1", "premium")


def test_closed_client_refuses_calls(server: ServerProcess) -> None:
    client = Client("127.0.0.1", server.port)
    assert client.health().status is ServingStatus.SERVING
    client.close()
    with pytest.raises(ConnectionClosedError):
        client.health()


def test_purchase_repr_hides_evidence() -> None:
    purchase = Purchase(user_id="u", store=Store.GOOGLE_PLAY, purchase_token="secret-token", product_id="p")
    assert "secret-token" not in repr(purchase)
    assert "<12 chars>" in repr(purchase)
