"""The hook both pipelines' clients call around each call, as httpx calls its event hooks
around each request: an observer is told when a call starts, when a card's answer
continues one, and how it ended. Nothing is replaced on a client; a client holds its
observers in `.observers` and calls each in turn (`design.call_history.CallHistory` is the
session's); `observed` declares a client's method an observed call. No I/O here: the
observers do their own."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Awaitable, Callable, Iterable, Mapping
from typing import Any, Protocol, TypeVar

M = TypeVar("M", bound=Callable[..., Any])
T = TypeVar("T")


class CallObserver(Protocol):
    """What a client tells its observers. `started` answers a token the client hands back
    to `ended`; `resumed` answers the token of the call a card's answer continues (None:
    not one this observer saw wait)."""

    def started(self, tool: str, operation: str, arguments: Mapping[str, Any]) -> Any: ...

    def resumed(self, pending: Any) -> Any: ...

    def ended(self, token: Any, result: Any = None,
              error: BaseException | None = None) -> None: ...


def started(observers: Iterable[CallObserver], tool: str, operation: str,
            arguments: Mapping[str, Any]) -> list[tuple[CallObserver, Any]]:
    """Tell each observer a call started; the (observer, token) pairs `ended` needs."""
    return [(o, o.started(tool, operation, arguments)) for o in observers]


def resumed(observers: Iterable[CallObserver], pending: Any) -> list[tuple[CallObserver, Any]]:
    """Tell each observer a card's answer continues `pending`; the pairs of those who saw
    it wait."""
    pairs = [(o, o.resumed(pending)) for o in observers]
    return [(o, token) for o, token in pairs if token is not None]


def ended(tokens: Iterable[tuple[CallObserver, Any]], result: Any = None,
          error: BaseException | None = None) -> None:
    """Tell each observer how its call ended: a result, or the error it raised."""
    for observer, token in tokens:
        observer.ended(token, result, error)


async def observe(tokens: list[tuple[CallObserver, Any]], work: Awaitable[T]) -> T:
    """Await a call's `work` and tell the observers of `tokens` how it ended."""
    try:
        result = await work
    except BaseException as error:
        ended(tokens, error=error)
        raise
    ended(tokens, result)
    return result


def observed(tool: str, name: str = "", kept: tuple[str, ...] = ()) -> Callable[[M], M]:
    """Declare an async method of a client an observed call: each call of it is told to
    the instance's `observers` as `name` (default: the method's own), with the arguments
    it was given (those that are None left out; with `kept`, only those)."""
    def declare(method: M) -> M:
        signature = inspect.signature(method)
        label = name or method.__name__

        @functools.wraps(method)
        async def call(self: Any, *args: Any, **kwargs: Any) -> Any:
            observers = getattr(self, "observers", ())
            if not observers:
                return await method(self, *args, **kwargs)
            try:
                bound = dict(signature.bind(self, *args, **kwargs).arguments)
                bound.pop(next(iter(bound)))  # the client itself
            except TypeError:  # the call itself raises it
                bound = dict(kwargs)
            shown = {k: v for k, v in bound.items() if v is not None and (not kept or k in kept)}
            return await observe(started(observers, tool, label, shown),
                                 method(self, *args, **kwargs))

        return call  # type: ignore[return-value]

    return declare
