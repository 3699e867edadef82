from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Iterator

import pytest

from live_server import REPO, ServerProcess, seed

USERS = 50


@pytest.fixture(scope="session")
def database(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """user-0 .. user-49 with "premium"; every fifth (user-4, user-9, ...) without access."""
    path = tmp_path_factory.mktemp("db") / "tollgate.sqlite"
    seed(path, USERS, inactive_share=0.2)
    return path


@pytest.fixture(scope="session")
def server(database: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """One server shared by the tests that do not stop it."""
    process = ServerProcess(database, tmp_path_factory.mktemp("serve") / "serve.log")
    process.start()
    yield process
    process.stop()


@pytest.fixture
def own_server(database: Path, tmp_path: Path) -> Iterator[ServerProcess]:
    """A server of this test's own, free to stop and restart."""
    process = ServerProcess(database, tmp_path / "serve.log")
    process.start()
    yield process
    process.stop()


@pytest.fixture
def pending_server(database: Path, tmp_path: Path) -> Iterator[ServerProcess]:
    """A server that allows one deferred call (SubmitPurchase) in flight per connection."""
    config = tmp_path / "tollgate.json"
    config.write_text(json.dumps({"service": {"maxPendingPerConnection": 1}}))
    process = ServerProcess(database, tmp_path / "serve.log", config)
    process.start()
    yield process
    process.stop()


@pytest.fixture(scope="session")
def certs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A throwaway PKI made for this run by clients/test-certs: ca.pem, server.pem/.key,
    client.pem/.key, other-ca.pem, other-client.pem/.key."""
    directory = tmp_path_factory.mktemp("certs")
    subprocess.run([str(REPO / "clients" / "test-certs"), str(directory)], check=True)
    return directory
