"""Authentication, Unix sockets, TLS and mutual TLS against the scripted fake server, for both
clients: what goes on the wire first, what a refusal raises, what verification refuses. The live
tests (test_live_security.py) do the same against a real `tollgate serve`."""

from __future__ import annotations

import asyncio
import ssl
from pathlib import Path

import pytest

from fake_server import FakeServer
from golden import golden
from tollgate import (
    AsyncClient,
    Client,
    ConnectError,
    ConnectionClosedError,
    Identity,
    TLSConfig,
    TLSError,
    UnauthenticatedError,
)

KEY = "example-key-0001"
AUTHENTICATED_THEN_ANSWER = golden("response-success-authenticate.hex") + golden("response-success-is-subscriber.hex")


def server_context(certs: Path, client_ca: bool = False) -> ssl.SSLContext:
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(certs / "server.pem", certs / "server.key")
    if client_ca:
        context.verify_mode = ssl.CERT_REQUIRED
        context.load_verify_locations(certs / "ca.pem")
    return context


def sync_round_trip(host: str, port: int, **options) -> Client:
    with Client(host, port, timeout=5.0, **options) as client:
        assert client.is_subscriber("user-42", "premium").active
        return client


def async_round_trip(host: str, port: int, **options) -> AsyncClient:
    async def main() -> AsyncClient:
        async with AsyncClient(host, port, timeout=5.0, **options) as client:
            assert (await client.is_subscriber("user-42", "premium")).active
            return client

    return asyncio.run(main())


ROUND_TRIPS = pytest.mark.parametrize("round_trip", [sync_round_trip, async_round_trip], ids=["sync", "async"])


@ROUND_TRIPS
def test_authenticate_goes_first(round_trip) -> None:
    with FakeServer(FakeServer.REPLY, AUTHENTICATED_THEN_ANSWER) as fake:
        client = round_trip("127.0.0.1", fake.port, caller="web", key=KEY)
        assert client.identity == Identity(caller="web", scopes=("read", "submit"))
    request = golden("request-authenticate.hex")
    assert fake.received[: len(request)] == request  # byte for byte the golden frame
    assert fake.received[len(request)] == 0  # then IsSubscriber


@ROUND_TRIPS
def test_refused_authentication_fails_the_connect(round_trip) -> None:
    secret = "never-print-this-key"
    with FakeServer(FakeServer.REPLY, golden("response-unauthenticated.hex")) as fake:
        with pytest.raises(UnauthenticatedError) as raised:
            round_trip("127.0.0.1", fake.port, caller="web", key=secret)
    assert "web" in str(raised.value) and "unknown caller or wrong key" in str(raised.value)
    assert secret not in str(raised.value) and secret not in repr(raised.value)
    assert not raised.value.retryable
    assert fake.received[0] == 4  # Authenticate was the first call


def test_the_key_stays_out_of_reprs() -> None:
    for client in (Client("127.0.0.1", 1, caller="web", key="hidden-key"),
                   AsyncClient("unix:/run/t.sock", caller="web", key="hidden-key")):
        assert "hidden-key" not in repr(client) and "web" in repr(client)
    with pytest.raises(ValueError):
        Client("127.0.0.1", 1, key="a-key-without-its-caller")
    with pytest.raises(ValueError):
        Client("127.0.0.1", 1, caller="web")


@ROUND_TRIPS
def test_unix_socket(round_trip, tmp_path: Path) -> None:
    path = str(tmp_path / "fake.sock")
    with FakeServer(FakeServer.REPLY, golden("response-success-is-subscriber.hex"), unix_path=path):
        round_trip(f"unix:{path}", 0)
    with pytest.raises(ConnectError, match="fake.sock"):
        round_trip(f"unix:{path}", 0)


@ROUND_TRIPS
@pytest.mark.parametrize("host,server_name", [("127.0.0.1", None), ("127.0.0.1", "localhost"), ("localhost", None)])
def test_tls_verified(round_trip, certs: Path, host: str, server_name: str | None) -> None:
    with FakeServer(FakeServer.REPLY, golden("response-success-is-subscriber.hex"), tls=server_context(certs)) as fake:
        round_trip(host, fake.port, tls=TLSConfig(ca_file=certs / "ca.pem", server_name=server_name))


