"""The credential stores: the PROTOCOL §1 shape, the private file, the keyring with its deadline,
and which store is chosen."""

import errno
import json
import os
import stat
import threading

import pytest
from hypothesis import given
from hypothesis import strategies as st
from keyring.backends import fail, null

from jupyter_design_projects.core.redaction import REDACTED, Secret
from jupyter_design_projects.errors import CredentialStoreError
from jupyter_design_projects.transport.credentials import (
    KEYRING_SERVICE,
    KEYRING_USERNAME,
    MAX_STORED_BYTES,
    Credential,
    FileCredentialStore,
    KeyringCredentialStore,
    keyring_is_usable,
    lock_path_for,
    open_store,
)
from tests.transport.transport_doubles import MemoryKeyring, make_cred

WIRE = {
    "access_token": "at-wire-00000001",
    "refresh_token": "rt-wire-00000001",
    "expires_at": 1_700_000_000_000,
    "scopes": ["user:profile", "user:inference"],
    "client_id": "jdp-notebook-client",
}


def mode(path):
    return stat.S_IMODE(os.stat(path).st_mode)


# ---------------------------------------------------------------- Credential


def test_credential_round_trips_the_protocol_shape():
    cred = Credential.from_json(WIRE)
    assert cred.expires_at_ms == WIRE["expires_at"]
    assert cred.scopes == ("user:profile", "user:inference")
    assert cred.to_json() == WIRE


def test_credential_without_refresh_token_round_trips():
    cred = Credential.from_json({**WIRE, "refresh_token": None})
    assert cred.refresh_token is None
    assert cred.to_json()["refresh_token"] is None


def test_credential_repr_shows_no_token():
    text = repr(Credential.from_json(WIRE)) + str(Credential.from_json(WIRE))
    assert "at-wire" not in text and "rt-wire" not in text
    assert REDACTED in text


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"access_token": ""}, "access_token"),
        ({"access_token": 5}, "access_token"),
        ({"refresh_token": 5}, "refresh_token"),
        ({"expires_at": "soon"}, "expires_at"),
        ({"expires_at": True}, "expires_at"),
        ({"scopes": "user:profile"}, "scopes"),
        ({"scopes": [1]}, "scopes"),
        ({"client_id": None}, "client_id"),
    ],
)
def test_malformed_credential_names_the_field_and_never_its_value(change, field):
    with pytest.raises(CredentialStoreError) as info:
        Credential.from_json({**WIRE, **change})
    assert field in info.value.reason
    assert "at-wire" not in str(info.value)


# ---------------------------------------------------------------- file store


def test_file_store_writes_mode_0600_in_a_new_0700_directory(tmp_path):
    path = tmp_path / "new" / "dir" / "credentials.json"
    store = FileCredentialStore(path)
    store.save(make_cred())
    assert mode(path) == 0o600
    assert mode(path.parent) == 0o700
    assert store.load() == make_cred()


def test_file_store_leaves_no_temporary_file_behind(tmp_path):
    store = FileCredentialStore(tmp_path / "credentials.json")
    store.save(make_cred())
    store.save(make_cred(access_token=Secret("at-second-0001")))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["credentials.json"]
    assert store.load().access_token == Secret("at-second-0001")


def test_file_store_keeps_the_old_file_when_the_write_fails(tmp_path, monkeypatch):
    store = FileCredentialStore(tmp_path / "credentials.json")
    store.save(make_cred())

    def broken(src, dst):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", broken)
    with pytest.raises(CredentialStoreError):
        store.save(make_cred(access_token=Secret("at-second-0001")))
    monkeypatch.undo()
    assert store.load() == make_cred()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["credentials.json"]


def test_file_store_without_a_file_loads_nothing(tmp_path):
    assert FileCredentialStore(tmp_path / "absent.json").load() is None


