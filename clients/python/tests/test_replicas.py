"""Clients of two real `tollgate serve` replicas on one database (issue 27): calls spread over both,
every call answered while one replica is killed with SIGKILL, the client back on it once it
returns, and a submission never sent twice. Which replica took calls is read from the kernel's
list of the connections each accepted (accepted_connections), never from timing."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
import time
from pathlib import Path
from typing import Callable, Iterator

import pytest

from live_server import ServerProcess, accepted_connections, seed
from tollgate import AsyncClient, Client, ConnectionClosedError, Purchase, Store, SubmissionStatus


@pytest.fixture
def replicas(tmp_path: Path) -> Iterator[tuple[ServerProcess, ServerProcess]]:
    """Two replicas on one fresh database of 10 users (user-0 .. user-9, all with premium)."""
    database = tmp_path / "tollgate.sqlite"
    seed(database, 10)
    a = ServerProcess(database, tmp_path / "a.log")
    b = ServerProcess(database, tmp_path / "b.log")
    a.start()
    b.start()
    yield a, b
    a.stop()
    b.stop()


def eventually(condition: Callable[[], bool], timeout: float = 20.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.02)
    return False


def inbox_items(database: Path) -> int:
    with sqlite3.connect(f"file:{database}?mode=ro", uri=True) as connection:
        return connection.execute("SELECT COUNT(*) FROM inbox").fetchone()[0]


def test_sync_client_spreads_calls_and_fails_over(replicas: tuple[ServerProcess, ServerProcess]) -> None:
    a, b = replicas
    servers = [f"127.0.0.1:{a.port}", ("127.0.0.1", b.port)]
    with Client(servers=servers, pool_size=1, replica_backoff=0.2, replica_backoff_max=0.4) as client:
        assert client.servers == [f"127.0.0.1:{a.port}", f"127.0.0.1:{b.port}"]
        assert (accepted_connections(a.port), accepted_connections(b.port)) == (0, 0)
        for _ in range(10):
            assert client.is_subscriber("user-1", "premium").active
        assert accepted_connections(a.port) == 1, "replica A took no calls"
        assert accepted_connections(b.port) == 1, "replica B took no calls"

        # Two threads call on while A is killed: every call is answered.
        answered: list[int] = []
        failures: list[str] = []

        def lane() -> None:
            for _ in range(150):
                try:
                    if not client.is_subscriber("user-2", "premium").active:
                        failures.append("inactive")
                except Exception as error:  # noqa: BLE001 - every failure is reported
                    failures.append(repr(error))
                answered.append(1)

        threads = [threading.Thread(target=lane) for _ in range(2)]
        for thread in threads:
            thread.start()
        assert eventually(lambda: len(answered) >= 40)
        a.kill()
        for thread in threads:
            thread.join()
        assert failures == []
        assert accepted_connections(b.port) >= 1

        # A comes back on its port: after its back-off the client uses it again.
        a.start(int(servers[0].rsplit(":", 1)[1]))
        assert eventually(lambda: client.is_subscriber("user-3", "premium").active and accepted_connections(a.port) == 1)


def test_async_client_spreads_calls_and_fails_over(replicas: tuple[ServerProcess, ServerProcess]) -> None:
    a, b = replicas

    async def run() -> None:
        async with AsyncClient(servers=[f"127.0.0.1:{a.port}", f"127.0.0.1:{b.port}"], replica_backoff=0.2) as client:
            for _ in range(10):
                assert (await client.is_subscriber("user-1", "premium")).active
            assert accepted_connections(a.port) == 1, "replica A took no calls"
            assert accepted_connections(b.port) == 1, "replica B took no calls"
            # Many calls in flight on both connections when A is killed: all are answered.
            calls = [asyncio.ensure_future(client.is_subscriber(f"user-{n % 10}", "premium")) for n in range(200)]
            await asyncio.sleep(0)  # every call is written to its connection
            a.kill()
            results = await asyncio.gather(*calls)
            assert len(results) == 200
            for _ in range(20):
                assert (await client.health()).status is not None
            assert accepted_connections(b.port) == 1

    asyncio.run(run())


def test_submission_is_never_sent_twice(replicas: tuple[ServerProcess, ServerProcess]) -> None:
    a, b = replicas
    database = a.database
    before = inbox_items(database)
    outcome: list[object] = []
    with Client(servers=[f"127.0.0.1:{a.port}", f"127.0.0.1:{b.port}"], timeout=30.0) as client:
        purchase = Purchase(user_id="bob", store=Store.APP_STORE, receipt="2000000000000001", wait_ms=20_000)

        def submit() -> None:
            try:
                outcome.append(client.submit_purchase(purchase))
            except Exception as error:  # noqa: BLE001 - the test looks at it
                outcome.append(error)

        thread = threading.Thread(target=submit)
        thread.start()
        # No worker runs: replica A holds the call while it waits for a verification.
        assert eventually(lambda: inbox_items(database) == before + 1), "replica A never stored the submission"
        a.kill()
        thread.join()
    assert isinstance(outcome[0], ConnectionClosedError), outcome
    assert accepted_connections(b.port) == 0, "the submission went to replica B too"
    assert inbox_items(database) == before + 1

    # A is down before the next submission leaves: it goes to B.
    with Client(servers=[f"127.0.0.1:{a.port}", f"127.0.0.1:{b.port}"]) as client:
        answer = client.submit_purchase(
            Purchase(user_id="bob", store=Store.APP_STORE, receipt="2000000000000002", wait_ms=0)
        )
        assert answer.status is SubmissionStatus.PENDING
    assert inbox_items(database) == before + 2
