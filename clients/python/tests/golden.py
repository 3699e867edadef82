"""Reading proto/testdata/*.hex: hex digits, whitespace ignored, lines starting with '#' skipped."""

from __future__ import annotations

from live_server import REPO

GOLDEN_DIR = REPO / "proto" / "testdata"


def golden(name: str) -> bytes:
    lines = (GOLDEN_DIR / name).read_text().splitlines()
    return bytes.fromhex("".join("".join(line.split()) for line in lines if not line.startswith("#")))