@pytest.mark.parametrize(
    ("file_mode", "refused"),
    [(0o600, False), (0o400, False), (0o640, True), (0o604, True), (0o620, True),
     (0o602, True)],
)
def test_file_store_refuses_a_file_group_or_others_can_access(tmp_path, file_mode, refused):
    path = tmp_path / "credentials.json"
    path.write_text(json.dumps(WIRE))
    os.chmod(path, file_mode)
    store = FileCredentialStore(path)
    if refused:
        with pytest.raises(CredentialStoreError) as info:
            store.load()
        assert "at-wire" not in str(info.value)
    else:
        assert store.load().access_token == Secret(WIRE["access_token"])


def test_file_store_refuses_a_symlink(tmp_path):
    real = tmp_path / "real.json"
    real.write_text(json.dumps(WIRE))
    os.chmod(real, 0o600)
    (tmp_path / "credentials.json").symlink_to(real)
    with pytest.raises(CredentialStoreError):
        FileCredentialStore(tmp_path / "credentials.json").load()


def test_file_store_malformed_json_is_reported_without_its_content(tmp_path):
    path = tmp_path / "credentials.json"
    path.write_text('{"access_token": "at-leaky-000001", oops')
    os.chmod(path, 0o600)
    with pytest.raises(CredentialStoreError) as info:
        FileCredentialStore(path).load()
    assert "at-leaky" not in str(info.value)
    assert info.value.__context__ is None or info.value.__suppress_context__


# ---------------------------------------------------------------- keyring store


class HangingKeyring:
    def __init__(self):
        self.release = threading.Event()

    def get_password(self, service, username):
        self.release.wait(10)
        return None

    set_password = get_password


def test_keyring_store_saves_and_reads_back(tmp_path):
    store = KeyringCredentialStore(backend=MemoryKeyring())
    store.save(make_cred())
    assert store.load() == make_cred()


def test_keyring_null_backend_dropping_the_write_is_an_error():
    with pytest.raises(CredentialStoreError) as info:
        KeyringCredentialStore(backend=null.Keyring()).save(make_cred())
    assert "keyring" in info.value.store


def test_keyring_fail_backend_is_an_error_naming_only_the_exception_type():
    with pytest.raises(CredentialStoreError) as info:
        KeyringCredentialStore(backend=fail.Keyring()).load()
    assert "NoKeyringError" in info.value.reason


def test_hanging_keyring_is_given_up_after_its_deadline():
    backend = HangingKeyring()
    try:
        with pytest.raises(CredentialStoreError) as info:
            KeyringCredentialStore(backend=backend, timeout_s=0.05).load()
        assert "0.05" in info.value.reason
    finally:
        backend.release.set()


# ---------------------------------------------------------------- choosing a store


def test_explicit_credentials_file_wins(tmp_path):
    store = open_store(str(tmp_path / "explicit.json"), tmp_path / "fallback",
                       backend=MemoryKeyring())
    assert isinstance(store, FileCredentialStore)
    assert store.path == tmp_path / "explicit.json"


@pytest.mark.parametrize("backend", [fail.Keyring(), null.Keyring()])
def test_keyring_without_a_real_backend_falls_back_to_the_private_file(tmp_path, backend):
    store = open_store(None, tmp_path / "fallback", backend=backend)
    assert isinstance(store, FileCredentialStore)
    store.save(make_cred())
    assert mode(store.path) == 0o600
    assert mode(tmp_path / "fallback") == 0o700


@pytest.mark.parametrize("dir_mode", [0o755, 0o750, 0o701])
def test_fallback_file_makes_its_existing_data_directory_0700(tmp_path, dir_mode):
    data = tmp_path / "data"
    data.mkdir()
    os.chmod(data, dir_mode)  # e.g. made by mkdir with the default umask
    store = open_store(None, data, backend=fail.Keyring())
    store.save(make_cred())
    assert mode(data) == 0o700
    assert mode(store.path) == 0o600


