"""A stock Go gRPC client against `tollgate serve` as a process: Debian's grpc-go
(golang-google-grpc-dev) with stubs protoc-gen-go and protoc-gen-go-grpc generate from
proto/tollgate.proto into a temporary GOPATH, and clients/stock/go/tollgate-grpc-check built
against them in GOPATH mode. Skipped, saying why, where Go or grpc-go's sources are missing
(scripts/install-deps installs them)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from compare import same_fields, without
from conftest import ENTITLEMENT, USERS
from doors_server import REPO, DoorsServer
from fastport import answers

GOCODE = Path("/usr/share/gocode")
GRPC_GO = GOCODE / "src" / "google.golang.org" / "grpc"


def missing() -> str | None:
    for tool in ("go", "protoc", "protoc-gen-go", "protoc-gen-go-grpc"):
        if shutil.which(tool) is None:
            return f"{tool} not found (scripts/install-deps: golang-go, protoc-gen-go, protoc-gen-go-grpc)"
    if not GRPC_GO.is_dir():
        return f"no grpc-go sources at {GRPC_GO} (scripts/install-deps: golang-google-grpc-dev)"
    return None


pytestmark = pytest.mark.skipif(missing() is not None, reason=missing() or "")


@pytest.fixture(scope="module")
def check_binary(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """clients/stock/go/tollgate-grpc-check, built against stubs generated now."""
    gopath = tmp_path_factory.mktemp("gopath")
    package = gopath / "src" / "tollgate" / "v1"
    package.mkdir(parents=True)
    mapping = "Mtollgate.proto=tollgate/v1;tollgatev1"  # import path; package name
    subprocess.run(["protoc", f"-I{REPO / 'proto'}", f"--go_out={package}", "--go_opt=paths=source_relative",
                    f"--go_opt={mapping}", f"--go-grpc_out={package}", "--go-grpc_opt=paths=source_relative",
                    f"--go-grpc_opt={mapping}", "tollgate.proto"], check=True)
    binary = gopath / "tollgate-grpc-check"
    environment = dict(os.environ, GO111MODULE="off", GOPATH=f"{gopath}:{GOCODE}", GOFLAGS="")
    if "GOCACHE" not in environment and not environment.get("HOME"):
        environment["GOCACHE"] = str(gopath / "cache")  # else Go's own cache: grpc-go builds once
    subprocess.run(["go", "build", "-o", str(binary), "./clients/stock/go/tollgate-grpc-check"], check=True,
                   cwd=REPO, env=environment)
    return binary


def test_go_client_answers_as_the_fast_port_does(doors: DoorsServer, check_binary: Path) -> None:
    users = [f"user-{n}" for n in range(USERS)]
    environment = dict(os.environ, TOLLGATE_READ_KEY=doors.keys["reader"], TOLLGATE_SUBMIT_KEY=doors.keys["submitter"])
    run = subprocess.run([str(check_binary), "-addr", f"127.0.0.1:{doors.grpc_port}", "-entitlement", ENTITLEMENT,
                          *users], capture_output=True, text=True, env=environment, timeout=60)
    assert run.returncode == 0, run.stderr
    found = json.loads(run.stdout)

    fast = answers(doors.fast_port, "reader", doors.keys["reader"],
                   [["is_subscriber", user, ENTITLEMENT] for user in users]
                   + [["get_subscription", user] for user in users] + [["health"]])
    for n in range(USERS):
        same_fields(without(found["is_subscriber"][n], "evaluated_at_ms"), fast[n])
        same_fields(without(found["get_subscription"][n], "evaluated_at_ms"), fast[USERS + n])
    assert sum(answer["active"] for answer in found["is_subscriber"]) == USERS - USERS // 5
    health = found["health"]
    assert health["status"] == fast[-1]["status"] == 1  # SERVING
    assert int(health["index_users"]) == fast[-1]["index_users"] == USERS
    assert found["grpc_health"] == "SERVING"

    submitted = found["submit_purchase"]
    assert submitted["submission_id"]
    again = answers(doors.fast_port, "submitter", doors.keys["submitter"],
                    [["get_submission", submitted["submission_id"]]])[0]
    assert again["user_id"] == "buyer-go"
    assert again["status"] == submitted["status"]

    assert (found["no_key"], found["wrong_key"]) == ("Unauthenticated", "Unauthenticated")
    assert (found["read_key_submit"], found["read_key_grant"]) == ("PermissionDenied", "PermissionDenied")
