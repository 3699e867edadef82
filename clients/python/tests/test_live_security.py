"""Both clients against a real `tollgate serve` with callers configured (keys made by `tollgate
callers new`): authentication, scopes, GetSubmission, a Unix socket, a reconnection that
authenticates again, TLS and mutual TLS (with the CA clients/test-certs made for the run)."""

from __future__ import annotations

import asyncio
import json
import socket
from pathlib import Path
from typing import Iterator

import pytest

from conftest import USERS
from live_server import ServerProcess, new_caller
from tollgate import (
    AsyncClient,
    Client,
    ConnectionClosedError,
    InvalidArgumentError,
    NotFoundError,
    PermissionDeniedError,
    Purchase,
    Store,
    SubmissionStatus,
    TLSConfig,
    TLSError,
    UnauthenticatedError,
)

SCOPES = {"web": "read,submit", "reader": "read", "shop": "read,submit", "ops": "admin"}


@pytest.fixture(scope="session")
def keys() -> dict[str, tuple[str, dict]]:
    """name -> (key, config entry), from `tollgate callers new`."""
    return {name: new_caller(name, scopes) for name, scopes in SCOPES.items()}


def write_config(path: Path, keys: dict[str, tuple[str, dict]], **service) -> Path:
    path.write_text(json.dumps({"service": {"callers": [entry for _, entry in keys.values()], **service}}))
    return path


