"""The `[engine] database_url` value: validated when read, and redacted wherever it is shown;
and `[engine] log_store`, the object store beside the database (`object_store_dir`).

A database URL can carry a password. `DatabaseUrl` keeps the full text for the one caller that
needs it (`get_secret_value()`, handed to the database driver) and shows a redacted form
everywhere else: `str()`, `repr()`, JSON dumps of the configuration, and error messages.
`redact_url` does the same for any text that may contain a URL (an exception message).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Literal
from urllib.parse import SplitResult, unquote, urlsplit

from pydantic import GetCoreSchemaHandler, SerializationInfo
from pydantic_core import core_schema

__all__ = ["DatabaseUrl", "object_store_dir", "redact_url"]

MASK = "***"
_SQLITE = "sqlite:///"
_POSTGRES = "postgresql://"
_EXPECTED = (
    "database_url must be sqlite:////<absolute path> or "
    "postgresql://[user[:password]@]host[:port]/database"
)
# `scheme://user:` up to the last `@` of the same whitespace-free token: a password may hold
# `@` or `/` unencoded, and redacting too much is harmless where too little is not.
_USERINFO = re.compile(r"(?P<head>\b[a-z][a-z0-9+.-]*://[^:/@\s]*:)\S*@", re.IGNORECASE)
_QUERY_PASSWORD = re.compile(r"(?P<head>[?&]password=)[^&#\s]*", re.IGNORECASE)
_CONTROL = re.compile(r"[\x00-\x20\x7f]")


def object_store_dir(url: str) -> Path:
    """The directory a `file:///absolute/path` URL names (an object store every host mounts);
    `ValueError` for any other URL: mergegate has no network client for an object store."""
    parts = urlsplit(url)
    path = unquote(parts.path)
    if parts.scheme != "file" or parts.netloc not in ("", "localhost") or parts.query:
        raise ValueError(
            f"log_store must be a file:///<absolute directory> URL (a directory every host "
            f"mounts), not {redact_url(url)!r}"
        )
    if not path.startswith("/") or "/../" in f"{path}/" or "\x00" in path:
        raise ValueError(f"log_store {redact_url(url)!r} does not name an absolute directory")
    return Path(path)


def redact_url(text: str) -> str:
    """`text` with the password of every URL in it replaced by `***` (userinfo and a
    `password=` query parameter alike)."""
    text = _USERINFO.sub(lambda m: f"{m.group('head')}{MASK}@", text)
    return _QUERY_PASSWORD.sub(lambda m: f"{m.group('head')}{MASK}", text)


class DatabaseUrl:
    """A validated `sqlite:////<absolute path>` or `postgresql://…` URL whose password is
    never shown: `str()` and `repr()` give the redacted form, `get_secret_value()` the URL."""

    __slots__ = ("_scheme", "_url")

    def __init__(self, url: str) -> None:
        self._scheme = _validate(url)
        self._url = url

    @property
    def scheme(self) -> Literal["sqlite", "postgresql"]:
        return self._scheme

    @property
    def is_postgres(self) -> bool:
        return self._scheme == "postgresql"

    @property
    def redacted(self) -> str:
        """The URL with its password (if any) replaced by `***`."""
        return redact_url(self._url)

    def get_secret_value(self) -> str:
        """The whole URL, password included: for the database driver, never for display."""
        return self._url

    def __str__(self) -> str:
        return self.redacted

    def __repr__(self) -> str:
        return f"DatabaseUrl({self.redacted!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, DatabaseUrl) and other._url == self._url

    def __hash__(self) -> int:
        return hash(self._url)

    @classmethod
    def __get_pydantic_core_schema__(
        cls, source: Any, handler: GetCoreSchemaHandler
    ) -> core_schema.CoreSchema:
        return core_schema.no_info_plain_validator_function(
            _parse,
            serialization=core_schema.plain_serializer_function_ser_schema(
                _serialize, info_arg=True
            ),
        )


def _parse(value: object) -> DatabaseUrl:
    if isinstance(value, DatabaseUrl):
        return value
    if not isinstance(value, str):
        # ValueError, not TypeError: pydantic reports only the former as a validation error.
        raise ValueError(f"{_EXPECTED}; got {type(value).__name__}, not a string")
    return DatabaseUrl(value)


def _serialize(value: DatabaseUrl, info: SerializationInfo) -> DatabaseUrl | str:
    # Python-mode dumps feed `load_config`'s merge and must round-trip; JSON is for people.
    return value.redacted if info.mode == "json" else value


def _validate(url: str) -> Literal["sqlite", "postgresql"]:
    """The URL's scheme if it is usable, else `ValueError`.

    The message never quotes the URL: an unusable one may not even parse far enough to tell
    its password apart (`postgresql://user:secret/db` reads as host `user`, port `secret`).
    """
    if _CONTROL.search(url):
        raise ValueError(f"{_EXPECTED}; whitespace or control characters are not allowed")
    if url.startswith(_SQLITE):
        path = url[len(_SQLITE) :]
        if not path.startswith("/") or path.rstrip("/") == "" or "?" in path:
            raise ValueError(
                f"{_EXPECTED}; a SQLite URL needs an absolute file path and no options, "
                "e.g. sqlite:////var/lib/mergegate/runs.sqlite"
            )
        return "sqlite"
    if url.startswith(_POSTGRES):
        try:
            parts = urlsplit(url)
        except ValueError:  # an unbalanced `[` or `]` (IPv6 brackets)
            raise ValueError(f"{_EXPECTED}; the host part does not parse") from None
        _check_postgres(parts)
        return "postgresql"
    scheme = url.split("://", 1)[0] if "://" in url else ""
    if scheme and re.fullmatch(r"[A-Za-z][A-Za-z0-9+.-]{0,30}", scheme):
        raise ValueError(f"{_EXPECTED}; got a {scheme!r} URL")
    raise ValueError(f"{_EXPECTED}; got something that is not a URL")


def _check_postgres(parts: SplitResult) -> None:
    try:
        parts.port  # noqa: B018 - raises ValueError on a port that is not a number in range
    except ValueError:
        raise ValueError(f"{_EXPECTED}; the port is not a number 1-65535") from None
    database = parts.path[1:] if parts.path.startswith("/") else ""
    if not database or "/" in database:
        raise ValueError(f"{_EXPECTED}; the URL names no database")
    if parts.fragment:
        raise ValueError(f"{_EXPECTED}; a fragment (#...) is not allowed")