def test_explicit_file_leaves_its_existing_directory_alone(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    os.chmod(home, 0o755)
    store = open_store(str(home / "credentials.json"), tmp_path / "data",
                       backend=fail.Keyring())
    store.save(make_cred())
    assert mode(home) == 0o755
    assert mode(store.path) == 0o600


def test_default_keyring_lookup_with_the_fail_backend_falls_back(tmp_path, monkeypatch):
    import keyring

    monkeypatch.setattr(keyring, "get_keyring", lambda: fail.Keyring())
    assert isinstance(open_store(None, tmp_path), FileCredentialStore)


def test_a_real_keyring_backend_is_used(tmp_path):
    assert isinstance(open_store("", tmp_path, backend=MemoryKeyring()), KeyringCredentialStore)


def test_file_store_lock_lives_beside_the_file(tmp_path):
    store = FileCredentialStore(tmp_path / "shared" / "credentials.json")
    assert lock_path_for(store, tmp_path / "data") == tmp_path / "shared" / "credentials.json.lock"


def test_keyring_store_lock_lives_in_the_data_directory(tmp_path):
    store = KeyringCredentialStore(backend=MemoryKeyring())
    assert lock_path_for(store, tmp_path) == tmp_path / "credentials.lock"


# ---------------------------------------------------------------- the stored shape, exactly


@given(
    access=st.text(min_size=1, max_size=40),
    refresh=st.one_of(st.none(), st.text(min_size=1, max_size=40)),
    expires=st.integers(min_value=0, max_value=2**53),
    scopes=st.lists(st.text(max_size=20), max_size=6),
    client=st.text(max_size=30),
)
def test_every_well_formed_credential_survives_its_round_trip(access, refresh, expires,
                                                               scopes, client):
    wire = {"access_token": access, "refresh_token": refresh, "expires_at": expires,
            "scopes": scopes, "client_id": client}
    cred = Credential.from_json(wire)
    assert cred == Credential(Secret(access), None if refresh is None else Secret(refresh),
                              expires, tuple(scopes), client)
    assert cred.to_json() == wire
    assert cred.secrets() == tuple(s for s in (Secret(access), cred.refresh_token) if s)


@pytest.mark.parametrize("data", [None, [], "text", 5, [WIRE]])
def test_a_stored_value_that_is_not_an_object_is_malformed(data):
    with pytest.raises(CredentialStoreError) as info:
        Credential.from_json(data)
    assert (info.value.store, info.value.reason) == ("credential", "malformed: not a JSON object")


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"access_token": ""}, "access_token"),
        ({"access_token": None}, "access_token"),
        ({"access_token": True}, "access_token"),
        ({"refresh_token": 5}, "refresh_token"),
        ({"refresh_token": False}, "refresh_token"),
        ({"expires_at": None}, "expires_at"),
        ({"expires_at": "1700000000000"}, "expires_at"),
        ({"expires_at": False}, "expires_at"),
        ({"scopes": None}, "scopes"),
        ({"scopes": ("a",)}, "scopes"),
        ({"scopes": ["a", None]}, "scopes"),
        ({"client_id": 5}, "client_id"),
        ({"client_id": True}, "client_id"),
    ],
)
def test_each_malformed_field_is_named_exactly(change, field):
    with pytest.raises(CredentialStoreError) as info:
        Credential.from_json({**WIRE, **change})
    assert (info.value.store, info.value.reason) == ("credential", f"malformed: field {field!r}")


@pytest.mark.parametrize("name", ["access_token", "expires_at", "scopes", "client_id"])
def test_a_missing_required_field_is_named(name):
    data = {k: v for k, v in WIRE.items() if k != name}
    with pytest.raises(CredentialStoreError) as info:
        Credential.from_json(data)
    assert info.value.reason == f"malformed: field {name!r}"


@pytest.mark.parametrize("data", [{k: v for k, v in WIRE.items() if k != "refresh_token"},
                                  {**WIRE, "refresh_token": ""}])
