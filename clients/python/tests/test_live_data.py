"""The clients against a real `tollgate serve` whose database holds what `tollgate seed` does not
write, put there with SQLite as the worker would: the catalog the worker saves at its start (with
access levels), and a Google Play subscription in billing retry."""

from __future__ import annotations

import asyncio
import json
import sqlite3
import time
from pathlib import Path
from typing import Iterator

import pytest

from live_server import ServerProcess, seed
from tollgate import AsyncClient, Client, SubscriptionState

HOUR_MS = 3_600_000


def prepare(database: Path) -> None:
    """The worker's saved catalog with billing_retry read_only, and retry-user's Google Play
    purchase in billing retry (its period ended an hour ago), which replaced two others."""
    now = int(time.time() * 1000)
    with sqlite3.connect(database) as db:
        db.execute(
            "INSERT INTO catalog (id, catalog_json, saved_at_ms) VALUES (1, ?, ?)",
            (json.dumps({"accessLevels": {"billing_retry": "read_only"}}), now),
        )
        db.execute("INSERT INTO users (user_id, created_at_ms) VALUES ('retry-user', ?)", (now,))
        db.execute(
            "INSERT INTO entitlements (user_id, entitlement, source, store, product_id, environment, state,"
            " will_renew, expires_at_ms, access_ends_at_ms, verified_at_ms, reason, replaces)"
            " VALUES ('retry-user', 'premium', 'google_play:tok-new', 'google_play', 'monthly', 'production',"
            " 'billing_retry', 1, ?, ?, ?, 'billing_retry', 'tok-old-2 tok-old-1')",
            (now - HOUR_MS, now - HOUR_MS, now),
        )
    # sqlite3's context manager commits but does not close.
    db.close()


@pytest.fixture(scope="module")
def data_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    directory = tmp_path_factory.mktemp("live-data")
    database = directory / "tollgate.sqlite"
    seed(database, 2)
    prepare(database)
    process = ServerProcess(database, directory / "serve.log")
    process.start()
    yield process
    process.stop()


def test_access_level_in_billing_retry(data_server: ServerProcess) -> None:
    with Client("127.0.0.1", data_server.port, timeout=5.0) as client:
        result = client.is_subscriber("retry-user", "premium")
        assert result.active is False
        assert result.state is SubscriptionState.BILLING_RETRY
        assert result.access_level == "read_only"
        assert client.is_subscriber("nobody", "premium").access_level == ""
        info = client.get_subscription("retry-user")
        assert [(e.entitlement, e.access_level) for e in info.entitlements] == [("premium", "read_only")]


def test_access_level_async(data_server: ServerProcess) -> None:
    async def main() -> str:
        async with AsyncClient("127.0.0.1", data_server.port, timeout=5.0) as client:
            return (await client.is_subscriber("retry-user", "premium")).access_level

    assert asyncio.run(main()) == "read_only"