@ROUND_TRIPS
@pytest.mark.parametrize(
    "ca,server_name,reason",
    [("other-ca.pem", None, "did not verify"), ("ca.pem", "tollgate.example", "did not verify"), (None, None, "did not verify")],
    ids=["unknown-ca", "wrong-name", "system-roots"],
)
def test_tls_refuses_an_unverified_server(round_trip, certs: Path, ca, server_name, reason) -> None:
    tls = TLSConfig(ca_file=certs / ca if ca else None, server_name=server_name)
    with FakeServer(FakeServer.REPLY, golden("response-success-is-subscriber.hex"), tls=server_context(certs)) as fake:
        with pytest.raises(TLSError, match=reason) as raised:
            round_trip("127.0.0.1", fake.port, tls=tls)
    assert not raised.value.retryable


@ROUND_TRIPS
def test_mutual_tls(round_trip, certs: Path) -> None:
    tls = TLSConfig(ca_file=certs / "ca.pem", certificate_file=certs / "client.pem",
                    private_key_file=certs / "client.key")
    context = server_context(certs, client_ca=True)
    with FakeServer(FakeServer.REPLY, AUTHENTICATED_THEN_ANSWER, tls=context) as fake:
        round_trip("127.0.0.1", fake.port, tls=tls, caller="web", key=KEY)


@ROUND_TRIPS
@pytest.mark.parametrize("certificate", [None, "other-client"], ids=["no-certificate", "untrusted-certificate"])
def test_mutual_tls_refuses_a_client_without_a_trusted_certificate(round_trip, certs: Path, certificate) -> None:
    tls = TLSConfig(
        ca_file=certs / "ca.pem",
        certificate_file=certs / f"{certificate}.pem" if certificate else None,
        private_key_file=certs / f"{certificate}.key" if certificate else None,
    )
    context = server_context(certs, client_ca=True)
    with FakeServer(FakeServer.REPLY, AUTHENTICATED_THEN_ANSWER, tls=context) as fake:
        with pytest.raises((TLSError, ConnectionClosedError)) as raised:
            round_trip("127.0.0.1", fake.port, tls=tls, caller="web", key=KEY)
    assert KEY not in str(raised.value)


@ROUND_TRIPS
def test_tls_over_a_unix_socket(round_trip, certs: Path, tmp_path: Path) -> None:
    path = str(tmp_path / "tls.sock")
    with pytest.raises(ValueError, match="server_name"):
        Client(f"unix:{path}", tls=TLSConfig(ca_file=certs / "ca.pem"))
    with FakeServer(FakeServer.REPLY, golden("response-success-is-subscriber.hex"), unix_path=path,
                    tls=server_context(certs)):
        round_trip(f"unix:{path}", 0, tls=TLSConfig(ca_file=certs / "ca.pem", server_name="localhost"))


def test_tls_files_that_do_not_load(certs: Path) -> None:
    with pytest.raises(OSError):
        Client("127.0.0.1", 1, tls=TLSConfig(ca_file=certs / "no-such-ca.pem"))
    with pytest.raises(ValueError):
        Client("127.0.0.1", 1, tls=TLSConfig(private_key_file=certs / "client.key"))
    with pytest.raises(ssl.SSLError):
        Client("127.0.0.1", 1, tls=TLSConfig(certificate_file=certs / "client.pem",
                                             private_key_file=certs / "server.key"))


def test_an_idle_tls_connection_is_kept(certs: Path) -> None:
    """TLS 1.3 session tickets arrive after the handshake: they must not make the idle connection
    look stale (the fake server takes one connection only, so a reconnection would fail)."""
    answers = golden("response-success-is-subscriber.hex") * 3
    tls = TLSConfig(ca_file=certs / "ca.pem")
    with FakeServer(FakeServer.REPLY, answers, tls=server_context(certs)) as fake:
        with Client("127.0.0.1", fake.port, pool_size=1, tls=tls) as client:
            for _ in range(3):
                assert client.is_subscriber("user-42", "premium").active
    with FakeServer(FakeServer.REPLY, answers, tls=server_context(certs)) as fake:
        async def main() -> None:
            async with AsyncClient("127.0.0.1", fake.port, tls=tls) as client:
                for _ in range(3):
                    assert (await client.is_subscriber("user-42", "premium")).active
                    await asyncio.sleep(0.01)

        asyncio.run(main())
