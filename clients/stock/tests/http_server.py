"""`tollgate serve` with the fast port and the HTTP door only, for the OpenAPI and doc-example
tests (the gRPC door is test_grpc_*'s): the callers of CALLERS in a callers file, port 0, the HTTP
port read back from the listening line `tollgate serve: listening on A and http:B, database ...`."""

from __future__ import annotations

import json
import re
import subprocess
import time
from pathlib import Path

from doors_server import CALLERS, DoorsServer, new_caller, tollgate_bin

HTTP_PORT = re.compile(rb"listening on .*?\bhttp:\S+?:(\d+)(?: and |, database )")


class HTTPOnly(DoorsServer):
    def start(self, entries: list[dict]) -> None:
        callers_file = self.directory / "callers.json"
        callers_file.write_text(json.dumps(entries))
        config = self.directory / "tollgate.json"
        config.write_text(json.dumps({"service": {"callersFile": str(callers_file), **self.extra_service}}))
        arguments = [tollgate_bin(), "serve", "--listen", "127.0.0.1:0", "--http-listen", "127.0.0.1:0",
                     "--database", str(self.database), "--config", str(config), "--log-level", "warning"]
        with open(self.log, "ab") as log:
            self.process = subprocess.Popen(arguments, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            found = HTTP_PORT.search(self.log.read_bytes())
            if found:
                self.http_port = int(found.group(1))
                return
            if self.process.poll() is not None:
                raise RuntimeError(f"tollgate serve exited with {self.process.returncode}; see {self.log}")
            time.sleep(0.02)
        self.stop()
        raise RuntimeError(f"tollgate serve did not listen within 30 s; see {self.log}")


def start_http_only(database: Path, directory: Path) -> HTTPOnly:
    made = {name: new_caller(name, scopes) for name, scopes in CALLERS.items()}
    # Wrong keys are part of the tests: a failed-authentication budget no run uses up.
    limits = {"failedAuthenticationBurstPerSource": 1000, "failedAuthenticationsPerMinutePerSource": 1000}
    server = HTTPOnly(database, directory, keys={name: key for name, (key, _) in made.items()}, extra_service=limits)
    server.start([entry for _, entry in made.values()])
    return server
