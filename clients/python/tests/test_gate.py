"""requires_entitlement gating sync and async handlers against a real server."""

from __future__ import annotations

import asyncio

import pytest

from live_server import ServerProcess
from tollgate import AsyncClient, Client, EntitlementRequired, InvalidArgumentError, requires_entitlement


def test_sync_handler(server: ServerProcess) -> None:
    calls: list[str] = []
    with Client("127.0.0.1", server.port) as client:
        @requires_entitlement(client, "premium", user_id_from=lambda request: request.get("user"),
                              on_denied=lambda request: "403")
        def handler(request: dict) -> str:
            calls.append(request["user"])
            return "200"

        assert handler({"user": "user-1"}) == "200"
        assert handler({"user": "user-4"}) == "403"   # inactive
        assert handler({"user": "nobody"}) == "403"
        assert handler({}) == "403"                    # no user id: the server is not asked
        assert calls == ["user-1"]
        assert handler.__name__ == "handler"


def test_sync_handler_without_on_denied_raises(server: ServerProcess) -> None:
    with Client("127.0.0.1", server.port) as client:
        @requires_entitlement(client, "premium", user_id_from=lambda user: user)
        def handler(user: str) -> str:
            return "ok"

        with pytest.raises(EntitlementRequired) as raised:
            handler("user-4")
        assert raised.value.entitlement == "premium"
        assert raised.value.result is not None and not raised.value.result.active
        assert handler("user-1") == "ok"


def test_errors_propagate_and_the_handler_does_not_run(server: ServerProcess) -> None:
    with Client("127.0.0.1", server.port) as client:
        @requires_entitlement(client, "", user_id_from=lambda user: user)
        def handler(user: str) -> str:
            raise AssertionError("must not run")

        with pytest.raises(InvalidArgumentError):
            handler("user-1")


def test_async_handler(server: ServerProcess) -> None:
    async def main() -> None:
        async with AsyncClient("127.0.0.1", server.port) as client:
            async def denied(user: str) -> str:
                return f"403 {user}"

            @requires_entitlement(client, "premium", user_id_from=lambda user: user, on_denied=denied)
            async def handler(user: str) -> str:
                return f"200 {user}"

            assert await handler("user-1") == "200 user-1"
            assert await handler("user-9") == "403 user-9"

    asyncio.run(main())


def test_handler_kind_must_match_client(server: ServerProcess) -> None:
    client = Client("127.0.0.1", server.port)
    with pytest.raises(TypeError):
        @requires_entitlement(client, "premium", user_id_from=lambda user: user)
        async def handler(user: str) -> str:
            return user
    client.close()
