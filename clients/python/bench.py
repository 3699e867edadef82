#!/usr/bin/env python3
"""IsSubscriber round trips per second on one connection, through the Python client: blocking and
asyncio, unpipelined (one call at a time) and pipelined (DEPTH calls in flight), against a seeded
server (`tollgate seed --users N`). Prints one line per mode.

    python bench.py [--server HOST:PORT] [--seconds S] [--depth N] [--users N] [--entitlement E]
"""

from __future__ import annotations

import argparse
import asyncio
import time

from tollgate import AsyncClient, Client


def report(mode: str, calls: int, elapsed: float) -> None:
    print(f"python {mode}: {calls / elapsed:.0f} round trips/s ({calls} calls in {elapsed:.2f} s, 1 connection)")


def sync_unpipelined(client: Client, args: argparse.Namespace) -> None:
    users = [f"user-{i}" for i in range(args.users)]
    calls, started = 0, time.perf_counter()
    while time.perf_counter() - started < args.seconds:
        for user in users[:256]:
            client.is_subscriber(user, args.entitlement)
        calls += min(256, len(users))
    report("sync unpipelined", calls, time.perf_counter() - started)


def sync_pipelined(client: Client, args: argparse.Namespace) -> None:
    queries = [(f"user-{i % args.users}", args.entitlement) for i in range(4096)]
    calls, started = 0, time.perf_counter()
    while time.perf_counter() - started < args.seconds:
        for outcome in client.is_subscriber_many(queries, max_in_flight=args.depth):
            if isinstance(outcome, Exception):
                raise outcome
        calls += len(queries)
    report(f"sync pipelined depth {args.depth}", calls, time.perf_counter() - started)


async def async_modes(host: str, port: int, args: argparse.Namespace) -> None:
    async with AsyncClient(host, port) as client:
        calls, started = 0, time.perf_counter()
        while time.perf_counter() - started < args.seconds:
            for i in range(256):
                await client.is_subscriber(f"user-{i % args.users}", args.entitlement)
            calls += 256
        report("asyncio unpipelined", calls, time.perf_counter() - started)

        done = 0
        started = time.perf_counter()
        deadline = started + args.seconds

        async def worker(offset: int) -> None:
            nonlocal done
            i = offset
            while time.perf_counter() < deadline:
                await client.is_subscriber(f"user-{i % args.users}", args.entitlement)
                i += args.depth
                done += 1

        await asyncio.gather(*(worker(n) for n in range(args.depth)))
        report(f"asyncio pipelined depth {args.depth}", done, time.perf_counter() - started)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--server", default="127.0.0.1:7701")
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--depth", type=int, default=16)
    parser.add_argument("--users", type=int, default=1000)
    parser.add_argument("--entitlement", default="premium")
    args = parser.parse_args()
    host, _, port = args.server.rpartition(":")
    with Client(host, int(port), pool_size=1) as client:
        sync_unpipelined(client, args)
        sync_pipelined(client, args)
    asyncio.run(async_modes(host, int(port), args))


if __name__ == "__main__":
    main()
