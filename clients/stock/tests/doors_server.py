"""A real `tollgate serve` with all three doors open, for the stock-client tests: seeded with
`tollgate seed`, callers made with `tollgate callers new` and given in a callers file, started on
port 0 everywhere (`--listen`, `--grpc-listen`, `--http-listen`) and read back from its line
`tollgate serve: listening on A and grpc:B and http:C, database ...`; stopped with SIGTERM.

The binary is $TOLLGATE_BIN, or the repository's .build/debug/tollgate."""

from __future__ import annotations

import json
import os
import re
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]
LISTENING = re.compile(rb"listening on (.*), database ")
FAST_PORT = re.compile(rb"^\S+?:(\d+)")
DOOR_PORT = {door: re.compile(rb"(?:^| and )" + door + rb":\S+?:(\d+)(?: |$)") for door in (b"grpc", b"http")}

# The callers every test may use: name -> scopes.
CALLERS = {"reader": "read", "submitter": "submit", "both": "read,submit", "ops": "admin"}


def tollgate_bin() -> str:
    binary = os.environ.get("TOLLGATE_BIN") or str(REPO / ".build" / "debug" / "tollgate")
    if not os.access(binary, os.X_OK):
        raise RuntimeError(f"no tollgate binary at {binary}: run `swift build` or set TOLLGATE_BIN")
    return binary


def seed(database: Path, users: int, inactive_share: float) -> None:
    subprocess.run([tollgate_bin(), "seed", "--database", str(database), "--users", str(users),
                    "--inactive-share", str(inactive_share)], check=True, stdout=subprocess.DEVNULL)


def new_caller(name: str, scopes: str) -> tuple[str, dict]:
    """`tollgate callers new NAME --scopes SCOPES`: the key it printed and the config entry."""
    output = subprocess.run([tollgate_bin(), "callers", "new", name, "--scopes", scopes], check=True,
                            capture_output=True, text=True).stdout
    fields = dict(line.split(": ", 1) for line in output.splitlines() if ": " in line)
    return fields["key"], json.loads(fields["entry"])


@dataclass
class DoorsServer:
    """`tollgate serve` with the fast port, the gRPC door and the HTTP door, all on 127.0.0.1."""

    database: Path
    directory: Path
    keys: dict[str, str]  # caller name -> key
    process: subprocess.Popen[bytes] | None = None
    fast_port: int = 0
    grpc_port: int = 0
    http_port: int = 0
    extra_service: dict = field(default_factory=dict)

    @property
    def log(self) -> Path:
        return self.directory / "serve.log"

    def start(self, entries: list[dict]) -> None:
        callers_file = self.directory / "callers.json"
        callers_file.write_text(json.dumps(entries))
        config = self.directory / "tollgate.json"
        config.write_text(json.dumps({"service": {"callersFile": str(callers_file), **self.extra_service}}))
        arguments = [tollgate_bin(), "serve", "--listen", "127.0.0.1:0", "--grpc-listen", "127.0.0.1:0",
                     "--http-listen", "127.0.0.1:0", "--database", str(self.database), "--config", str(config),
                     "--log-level", "warning"]
        with open(self.log, "ab") as log:
            self.process = subprocess.Popen(arguments, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            found = LISTENING.search(self.log.read_bytes())
            if found:
                listeners = found.group(1)
                ports = [FAST_PORT.search(listeners), DOOR_PORT[b"grpc"].search(listeners),
                         DOOR_PORT[b"http"].search(listeners)]
                if None in ports:
                    self.stop()
                    raise RuntimeError(f"tollgate serve did not open every door: {listeners!r}; see {self.log}")
                self.fast_port, self.grpc_port, self.http_port = (int(port.group(1)) for port in ports)
                return
            if self.process.poll() is not None:
                raise RuntimeError(f"tollgate serve exited with {self.process.returncode}; see {self.log}")
            time.sleep(0.02)
        self.stop()
        raise RuntimeError(f"tollgate serve did not listen within 30 s; see {self.log}")

    def stop(self) -> None:
        if self.process is None:
            return
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.process = None