@pytest.fixture(scope="session")
def secured(database: Path, keys, tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """A server with callers configured and a Unix socket besides its TCP port."""
    directory = tmp_path_factory.mktemp("secured")
    config = write_config(directory / "tollgate.json", keys, unixSocket=str(directory / "tollgate.sock"))
    process = ServerProcess(database, directory / "serve.log", config)
    process.start()
    process.unix_socket = directory / "tollgate.sock"  # type: ignore[attr-defined]
    yield process
    process.stop()


def as_caller(keys, name: str) -> dict:
    return {"caller": name, "key": keys[name][0]}


def test_authenticated_caller(secured: ServerProcess, keys) -> None:
    with Client("127.0.0.1", secured.port, **as_caller(keys, "web")) as client:
        assert client.is_subscriber("user-1", "premium").active
        assert client.identity is not None and client.identity.caller == "web"
        assert set(client.identity.scopes) == {"read", "submit"}
        assert client.health().index_users == USERS


@pytest.mark.parametrize("caller", ["web", "nobody"])
def test_wrong_key_or_unknown_caller(secured: ServerProcess, keys, caller: str) -> None:
    wrong = keys["reader"][0]
    with Client("127.0.0.1", secured.port, caller=caller, key=wrong) as client:
        with pytest.raises(UnauthenticatedError) as raised:
            client.is_subscriber("user-1", "premium")
    assert wrong not in str(raised.value) and caller in str(raised.value)
    assert not raised.value.retryable


def test_calls_without_a_key_are_unauthenticated(secured: ServerProcess) -> None:
    with Client("127.0.0.1", secured.port) as client:
        with pytest.raises(UnauthenticatedError):
            client.is_subscriber("user-1", "premium")
        with pytest.raises(UnauthenticatedError):
            client.get_subscription("user-1")


def test_a_call_outside_the_scopes_is_permission_denied(secured: ServerProcess, keys) -> None:
    with Client("127.0.0.1", secured.port, pool_size=1, **as_caller(keys, "reader")) as client:
        assert client.is_subscriber("user-1", "premium").active
        with pytest.raises(PermissionDeniedError) as raised:
            client.submit_purchase(Purchase(user_id="buyer-5", store=Store.APP_STORE, receipt="2000000000780"))
        assert not raised.value.retryable
        with pytest.raises(PermissionDeniedError):
            client.get_submission("anything")
        assert client.is_subscriber("user-1", "premium").active  # the connection is still good


def test_get_submission(secured: ServerProcess, keys) -> None:
    purchase = Purchase(user_id="buyer-6", store=Store.APP_STORE, receipt="2000000000781")
    with Client("127.0.0.1", secured.port, **as_caller(keys, "web")) as web:
        submitted = web.submit_purchase(purchase)
        assert submitted.submission_id
        found = web.get_submission(submitted.submission_id)
        assert found.submission_id == submitted.submission_id
        assert found.status == submitted.status
        assert found.status in (SubmissionStatus.PENDING, SubmissionStatus.REJECTED)  # no worker runs
        assert found.user_id == "buyer-6"
        assert found.received_at_ms > 1_700_000_000_000
        with pytest.raises(NotFoundError):
            web.get_submission("999999999")
        with pytest.raises(InvalidArgumentError):  # not an id SubmitPurchase could have returned
            web.get_submission("no-such-submission")
    with Client("127.0.0.1", secured.port, **as_caller(keys, "shop")) as shop:
        with pytest.raises(NotFoundError):  # another caller's submission
            shop.get_submission(submitted.submission_id)
    with Client("127.0.0.1", secured.port, **as_caller(keys, "ops")) as ops:
        assert ops.get_submission(submitted.submission_id).user_id == "buyer-6"  # admin reads any


def test_async_client(secured: ServerProcess, keys) -> None:
    async def main() -> None:
        async with AsyncClient("127.0.0.1", secured.port, **as_caller(keys, "web")) as client:
            assert client.identity is not None and client.identity.caller == "web"
            results = await asyncio.gather(*(client.is_subscriber(f"user-{i}", "premium") for i in range(20)))
            assert [r.active for r in results] == [i % 5 != 4 for i in range(20)]
            submitted = await client.submit_purchase(
                Purchase(user_id="buyer-7", store=Store.APP_STORE, receipt="2000000000782"))
            found = await client.get_submission(submitted.submission_id)
            assert found.user_id == "buyer-7" and found.submission_id == submitted.submission_id

    async def refused() -> None:
        async with AsyncClient("127.0.0.1", secured.port, caller="web", key="not-the-key"):
            pass

    asyncio.run(main())
    with pytest.raises(UnauthenticatedError) as raised:
        asyncio.run(refused())
    assert "not-the-key" not in str(raised.value)


def test_unix_socket(secured: ServerProcess, keys) -> None:
    address = f"unix:{secured.unix_socket}"  # type: ignore[attr-defined]
    with Client(address, **as_caller(keys, "web")) as client:
        assert client.is_subscriber("user-1", "premium").active

    async def main() -> None:
        async with AsyncClient(address, **as_caller(keys, "web")) as client:
            assert (await client.is_subscriber("user-1", "premium")).active

    asyncio.run(main())
    with Client(address, caller="web", key="not-the-key") as client:
        with pytest.raises(UnauthenticatedError):
            client.health()


def test_reconnection_authenticates_again(database: Path, keys, tmp_path: Path) -> None:
    process = ServerProcess(database, tmp_path / "serve.log", write_config(tmp_path / "tollgate.json", keys))
    process.start()
    try:
        with Client("127.0.0.1", process.port, **as_caller(keys, "web")) as client:
            assert client.is_subscriber("user-1", "premium").active
            process.restart()
            assert client.is_subscriber("user-1", "premium").active
    finally:
        process.stop()


# ---- TLS ------------------------------------------------------------------------------------------


def free_port() -> int:
    with socket.create_server(("127.0.0.1", 0)) as probe:
        return probe.getsockname()[1]


@pytest.fixture(params=[False, True], ids=["tls", "mutual-tls"])
def tls_server(request, database: Path, keys, certs: Path, tmp_path: Path) -> Iterator[tuple[int, bool]]:
    """A server with callers and a TLS listener (with client certificates required, for mutual TLS)."""
    port = free_port()
    tls = {"listen": f"127.0.0.1:{port}", "certificateFile": str(certs / "server.pem"),
           "privateKeyFile": str(certs / "server.key")}
    if request.param:
        tls["clientCAFile"] = str(certs / "ca.pem")
    process = ServerProcess(database, tmp_path / "serve.log", write_config(tmp_path / "tollgate.json", keys, tls=tls))
    process.start()
    yield port, request.param
    process.stop()


def test_tls(tls_server, keys, certs: Path) -> None:
    port, mutual = tls_server
    client_certificate = {"certificate_file": certs / "client.pem", "private_key_file": certs / "client.key"}
    tls = TLSConfig(ca_file=certs / "ca.pem", **(client_certificate if mutual else {}))
    with Client("127.0.0.1", port, tls=tls, **as_caller(keys, "web")) as client:
        assert client.is_subscriber("user-1", "premium").active
        outcomes = client.is_subscriber_many([(f"user-{i % USERS}", "premium") for i in range(200)], max_in_flight=64)
        assert [o.active for o in outcomes] == [i % USERS % 5 != 4 for i in range(200)]

    async def main() -> None:
        async with AsyncClient("127.0.0.1", port, tls=tls, **as_caller(keys, "web")) as client:
            assert (await client.is_subscriber("user-1", "premium")).active

    asyncio.run(main())
    for wrong in (TLSConfig(ca_file=certs / "other-ca.pem"), TLSConfig(ca_file=certs / "ca.pem", server_name="x.example")):
        with Client("127.0.0.1", port, tls=wrong, **as_caller(keys, "web")) as client:
            with pytest.raises(TLSError, match="did not verify"):
                client.health()
    if mutual:
        for certificate in (None, "other-client"):
            without = TLSConfig(
                ca_file=certs / "ca.pem",
                certificate_file=certs / f"{certificate}.pem" if certificate else None,
                private_key_file=certs / f"{certificate}.key" if certificate else None,
            )
            with Client("127.0.0.1", port, tls=without, **as_caller(keys, "web")) as client:
                with pytest.raises((TLSError, ConnectionClosedError)):
                    client.health()
