"""Gating a handler on an entitlement, for any web framework.

    @requires_entitlement(client, "premium", user_id_from=lambda request: request.user.id,
                          on_denied=lambda request: Response(status=403))
    def download(request): ...

With an :class:`~tollgate.AsyncClient`, decorate ``async def`` handlers the same way.
"""

from __future__ import annotations

import functools
import inspect
from typing import Any, Callable, TypeVar, Union

from .aio import AsyncClient
from .client import Client
from .models import IsSubscriberResult

F = TypeVar("F", bound=Callable[..., Any])


class EntitlementRequired(PermissionError):
    """Raised by a gated handler when the user lacks the entitlement and no ``on_denied`` is given.
    Frameworks usually map PermissionError subclasses to a 403 with a handler of their own."""

    def __init__(self, entitlement: str, result: IsSubscriberResult | None) -> None:
        super().__init__(f"the entitlement {entitlement!r} is required")
        self.entitlement = entitlement
        #: The server's answer (None when no user id was found).
        self.result = result


def requires_entitlement(
    client: Union[Client, AsyncClient],
    entitlement: str,
    *,
    user_id_from: Callable[..., str | None],
    on_denied: Callable[..., Any] | None = None,
) -> Callable[[F], F]:
    """Runs the handler only when the user is entitled now.

    ``user_id_from`` receives the handler's arguments and returns the user id (None or "" when
    there is none: denied without asking the server). When the user is not entitled,
    ``on_denied`` receives the same arguments and its value (awaited if awaitable) is returned
    instead of the handler's; without it, :class:`EntitlementRequired` is raised. Errors talking to
    Tollgate propagate: the handler never runs on an unknown answer.
    """

    def decorate(handler: F) -> F:
        def denied(result: IsSubscriberResult | None, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
            if on_denied is None:
                raise EntitlementRequired(entitlement, result)
            return on_denied(*args, **kwargs)

        if inspect.iscoroutinefunction(handler):
            if not isinstance(client, AsyncClient):
                raise TypeError("an async handler needs an AsyncClient")

            @functools.wraps(handler)
            async def gated_async(*args: Any, **kwargs: Any) -> Any:
                user_id = user_id_from(*args, **kwargs)
                result = await client.is_subscriber(user_id, entitlement) if user_id else None
                if result is None or not result.active:
                    outcome = denied(result, args, kwargs)
                    return await outcome if inspect.isawaitable(outcome) else outcome
                return await handler(*args, **kwargs)

            return gated_async  # type: ignore[return-value]

        if not isinstance(client, Client):
            raise TypeError("a plain (non-async) handler needs a Client")

        @functools.wraps(handler)
        def gated(*args: Any, **kwargs: Any) -> Any:
            user_id = user_id_from(*args, **kwargs)
            result = client.is_subscriber(user_id, entitlement) if user_id else None
            if result is None or not result.active:
                return denied(result, args, kwargs)
            return handler(*args, **kwargs)

        return gated  # type: ignore[return-value]

    return decorate


__all__ = ["EntitlementRequired", "requires_entitlement"]
