"""The fast port's answers, through clients/python's client, for comparing with another door.

Run as its own process (`answers(...)`), so that the client's generated tollgate_pb2 and the one
grpcio-tools generates for the test never share a descriptor pool. Reads on stdin
{"port", "caller", "key", "calls": [...]}, each call one of ["is_subscriber", USER, ENTITLEMENT],
["get_subscription", USER], ["get_submission", ID], ["submit_purchase", USER, STORE, RECEIPT],
["health"]; prints one JSON list: each call's result as its dataclass' fields (proto field names,
enums as numbers), or {"error": "<exception class>"}."""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
from pathlib import Path

CLIENT_SOURCE = Path(__file__).resolve().parents[2] / "python" / "src"


def answers(port: int, caller: str, key: str, calls: list[list[str]]) -> list[dict]:
    """Asks the fast port on 127.0.0.1:`port` as `caller`; one answer per call, in order."""
    environment = dict(os.environ, PYTHONPATH=str(CLIENT_SOURCE))
    request = json.dumps({"port": port, "caller": caller, "key": key, "calls": calls})
    output = subprocess.run([sys.executable, __file__], input=request, capture_output=True, text=True,
                            env=environment, timeout=60)
    if output.returncode != 0:
        raise RuntimeError(f"fastport.py failed: {output.stderr}")
    return json.loads(output.stdout)


def _main() -> None:
    from tollgate import Client, Purchase, Store  # clients/python, on PYTHONPATH

    request = json.load(sys.stdin)
    results = []
    with Client("127.0.0.1", request["port"], caller=request["caller"], key=request["key"], pool_size=1) as client:
        for name, *arguments in request["calls"]:
            if name == "submit_purchase":
                user, store, receipt = arguments
                arguments = [Purchase(user_id=user, store=Store(store), receipt=receipt)]
            try:
                results.append(dataclasses.asdict(getattr(client, name)(*arguments)))
            except Exception as error:  # noqa: BLE001 - reported, not handled
                results.append({"error": type(error).__name__})
    json.dump(results, sys.stdout)


if __name__ == "__main__":
    _main()