def test_a_missing_or_empty_refresh_token_is_none(data):
    assert Credential.from_json(data).refresh_token is None


def test_a_fractional_expiry_is_whole_milliseconds():
    cred = Credential.from_json({**WIRE, "expires_at": 1_700_000_000_000.9})
    assert cred.expires_at_ms == 1_700_000_000_000 and type(cred.expires_at_ms) is int


# ---------------------------------------------------------------- each refusal's fields


def private_file(tmp_path, data: bytes):
    path = tmp_path / "credentials.json"
    path.write_bytes(data)
    os.chmod(path, 0o600)
    return path


def test_a_symlinked_file_store_names_the_store_and_why_it_cannot_open(tmp_path):
    real = private_file(tmp_path, json.dumps(WIRE).encode())
    (tmp_path / "link.json").symlink_to(real)
    store = FileCredentialStore(tmp_path / "link.json")
    with pytest.raises(CredentialStoreError) as info:
        store.load()
    assert (info.value.store, info.value.reason) == (
        f"file {tmp_path / 'link.json'}", f"cannot open ({os.strerror(errno.ELOOP)})")


def test_a_file_store_that_is_a_fifo_is_not_a_regular_file(tmp_path):
    os.mkfifo(tmp_path / "credentials.json", 0o600)
    store = FileCredentialStore(tmp_path / "credentials.json")
    with pytest.raises(CredentialStoreError) as info:
        store.load()
    assert (info.value.store, info.value.reason) == (store.describe(), "not a regular file")


def test_a_file_others_can_read_names_its_mode_and_the_remedy(tmp_path):
    path = private_file(tmp_path, json.dumps(WIRE).encode())
    os.chmod(path, 0o644)
    store = FileCredentialStore(path)
    with pytest.raises(CredentialStoreError) as info:
        store.load()
    assert (info.value.store, info.value.reason) == (
        f"file {path}", "group or others have access (mode 0644); run chmod 600 on it after "
        "checking nobody else used it")


@pytest.mark.parametrize("data", [b'{"access_token": "at-x", oops', b"\xff\xfe not utf-8"])
def test_a_file_that_is_not_json_is_malformed(tmp_path, data):
    store = FileCredentialStore(private_file(tmp_path, data))
    with pytest.raises(CredentialStoreError) as info:
        store.load()
    assert (info.value.store, info.value.reason) == (store.describe(), "malformed: not JSON")


def test_a_file_is_read_only_to_its_first_mebibyte(tmp_path):
    text = json.dumps(WIRE)
    padded = text[:-1] + " " * MAX_STORED_BYTES + "}"  # valid JSON, but past the cap
    assert json.loads(padded) == WIRE
    store = FileCredentialStore(private_file(tmp_path, padded.encode()))
    with pytest.raises(CredentialStoreError) as info:
        store.load()
    assert info.value.reason == "malformed: not JSON"
    # the same credential within the cap loads
    store = FileCredentialStore(private_file(tmp_path, text.encode()))
    assert store.load() == Credential.from_json(WIRE)


def test_a_malformed_file_field_is_reported_with_the_store(tmp_path):
    store = FileCredentialStore(private_file(tmp_path, json.dumps({**WIRE, "scopes": 3})
                                             .encode()))
    with pytest.raises(CredentialStoreError) as info:
        store.load()
    assert (info.value.store, info.value.reason) == (store.describe(), "malformed: field 'scopes'")


class RecordingKeyring(MemoryKeyring):
    """A keyring that notes the thread each call ran on."""

    def __init__(self):
        super().__init__()
        self.threads = []

    def get_password(self, service, username):
        self.threads.append(threading.current_thread())
        return super().get_password(service, username)


