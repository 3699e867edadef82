"""Fixtures shared by the stock-client tests (grpcio, Go, OpenAPI): one seeded database and one
`tollgate serve` with every door open and callers of each scope, for the whole session."""

from __future__ import annotations

from pathlib import Path
from typing import Iterator

import pytest

from doors_server import CALLERS, DoorsServer, new_caller, seed

USERS = 50
ENTITLEMENT = "premium"


@pytest.fixture(scope="session")
def stock_database(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """user-0 .. user-49 with "premium"; every fifth (user-4, user-9, ...) without access."""
    path = tmp_path_factory.mktemp("stock-db") / "tollgate.sqlite"
    seed(path, USERS, inactive_share=0.2)
    return path


@pytest.fixture(scope="session")
def doors(stock_database: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[DoorsServer]:
    """serve with the fast port, gRPC and HTTP on 127.0.0.1 (ports in `fast_port`, `grpc_port`,
    `http_port`) and the callers of CALLERS (keys in `keys`: reader, submitter, both, ops)."""
    made = {name: new_caller(name, scopes) for name, scopes in CALLERS.items()}
    # Wrong keys are part of the tests (on every door): a budget no test run uses up.
    limits = {"failedAuthenticationBurstPerSource": 1000, "failedAuthenticationsPerMinutePerSource": 1000}
    server = DoorsServer(stock_database, tmp_path_factory.mktemp("stock-serve"),
                         keys={name: key for name, (key, _) in made.items()}, extra_service=limits)
    server.start([entry for _, entry in made.values()])
    yield server
    server.stop()
