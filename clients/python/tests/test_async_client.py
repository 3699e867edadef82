"""The asyncio client against a real `tollgate serve`, plus a fake server for failures."""

from __future__ import annotations

import asyncio
import socket

import pytest

from fake_server import FakeServer
from live_server import ServerProcess
from tollgate import (
    AsyncClient,
    BadResponseError,
    CallTimeoutError,
    ConnectError,
    ConnectionClosedError,
    InvalidArgumentError,
    NotFoundError,
    Purchase,
    ServingStatus,
    Store,
    SubmissionStatus,
    SubscriptionState,
    TollgateError,
    TooManyPendingError,
)

from conftest import USERS


def run(coroutine):
    return asyncio.run(coroutine)


def test_happy_paths(server: ServerProcess) -> None:
    async def main() -> None:
        async with AsyncClient("127.0.0.1", server.port) as client:
            active = await client.is_subscriber("user-1", "premium")
            assert active.active and active.state is SubscriptionState.ACTIVE
            assert active.product_id == "premium_monthly"
            assert not (await client.is_subscriber("user-4", "premium")).active
            unknown = await client.is_subscriber("nobody", "premium")
            assert not unknown.active and unknown.state is SubscriptionState.UNSPECIFIED
            info = await client.get_subscription("user-1")
            assert info.user_id == "user-1" and info.subscriptions[0].entitlements == ("premium",)
            health = await client.health()
            assert health.status is ServingStatus.SERVING and health.index_users == USERS

    run(main())


def test_not_found_and_invalid_argument(server: ServerProcess) -> None:
    async def main() -> None:
        async with AsyncClient("127.0.0.1", server.port) as client:
            with pytest.raises(NotFoundError):
                await client.get_subscription("nobody")
            with pytest.raises(InvalidArgumentError):
                await client.is_subscriber("", "premium")
            with pytest.raises(InvalidArgumentError):
                await client.is_subscriber("u" * 300, "premium")
            with pytest.raises(InvalidArgumentError):
                await client.get_subscription("")
            assert (await client.is_subscriber("user-1", "premium")).active

    run(main())


def test_concurrent_calls_pipeline_on_one_connection(server: ServerProcess) -> None:
    async def main() -> None:
        async with AsyncClient("127.0.0.1", server.port) as client:
            users = [f"user-{i % (USERS + 10)}" for i in range(300)]
            users[11] = ""
            outcomes = await asyncio.gather(
                *(client.is_subscriber(user, "premium") for user in users), return_exceptions=True
            )
            assert isinstance(outcomes[11], InvalidArgumentError)
            for i, (user, outcome) in enumerate(zip(users, outcomes)):
                if i == 11:
                    continue
                number = int(user.removeprefix("user-"))
                expected = number < USERS and number % 5 != 4
                assert outcome.active is expected, user
            # Every call went over the one connection.
            assert client._links[0]._protocol is not None and client._links[0]._protocol.next_id == len(users) + 1

    run(main())


def test_server_restart_reconnects(own_server: ServerProcess) -> None:
    async def main() -> None:
        async with AsyncClient("127.0.0.1", own_server.port, connect_timeout=2.0) as client:
            assert (await client.is_subscriber("user-1", "premium")).active
            port = own_server.port
            own_server.stop()
            with pytest.raises(ConnectError) as raised:
                await client.is_subscriber("user-1", "premium")
            assert raised.value.retryable
            own_server.start(port)
            assert (await client.is_subscriber("user-1", "premium")).active
            # Restarted while the loop was blocked: the closed connection is noticed before sending.
            own_server.restart()
            assert (await client.is_subscriber("user-1", "premium")).active
            # Restarted while the loop ran: connection_lost already saw it.
            own_server.restart()
            await asyncio.sleep(0.1)
            assert (await client.health()).uptime_ms < 60_000

    run(main())


def test_too_many_pending(pending_server: ServerProcess) -> None:
    async def main() -> None:
        purchase = Purchase(user_id="buyer-1", store=Store.APP_STORE, receipt="2000000000777", wait_ms=1000)
        async with AsyncClient("127.0.0.1", pending_server.port) as client:
            outcomes = await asyncio.gather(*(client.submit_purchase(purchase) for _ in range(3)),
                                            return_exceptions=True)
            assert outcomes[0].status is SubmissionStatus.PENDING
            assert [type(o) for o in outcomes[1:]] == [TooManyPendingError, TooManyPendingError]
            # The connection is still good.
            assert (await client.is_subscriber("user-1", "premium")).active

    run(main())


def test_transport_failures() -> None:
    async def main() -> None:
        with socket.create_server(("127.0.0.1", 0)) as probe:
            port = probe.getsockname()[1]
        with pytest.raises(ConnectError):
            await AsyncClient("127.0.0.1", port).health()

        with FakeServer(FakeServer.SILENT) as fake:
            client = AsyncClient("127.0.0.1", fake.port, timeout=0.2)
            with pytest.raises(CallTimeoutError):
                await client.is_subscriber("user-1", "premium")
            await client.close()

        with FakeServer(FakeServer.HANG_UP) as fake:
            client = AsyncClient("127.0.0.1", fake.port)
            await client.connect()  # both calls are then written before the loop reads anything
            outcomes = await asyncio.gather(client.health(), client.health(), return_exceptions=True)
            assert all(isinstance(o, ConnectionClosedError) for o in outcomes), outcomes
            await client.close()

        with FakeServer(FakeServer.REPLY, bytes.fromhex("00000000 00000000 00000080 00000000")) as fake:
            client = AsyncClient("127.0.0.1", fake.port)
            with pytest.raises(BadResponseError):
                await client.is_subscriber("user-1", "premium")
            await client.close()

    run(main())


def test_closed_client_refuses_calls(server: ServerProcess) -> None:
    async def main() -> None:
        client = AsyncClient("127.0.0.1", server.port)
        assert (await client.health()).status is ServingStatus.SERVING
        await client.close()
        with pytest.raises(TollgateError):
            await client.health()

    run(main())
