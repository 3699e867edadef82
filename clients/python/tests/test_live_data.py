"""The clients against a real `tollgate serve` whose database holds what `tollgate seed` does not
write, put there with SQLite as the worker would: the catalog the worker saves at its start (with
access levels), and a Google Play subscription in billing retry with its reason and the purchases it
replaced. Submissions with Play Billing data are read back from the inbox the server wrote."""

from __future__ import annotations

import asyncio
import json
import sqlite3
import time
from dataclasses import replace
from pathlib import Path
from typing import Iterator

import pytest

from live_server import ServerProcess, seed
from tollgate import (
    AsyncClient,
    Client,
    InvalidArgumentError,
    Purchase,
    Store,
    SubmissionStatus,
    SubscriptionState,
)

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


def test_subscription_reason_and_replaces(data_server: ServerProcess) -> None:
    with Client("127.0.0.1", data_server.port, timeout=5.0) as client:
        (subscription,) = client.get_subscription("retry-user").subscriptions
        assert subscription.store_subscription_id == "tok-new"
        assert subscription.reason == "billing_retry"
        assert subscription.replaces == ("tok-old-2", "tok-old-1")
        seeded = client.get_subscription("user-0").subscriptions
        assert seeded and seeded[0].replaces == ()


PURCHASE_DATA = json.dumps(
    {
        "orderId": "GPA.3372-0000-0001-00000",
        "packageName": "com.example.app",
        "productId": "monthly",
        "purchaseTime": 1700000000000,
        "purchaseState": 0,
        "purchaseToken": "tok-py-1",
        "autoRenewing": True,
    },
    separators=(",", ":"),
)
SIGNATURE = "c2lnbmVkIGJ5IHBsYXk+Lz0="


def stored_submission(server: ServerProcess, submission_id: str) -> dict:
    """The submission the server stored in its inbox (as the worker reads it)."""
    db = sqlite3.connect(f"file:{server.database}?mode=ro", uri=True)
    try:
        (payload,) = db.execute("SELECT payload FROM inbox WHERE id = ?", (int(submission_id),)).fetchone()
    finally:
        db.close()
    return json.loads(payload)


def test_google_play_billing_data_is_sent(data_server: ServerProcess) -> None:
    purchase = Purchase(
        user_id="buyer-g", store=Store.GOOGLE_PLAY, purchase_token="tok-py-1", product_id="monthly",
        google_purchase_data=PURCHASE_DATA, google_signature=SIGNATURE,
    )
    assert PURCHASE_DATA not in repr(purchase) and SIGNATURE not in repr(purchase)
    with Client("127.0.0.1", data_server.port, timeout=5.0) as client:
        submitted = client.submit_purchase(purchase)
        assert submitted.status is SubmissionStatus.PENDING  # no worker runs
        stored = stored_submission(data_server, submitted.submission_id)
        assert stored["googlePurchaseData"] == PURCHASE_DATA
        assert stored["googleSignature"] == SIGNATURE
        assert stored["purchaseToken"] == "tok-py-1"

        # One without the other is refused by the server: it read the field that was sent.
        with pytest.raises(InvalidArgumentError, match="go together"):
            client.submit_purchase(replace(purchase, google_signature=""))
        with pytest.raises(InvalidArgumentError, match="go together"):
            client.submit_purchase(replace(purchase, google_purchase_data=""))

        many = client.submit_purchase_many([replace(purchase, purchase_token=f"tok-py-{n}") for n in (2, 3)])
        for outcome in many:
            assert not isinstance(outcome, Exception)
            assert stored_submission(data_server, outcome.submission_id)["googleSignature"] == SIGNATURE


def test_google_play_billing_data_async(data_server: ServerProcess) -> None:
    purchase = Purchase(
        user_id="buyer-h", store=Store.GOOGLE_PLAY, purchase_token="tok-py-9", product_id="monthly",
        google_purchase_data=PURCHASE_DATA, google_signature=SIGNATURE,
    )

    async def main() -> str:
        async with AsyncClient("127.0.0.1", data_server.port, timeout=5.0) as client:
            return (await client.submit_purchase(purchase)).submission_id

    stored = stored_submission(data_server, asyncio.run(main()))
    assert (stored["googlePurchaseData"], stored["googleSignature"]) == (PURCHASE_DATA, SIGNATURE)
