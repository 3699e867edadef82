"""The HTTP examples of docs/http-api.md (docs/examples/http/), run against a live
`tollgate serve --http-listen` where their tools exist: each prints the IsSubscriber answer the
door gives, for an entitled user, a user without access and a user id that needs encoding.
A tool that is missing skips its example, saying which."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Iterator

import pytest

from doors_server import REPO, DoorsServer
from http_server import start_http_only
from test_openapi import call

EXAMPLES = REPO / "docs" / "examples" / "http"


@pytest.fixture(scope="module")
def http(stock_database: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[DoorsServer]:
    server = start_http_only(stock_database, tmp_path_factory.mktemp("examples-serve"))
    yield server
    server.stop()


def command(example: str, tmp_path: Path) -> list[str]:
    tools = {
        "curl": (["curl", "jq"], ["sh", str(EXAMPLES / "is-subscriber.sh")]),
        "node": (["node"], ["node", str(EXAMPLES / "is-subscriber.mjs")]),
        "go": (["go"], ["go", "run", str(EXAMPLES / "is-subscriber.go")]),
        "java": (["java"], ["java", str(EXAMPLES / "IsSubscriber.java")]),
    }
    needed, arguments = tools[example]
    missing = [tool for tool in needed if shutil.which(tool) is None]
    if missing:
        pytest.skip(f"the {example} example needs {', '.join(missing)}, not installed here")
    return arguments


@pytest.mark.parametrize("example", ["curl", "node", "go", "java"])
def test_example_prints_the_doors_answer(example: str, http: DoorsServer, tmp_path: Path) -> None:
    arguments = command(example, tmp_path)
    environment = dict(os.environ, TOLLGATE_HTTP=f"http://127.0.0.1:{http.http_port}",
                       TOLLGATE_KEY=http.keys["reader"], GOCACHE=str(tmp_path / "gocache"),
                       GOPATH=str(tmp_path / "gopath"), GO111MODULE="off")
    # user-0 is entitled; user-4 is not (conftest's seed); the last is unknown and needs encoding.
    for user in ["user-0", "user-4", "a/b c%ü"]:
        ran = subprocess.run(arguments + [user, "premium"], capture_output=True, text=True, env=environment,
                             timeout=120)
        assert ran.returncode == 0, f"{example} {user}: {ran.stderr}"
        printed = json.loads(ran.stdout.strip().splitlines()[-1])
        expected = call(http.http_port, "GET", f"/v1/users/{quote(user)}/entitlements/premium", http.keys["reader"])[2]
        printed.pop("evaluatedAtMs", None)
        expected.pop("evaluatedAtMs", None)
        assert printed == expected, f"{example} {user}"
        assert printed.get("active", False) is (user == "user-0"), f"{example} {user}: {printed}"


def test_example_reports_a_problem_on_a_wrong_key(http: DoorsServer, tmp_path: Path) -> None:
    arguments = command("node", tmp_path)
    environment = dict(os.environ, TOLLGATE_HTTP=f"http://127.0.0.1:{http.http_port}", TOLLGATE_KEY="tgk_wrong")
    ran = subprocess.run(arguments + ["user-0", "premium"], capture_output=True, text=True, env=environment,
                         timeout=60)
    assert ran.returncode == 1
    assert "401 ERROR_CODE_UNAUTHENTICATED" in ran.stderr


def quote(text: str) -> str:
    from urllib.parse import quote as encode
    return encode(text, safe="")
