"""The stored OAuth credential and the places it lives: the OS keyring or a private JSON file.

A `Credential` holds its tokens as `Secret`s, so its repr never shows them; only `to_json`
reveals them, for the store that writes them. Every store error is a `CredentialStoreError`
whose message names the store and a reason, never the stored text — and no frame that
raises one holds that text in the clear (stored text is parsed by `_parse_stored`, which
returns a reason instead of raising), so a traceback that prints locals shows no token.
"""

from __future__ import annotations

import dataclasses
import json
import os
import stat
import tempfile
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol, TypeVar

from ..core.redaction import Secret
from ..errors import CredentialStoreError

KEYRING_SERVICE = "jupyter-design-projects"
KEYRING_USERNAME = "oauth-credential"
#: a keyring call that has not answered by then is treated as failed
KEYRING_TIMEOUT_S = 3.0
FILE_NAME = "credentials.json"
#: a credential file is a few hundred bytes; more than this is not read
MAX_STORED_BYTES = 1024 * 1024

T = TypeVar("T")


@dataclasses.dataclass(frozen=True)
class Credential:
    access_token: Secret
    refresh_token: Secret | None
    expires_at_ms: int
    scopes: tuple[str, ...]
    client_id: str

    @classmethod
    def from_json(cls, data: Any) -> Credential:
        """Parse the PROTOCOL §1 shape; a malformed field is named, its value never shown."""
        if not isinstance(data, dict):
            raise CredentialStoreError("credential", "malformed: not a JSON object")

        def field(name: str, kind: type | tuple[type, ...], required: bool = True) -> Any:
            value = data.get(name)
            if value is None and not required:
                return None
            if not isinstance(value, kind) or isinstance(value, bool):
                raise CredentialStoreError("credential", f"malformed: field {name!r}")
            return value

        access = field("access_token", str)
        refresh = field("refresh_token", str, required=False)
        scopes = field("scopes", list)
        if not access:
            raise CredentialStoreError("credential", "malformed: field 'access_token'")
        if not all(isinstance(s, str) for s in scopes):
            raise CredentialStoreError("credential", "malformed: field 'scopes'")
        return cls(
            access_token=Secret(access),
            refresh_token=Secret(refresh) if refresh else None,
            expires_at_ms=int(field("expires_at", (int, float))),
            scopes=tuple(scopes),
            client_id=field("client_id", str),
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "access_token": self.access_token.reveal(),
            "refresh_token": self.refresh_token.reveal() if self.refresh_token else None,
            "expires_at": self.expires_at_ms,
            "scopes": list(self.scopes),
            "client_id": self.client_id,
        }

    def secrets(self) -> tuple[Secret, ...]:
        return tuple(s for s in (self.access_token, self.refresh_token) if s is not None)


class CredentialStore(Protocol):
    def load(self) -> Credential | None: ...

    def save(self, cred: Credential) -> None: ...

    def delete(self) -> None:
        """Remove the stored credential (nothing stored is not an error)."""
        ...

    def describe(self) -> str: ...


