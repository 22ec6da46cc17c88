"""The root of the error tree: `JdpError`, whose one constructor sets every field an error
class declares (and nothing else) and takes its message from the guidance table."""

from __future__ import annotations

from typing import Any, ClassVar, Self

from . import guidance

#: attributes of JdpError itself, never fields of a subclass
_OWN = frozenset({"kind", "message", "fields"})


def declared_fields(cls: type) -> tuple[str, ...]:
    """The fields `cls` declares, its ancestors' first, in declaration order: every
    annotated class attribute that is not a ClassVar."""
    names: list[str] = []
    for klass in reversed(cls.__mro__):
        for name, annotation in vars(klass).get("__annotations__", {}).items():
            if name in _OWN or name in names or str(annotation).startswith("ClassVar"):
                continue
            names.append(name)
    return tuple(names)


class JdpError(Exception):
    """Base of every error this package raises on purpose.

    A subclass declares its fields as annotations and passes each of them, by name, up
    to this constructor: a field declared but not passed, or passed but not declared, is
    a TypeError. The message is the error's line in `errors.guidance.GUIDANCE`, unless
    the raiser passes `message` (words only it knows, e.g. a token endpoint's answer).
    """

    #: a stable machine-readable kind, used in tool_result blocks and tests
    kind: ClassVar[str] = "error"
    message: str
    fields: dict[str, Any]

    def __init__(self, *, message: str | None = None, **fields: Any) -> None:
        names = declared_fields(type(self))
        if set(fields) != set(names):
            missing, extra = set(names) - set(fields), set(fields) - set(names)
            raise TypeError(f"{type(self).__name__}: fields missing {sorted(missing)}, "
                            f"not declared {sorted(extra)}")
        self.fields = {name: fields[name] for name in names}
        for name, value in self.fields.items():
            setattr(self, name, value)
        if message is None:
            message = guidance.line(self)
        self.message = message
        super().__init__(message)

    @property
    def next_step(self) -> str | None:
        """What the person can do next, from the guidance table (None: nothing to do)."""
        return guidance.next_step(self)

    def with_message(self, message: str) -> Self:
        """This error (same class, same fields) worded as `message`, for a line only the
        caller can complete (a did-you-mean, the configured URL). A subclass's constructor
        only names and derives its fields; this one sets them, so the twin is built by it
        from the fields, and checked as any error is."""
        twin = type(self).__new__(type(self))
        JdpError.__init__(twin, message=message, **self.fields)
        return twin

    def __str__(self) -> str:
        return self.message

    def __repr__(self) -> str:
        inner = ", ".join(f"{k}={v!r}" for k, v in self.fields.items())
        return f"{type(self).__name__}({inner})"

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"error": self.kind, "message": self.message}
        step = self.next_step
        if step:  # an agent reads this dict as the tool_result: it gets the step too
            out["next_step"] = step
        for k, v in self.fields.items():
            if isinstance(v, (str, int, float, bool, type(None), list, tuple, dict)):
                out[k] = v
        return out