def test_keyring_store_keeps_the_credential_under_its_service_and_username():
    backend = MemoryKeyring()
    store = KeyringCredentialStore("svc", "user", backend=backend)
    store.save(make_cred())
    assert list(backend.values) == [("svc", "user")]
    assert store.describe() == "keyring svc/user"
    assert Credential.from_json(json.loads(backend.values["svc", "user"])) == make_cred()


def test_keyring_calls_run_on_a_named_daemon_thread():
    backend = RecordingKeyring()
    KeyringCredentialStore(backend=backend).load()
    [thread] = backend.threads
    assert (thread.name, thread.daemon) == ("jdp-keyring", True)
    assert thread is not threading.current_thread()


def test_keyring_store_without_a_backend_asks_the_keyring_module(monkeypatch):
    import keyring

    backend = MemoryKeyring()
    monkeypatch.setattr(keyring, "get_keyring", lambda: backend)
    store = KeyringCredentialStore()
    store.save(make_cred())
    assert list(backend.values) == [(KEYRING_SERVICE, KEYRING_USERNAME)]
    assert store.load() == make_cred()


def test_a_malformed_keyring_value_names_the_store_and_the_reason():
    backend = MemoryKeyring()
    backend.values[KEYRING_SERVICE, KEYRING_USERNAME] = "not json"
    store = KeyringCredentialStore(backend=backend)
    with pytest.raises(CredentialStoreError) as info:
        store.load()
    assert (info.value.store, info.value.reason) == (
        f"keyring {KEYRING_SERVICE}/{KEYRING_USERNAME}", "malformed: not JSON")


def test_a_keyring_that_drops_the_write_names_the_store_and_the_reason():
    store = KeyringCredentialStore("svc", "user", backend=null.Keyring())
    with pytest.raises(CredentialStoreError) as info:
        store.save(make_cred())
    assert (info.value.store, info.value.reason) == (
        "keyring svc/user", "the keyring did not keep the credential")


def test_a_failing_keyring_names_the_store_and_only_the_exception_type():
    store = KeyringCredentialStore("svc", "user", backend=fail.Keyring())
    for call in (store.load, lambda: store.save(make_cred())):
        with pytest.raises(CredentialStoreError) as info:
            call()
        assert (info.value.store, info.value.reason) == (
            "keyring svc/user", "the keyring failed (NoKeyringError)")


class HangingWrites(MemoryKeyring):
    def __init__(self):
        super().__init__()
        self.release = threading.Event()

    def set_password(self, service, username, value):
        self.release.wait(10)


@pytest.mark.parametrize(("call", "backend"), [("load", HangingKeyring),
                                               ("save", HangingWrites)])
def test_a_hanging_keyring_names_the_store_and_its_deadline(call, backend):
    backend = backend()
    store = KeyringCredentialStore("svc", "user", backend=backend, timeout_s=0.05)
    try:
        with pytest.raises(CredentialStoreError) as info:
            store.load() if call == "load" else store.save(make_cred())
        assert (info.value.store, info.value.reason) == (
            "keyring svc/user", "no answer within 0.05 s")
    finally:
        backend.release.set()


# ---------------------------------------------------------------- which backend is real


def backend_of(module: str, **attributes):
    kind = type("Keyring", (), {"__module__": module})
    backend = kind()
    for name, value in attributes.items():
        setattr(backend, name, value)
    return backend


@pytest.mark.parametrize(("backend", "usable"), [
    (backend_of("keyring.backends.fail"), False),
    (backend_of("keyring.backends.null"), False),
    (backend_of("keyring.backends.chainer", backends=[object()]), True),
    (backend_of("keyring.backends.chainer", backends=[]), False),
    (backend_of("keyring.backends.chainer"), False),
    (backend_of("keyring.backends.SecretService"), True),
    (backend_of("keyrings.alt.file"), True),
])
def test_only_a_backend_that_keeps_secrets_is_usable(backend, usable):
    assert keyring_is_usable(backend) is usable