class FileCredentialStore:
    """A JSON file of mode 0600, written atomically; refused when group or others have any
    access to it (a file others could read may already have leaked, one they could write
    may have been planted). A new directory is made 0700; with `private_dir` (the
    fallback store in the package's own data directory) an existing one is made 0700 too.
    An explicitly named file's existing directory is the person's and is left alone."""

    def __init__(self, path: Path | str, *, private_dir: bool = False) -> None:
        self.path = Path(path)
        self.private_dir = private_dir

    def describe(self) -> str:
        return f"file {self.path}"

    def load(self) -> Credential | None:
        try:
            fd = os.open(self.path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise CredentialStoreError(self.describe(), f"cannot open ({exc.strerror})") from None
        with os.fdopen(fd, "rb") as handle:
            info = os.fstat(handle.fileno())
            if not stat.S_ISREG(info.st_mode):
                raise CredentialStoreError(self.describe(), "not a regular file")
            if info.st_mode & 0o077:
                raise CredentialStoreError(
                    self.describe(),
                    f"group or others have access (mode {stat.S_IMODE(info.st_mode):04o}); "
                    "run chmod 600 on it after checking nobody else used it",
                )
            parsed = _parse_stored(handle.read(MAX_STORED_BYTES))
        if isinstance(parsed, str):
            raise CredentialStoreError(self.describe(), parsed)
        return parsed

    def save(self, cred: Credential) -> None:
        parent = self.path.parent
        try:
            if not parent.exists():
                parent.mkdir(mode=0o700, parents=True)
                os.chmod(parent, 0o700)
            elif self.private_dir and stat.S_IMODE(os.stat(parent).st_mode) != 0o700:
                os.chmod(parent, 0o700)
            fd, tmp = tempfile.mkstemp(prefix=".credentials-", suffix=".tmp", dir=parent)
        except OSError as exc:
            raise CredentialStoreError(self.describe(), f"cannot write ({exc.strerror})") from None
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                os.fchmod(handle.fileno(), 0o600)
                json.dump(cred.to_json(), handle)
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(tmp, self.path)
            _fsync_dir(parent)
        except OSError as exc:
            _unlink_quietly(tmp)
            raise CredentialStoreError(self.describe(), f"cannot write ({exc.strerror})") from None

    def delete(self) -> None:
        """Unlink the file (a link at its path is removed, never followed); a missing
        file is already deleted."""
        try:
            os.unlink(self.path)
        except FileNotFoundError:
            return
        except OSError as exc:
            raise CredentialStoreError(self.describe(),
                                       f"cannot delete ({exc.strerror})") from None
        _fsync_dir(self.path.parent)


class KeyringCredentialStore:
    """The credential as JSON in the OS keyring. Every keyring call runs under a deadline,
    and a save is read back (the null backend accepts writes and drops them)."""

    def __init__(
        self,
        service: str = KEYRING_SERVICE,
        username: str = KEYRING_USERNAME,
        *,
        backend: Any = None,
        timeout_s: float = KEYRING_TIMEOUT_S,
    ) -> None:
        self.service = service
        self.username = username
        self._backend = backend
        self._timeout_s = timeout_s

    def describe(self) -> str:
        return f"keyring {self.service}/{self.username}"

    def _keyring(self) -> Any:
        if self._backend is None:
            import keyring

            self._backend = keyring.get_keyring()
        return self._backend

    def load(self) -> Credential | None:
        parsed = _parse_stored(call_with_deadline(
            lambda: self._keyring().get_password(self.service, self.username),
            self._timeout_s,
            self.describe(),
        ))
        if isinstance(parsed, str):
            raise CredentialStoreError(self.describe(), parsed)
        return parsed

    def save(self, cred: Credential) -> None:
        call_with_deadline(
            lambda: self._keyring().set_password(
                self.service, self.username, json.dumps(cred.to_json())
            ),
            self._timeout_s,
            self.describe(),
        )
        if self.load() != cred:
            raise CredentialStoreError(self.describe(), "the keyring did not keep the credential")

    def delete(self) -> None:
        """Delete the keyring's entry (none there is already deleted), then read it back:
        an entry still there is an error."""

        def delete_entry() -> None:
            backend = self._keyring()
            if backend.get_password(self.service, self.username) is None:
                return
            backend.delete_password(self.service, self.username)

        call_with_deadline(delete_entry, self._timeout_s, self.describe())
        if call_with_deadline(
            lambda: self._keyring().get_password(self.service, self.username),
            self._timeout_s, self.describe(),
        ) is not None:
            raise CredentialStoreError(self.describe(),
                                       "the keyring still holds the credential")


def _parse_stored(raw: str | bytes | None) -> Credential | str | None:
    """A stored credential, None when nothing is stored, or the reason it is malformed.
    Returns the reason rather than raising: the raw text must not sit in a frame of the
    traceback of the error that reports it."""
    if raw is None:
        return None
    try:
        return Credential.from_json(json.loads(raw))
    except ValueError:
        return "malformed: not JSON"
    except CredentialStoreError as exc:
        return exc.reason


def call_with_deadline(fn: Callable[[], T], timeout_s: float, store: str) -> T:
    """Run a keyring call on a daemon thread and give up after `timeout_s` (a hung
    secret-service daemon must not hang the notebook, nor keep the interpreter alive)."""
    outcome: dict[str, Any] = {}

    def target() -> None:
        try:
            outcome["value"] = fn()
        except Exception as exc:  # reported by type only: keyring messages may echo input
            outcome["error"] = type(exc).__name__

    worker = threading.Thread(target=target, name="jdp-keyring", daemon=True)
    worker.start()
    worker.join(timeout_s)
    if worker.is_alive():
        raise CredentialStoreError(store, f"no answer within {timeout_s:g} s")
    if "error" in outcome:
        raise CredentialStoreError(store, f"the keyring failed ({outcome['error']})")
    return outcome["value"]


def keyring_is_usable(backend: Any) -> bool:
    """A real backend: not the `fail` one (no keyring) nor the `null` one (drops writes)."""
    module = type(backend).__module__
    if module in ("keyring.backends.fail", "keyring.backends.null"):
        return False
    if module == "keyring.backends.chainer":
        return bool(getattr(backend, "backends", ()))
    return True


def open_store(
    credentials_file: str | None,
    fallback_dir: Path,
    *,
    backend: Any = None,
    timeout_s: float = KEYRING_TIMEOUT_S,
) -> CredentialStore:
    """An explicit file when one is configured; else the keyring when it has a real
    backend; else a 0600 file in `fallback_dir`."""
    if credentials_file:
        return FileCredentialStore(Path(credentials_file).expanduser())
    if backend is None:
        try:
            import keyring

            backend = call_with_deadline(keyring.get_keyring, timeout_s, "keyring")
        except CredentialStoreError:
            backend = None
    if backend is not None and keyring_is_usable(backend):
        return KeyringCredentialStore(backend=backend, timeout_s=timeout_s)
    return FileCredentialStore(Path(fallback_dir) / FILE_NAME, private_dir=True)


def lock_path_for(store: CredentialStore, fallback_dir: Path) -> Path:
    """Where the cross-process lock of `store` lives: beside the file for a file store (so
    every process that uses that file shares the lock, whatever its data directory), in
    `fallback_dir` for the keyring."""
    if isinstance(store, FileCredentialStore):
        return store.path.with_name(store.path.name + ".lock")
    return Path(fallback_dir) / "credentials.lock"


def _fsync_dir(path: Path) -> None:
    try:
        fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _unlink_quietly(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass
