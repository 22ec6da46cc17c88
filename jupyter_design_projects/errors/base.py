"""The root of the error tree: `JdpError`, whose one constructor sets every field an error
class declares (and nothing else), takes its message and its remedy from the guidance
table, and words the remedy for a plain-Python reader in `str(error)`."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar, Self

if TYPE_CHECKING:
    from .remedy import Remedy

#: attributes of JdpError itself, never fields of a subclass
_OWN = frozenset({"kind", "message", "fields", "remedy"})


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
    the raiser passes `message` (words only it knows, e.g. a token endpoint's answer);
    the remedy (`remedy.Remedy`, data) is the row's, unless the raiser passes one.

    `str(error)` is the message and the remedy worded as a Python call ("<line>. Next:
    <call>."); the notebook words the same remedy as a magic at its boundary. The
    wording modules load when an error is first built, so code that only declares or
    catches errors (the reference service) loads none of them.
    """

    #: a stable machine-readable kind, used in tool_result blocks and tests
    kind: ClassVar[str] = "error"
    message: str
    fields: dict[str, Any]
    #: what the person can do next, as data (None: nothing to do)
    remedy: Remedy | None

    def __init__(self, *, message: str | None = None, remedy: Remedy | None = None,
                 **fields: Any) -> None:
        from . import guidance

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
        self.remedy = remedy if remedy is not None else guidance.remedy(self)
        super().__init__(message)

    @property
    def next_step(self) -> str | None:
        """What the person can do next, worded for a plain-Python reader (a call of the
        public API), or None."""
        from .calls import as_call

        return as_call(self.remedy)

    def with_message(self, message: str) -> Self:
        """This error (same class, same fields, same remedy) worded as `message`, for a
        line only the caller can complete (a did-you-mean, the configured URL). A
        subclass's constructor only names and derives its fields; this one sets them, so
        the twin is built by it from the fields, and checked as any error is."""
        twin = type(self).__new__(type(self))
        JdpError.__init__(twin, message=message, remedy=self.remedy, **self.fields)
        return twin

    def __str__(self) -> str:
        from .guidance import with_next

        return with_next(self.message, self.next_step)

    def __repr__(self) -> str:
        inner = ", ".join(f"{k}={v!r}" for k, v in self.fields.items())
        return f"{type(self).__name__}({inner})"

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"error": self.kind, "message": self.message}
        step = self.next_step
        if step:  # an agent reads this dict as the tool_result: it gets the step too
            out["next_step"] = step
        if self.remedy is not None:
            out["remedy"] = self.remedy.to_dict()
        for k, v in self.fields.items():
            if isinstance(v, (str, int, float, bool, type(None), list, tuple, dict)):
                out[k] = v
        return out