def test_a_chainer_with_real_backends_is_used_and_an_empty_one_is_not(tmp_path):
    real = open_store(None, tmp_path, backend=backend_of("keyring.backends.chainer",
                                                         backends=[MemoryKeyring()]))
    empty = open_store(None, tmp_path, backend=backend_of("keyring.backends.chainer",
                                                          backends=[]))
    assert isinstance(real, KeyringCredentialStore)
    assert isinstance(empty, FileCredentialStore)


def test_the_default_keyring_lookup_uses_a_real_backend_with_the_deadline(tmp_path,
                                                                       monkeypatch):
    import keyring

    backend = MemoryKeyring()
    monkeypatch.setattr(keyring, "get_keyring", lambda: backend)
    store = open_store(None, tmp_path, timeout_s=0.5)
    assert isinstance(store, KeyringCredentialStore)
    store.save(make_cred())
    assert list(backend.values) == [(KEYRING_SERVICE, KEYRING_USERNAME)]
    assert store._timeout_s == 0.5


def test_a_failing_default_keyring_lookup_falls_back_to_the_private_file(tmp_path,
                                                                      monkeypatch):
    import keyring

    def broken():
        raise RuntimeError("no D-Bus")

    monkeypatch.setattr(keyring, "get_keyring", broken)
    store = open_store(None, tmp_path)
    assert isinstance(store, FileCredentialStore)
    assert store.path == tmp_path / "credentials.json"


def test_a_hanging_default_keyring_lookup_is_given_up_for_the_private_file(tmp_path,
                                                                        monkeypatch):
    import keyring

    release = threading.Event()

    def hanging():
        release.wait(10)
        return MemoryKeyring()

    monkeypatch.setattr(keyring, "get_keyring", hanging)
    try:
        store = open_store(None, tmp_path, timeout_s=0.05)
    finally:
        release.set()
    assert isinstance(store, FileCredentialStore)


def test_a_save_goes_through_a_hidden_temporary_file_beside_the_credential(tmp_path,
                                                                           monkeypatch):
    store = FileCredentialStore(tmp_path / "credentials.json")
    replaced = []
    real_replace = os.replace

    def spy(src, dst):
        replaced.append((os.path.dirname(src), os.path.basename(src), dst))
        real_replace(src, dst)

    monkeypatch.setattr(os, "replace", spy)
    store.save(make_cred())
    [(folder, name, target)] = replaced
    assert (folder, target) == (str(tmp_path), store.path)
    assert name.startswith(".credentials-") and name.endswith(".tmp")


def test_a_save_under_a_file_names_the_store_and_why_it_cannot_write(tmp_path):
    (tmp_path / "plain").write_text("not a directory")
    store = FileCredentialStore(tmp_path / "plain" / "credentials.json")
    with pytest.raises(CredentialStoreError) as info:
        store.save(make_cred())
    assert (info.value.store, info.value.reason) == (
        store.describe(), f"cannot write ({os.strerror(errno.ENOTDIR)})")


def test_a_save_over_a_directory_names_the_store_and_why_it_cannot_write(tmp_path):
    (tmp_path / "credentials.json").mkdir()
    (tmp_path / "credentials.json" / "inside").write_text("x")
    store = FileCredentialStore(tmp_path / "credentials.json")
    with pytest.raises(CredentialStoreError) as info:
        store.save(make_cred())
    assert (info.value.store, info.value.reason) == (
        store.describe(), f"cannot write ({os.strerror(errno.EISDIR)})")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["credentials.json"]


def test_a_given_backend_is_the_one_the_keyring_store_uses(tmp_path, monkeypatch):
    import keyring

    given, default = MemoryKeyring(), MemoryKeyring()
    monkeypatch.setattr(keyring, "get_keyring", lambda: default)
    store = open_store(None, tmp_path, backend=given)
    store.save(make_cred())
    assert list(given.values) == [(KEYRING_SERVICE, KEYRING_USERNAME)]
    assert default.values == {}
