"""A real `tollgate serve` for the tests: seeded with `tollgate seed`, started on a port (0: any
free one, read back from its "listening on HOST:PORT" line), stopped with SIGTERM.

The binary is $TOLLGATE_BIN, or the repository's .build/debug/tollgate (what `swift build` makes)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]
LISTENING = re.compile(rb"listening on [^\s]+:(\d+)")


def tollgate_bin() -> str:
    configured = os.environ.get("TOLLGATE_BIN")
    binary = configured or str(REPO / ".build" / "debug" / "tollgate")
    if not os.access(binary, os.X_OK):
        raise RuntimeError(f"no tollgate binary at {binary}: run `swift build` or set TOLLGATE_BIN")
    return binary


def new_caller(name: str, scopes: str) -> tuple[str, dict]:
    """`tollgate callers new NAME --scopes SCOPES`: the key it printed and the config entry."""
    output = subprocess.run([tollgate_bin(), "callers", "new", name, "--scopes", scopes], check=True,
                            capture_output=True, text=True).stdout
    fields = dict(line.split(": ", 1) for line in output.splitlines() if ": " in line)
    return fields["key"], json.loads(fields["entry"])


def seed(database: Path, users: int, inactive_share: float = 0.0) -> None:
    subprocess.run(
        [tollgate_bin(), "seed", "--database", str(database), "--users", str(users),
         "--inactive-share", str(inactive_share)],
        check=True, stdout=subprocess.DEVNULL,
    )


class ServerProcess:
    def __init__(self, database: Path, log: Path, config: Path | None = None) -> None:
        self.database = database
        self.log = log
        self.config = config
        self.process: subprocess.Popen[bytes] | None = None
        self.port = 0

    def start(self, port: int = 0) -> int:
        """Starts the server (on `port`, or any free one) and returns the port it listens on."""
        arguments = [tollgate_bin(), "serve", "--listen", f"127.0.0.1:{port}", "--database", str(self.database),
                     "--log-level", "warning"]
        if self.config is not None:
            arguments += ["--config", str(self.config)]
        offset = self.log.stat().st_size if self.log.exists() else 0
        with open(self.log, "ab") as log:
            self.process = subprocess.Popen(arguments, stdout=log, stderr=subprocess.STDOUT,
                                            stdin=subprocess.DEVNULL)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            with open(self.log, "rb") as log:
                log.seek(offset)
                found = LISTENING.search(log.read())
            if found:
                self.port = int(found.group(1))
                return self.port
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

    def restart(self) -> None:
        """Stops the server and starts it again on the same port."""
        port = self.port
        self.stop()
        self.start(port)

    def kill(self) -> None:
        """Kills the server with SIGKILL (no graceful shutdown: the kernel resets its connections)
        and waits until it is gone; `start(self.port)` brings it back on the same port."""
        if self.process is None:
            return
        self.process.kill()
        self.process.wait()
        self.process = None


def accepted_connections(port: int) -> int:
    """Open TCP connections a server on `port` accepted, as the kernel lists them: established
    sockets whose local port is `port` (/proc/net/tcp). A client's side of a connection has the
    port as its remote port and is not counted."""
    count = 0
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            with open(table) as rows:
                lines = rows.read().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            fields = line.split()
            # sl local_address rem_address st ...; an address is HEXIP:HEXPORT, st 01 is ESTABLISHED.
            if len(fields) > 3 and fields[3] == "01" and int(fields[1].rsplit(":", 1)[1], 16) == port:
                count += 1
    return count
