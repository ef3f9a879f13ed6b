"""Server-side prepared statements (the binary protocol) on mysqlclient's own connection.

An application that called SQL Server with parameters (sp_executesql, sp_prepexec, sp_execute) sends
a MySQL server COM_STMT_PREPARE once and COM_STMT_EXECUTE with binary values after that, which TiDB
serves from its plan cache; sending the same statement as text measures another server cost.
(https://dev.mysql.com/doc/dev/mysql-server/latest/page_protocol_command_phase_ps.html,
https://docs.pingcap.com/tidb/stable/sql-prepared-plan-cache)

None of the Python drivers replay uses sends them: PyMySQL and mysqlclient interpolate values into
text, and the drivers that do prepare either need a newer OpenSSL than Debian's (mysql-connector-python's
C extension) or prepare again on every execution against TiDB, so TiDB's plan cache never hits
(the `mariadb` connector; both checked on TiDB 8.5.3, see benchmarks/replay/RESULTS.md). So this
module calls the client library's own prepared-statement functions (`mysql_stmt_prepare`,
`mysql_stmt_bind_param`, `mysql_stmt_execute`, `mysql_stmt_store_result`) through ctypes on the
very connection mysqlclient opened: mysqlclient hands out its `MYSQL *` for this purpose
(`_get_native_connection`), and its extension module is linked against the client library, whose
symbols are looked up through it. Text and prepared statements share the connection, one at a time.
(https://mariadb.com/kb/en/mariadb-connector-c-prepared-statement-api-functions/)

A statement is prepared once per connection and executed with each send's values, bound by type
(integer, double, string, bytes, NULL) as a driver would bind them; every result set is read to
its end in C and freed. Errors are mysqlclient's exceptions with the server's code and message, so
the worker counts them like any other.
"""

from __future__ import annotations

import ctypes
import struct
from collections.abc import Callable
from typing import Any

# enum_field_types (mysql_com.h)
_DOUBLE, _NULL, _LONGLONG, _BLOB, _STRING = 5, 6, 8, 252, 254
_CLIENT_ERRORS = 2000
_pack_q, _pack_Q, _pack_d = struct.Struct("<q").pack, struct.Struct("<Q").pack, struct.Struct("<d").pack


class Bind(ctypes.Structure):
    """MYSQL_BIND as MariaDB Connector/C 3 and libmysqlclient 8 both lay it out (112 bytes on 64-bit)."""

    _fields_ = [
        ("length", ctypes.c_void_p), ("is_null", ctypes.c_void_p), ("buffer", ctypes.c_char_p),
        ("error", ctypes.c_void_p), ("row_ptr", ctypes.c_void_p), ("store_param_func", ctypes.c_void_p),
        ("fetch_result", ctypes.c_void_p), ("skip_result", ctypes.c_void_p), ("buffer_length", ctypes.c_ulong),
        ("offset", ctypes.c_ulong), ("length_value", ctypes.c_ulong), ("flags", ctypes.c_uint),
        ("pack_length", ctypes.c_uint), ("buffer_type", ctypes.c_int), ("error_value", ctypes.c_char),
        ("is_unsigned", ctypes.c_char), ("long_data_used", ctypes.c_char), ("is_null_value", ctypes.c_char),
        ("extension", ctypes.c_void_p),
    ]


class Unavailable(RuntimeError):
    """Prepared statements cannot be sent here (mysqlclient missing, or built without the functions)."""


_LIB: Any = None


def library() -> Any:
    """The client library mysqlclient is linked against, with the prepared-statement functions typed."""
    global _LIB
    if _LIB is not None:
        return _LIB
    try:
        import MySQLdb._mysql as native
    except ImportError:
        raise Unavailable("mysqlclient is not installed") from None
    lib = ctypes.CDLL(native.__file__)
    stmt, conn = ctypes.c_void_p, ctypes.c_void_p
    signatures: dict[str, tuple[Any, list[Any]]] = {
        "mysql_stmt_init": (stmt, [conn]),
        "mysql_stmt_prepare": (ctypes.c_int, [stmt, ctypes.c_char_p, ctypes.c_ulong]),
        "mysql_stmt_param_count": (ctypes.c_ulong, [stmt]),
        "mysql_stmt_bind_param": (ctypes.c_char, [stmt, ctypes.c_void_p]),
        "mysql_stmt_execute": (ctypes.c_int, [stmt]),
        "mysql_stmt_field_count": (ctypes.c_uint, [stmt]),
        "mysql_stmt_store_result": (ctypes.c_int, [stmt]),
        "mysql_stmt_free_result": (ctypes.c_char, [stmt]),
        "mysql_stmt_next_result": (ctypes.c_int, [stmt]),
        "mysql_stmt_errno": (ctypes.c_uint, [stmt]),
        "mysql_stmt_error": (ctypes.c_char_p, [stmt]),
        "mysql_stmt_close": (ctypes.c_char, [stmt]),
        "mysql_errno": (ctypes.c_uint, [conn]),
        "mysql_error": (ctypes.c_char_p, [conn]),
    }
    try:
        for name, (restype, argtypes) in signatures.items():
            function = getattr(lib, name)
            function.restype, function.argtypes = restype, argtypes
    except AttributeError as exc:
        raise Unavailable(f"mysqlclient's client library has no {exc.args[0]}") from None
    get = ctypes.pythonapi.PyCapsule_GetPointer
    get.restype, get.argtypes = ctypes.c_void_p, [ctypes.py_object, ctypes.c_char_p]
    _LIB = lib
    return lib


def native_connection(raw: Any) -> int:
    """The `MYSQL *` of a mysqlclient connection."""
    capsule = raw._get_native_connection()
    return ctypes.pythonapi.PyCapsule_GetPointer(capsule, b"_mysql.connection.native_connection")


class PreparedStatements:
    """The prepared statements of one mysqlclient connection: `run(sql, params)` prepares once, then executes."""

    def __init__(self, raw: Any) -> None:
        import MySQLdb

        self.lib = library()
        self.mysql = native_connection(raw)
        self.encoding = raw.encoding
        self.errors = (MySQLdb.OperationalError, MySQLdb.DatabaseError)
        self.handles: dict[str, tuple[int, Any]] = {}
        """sql → (MYSQL_STMT *, its MYSQL_BIND array)."""

    def _fail(self, stmt: int | None) -> BaseException:
        lib = self.lib
        code = lib.mysql_stmt_errno(stmt) if stmt else lib.mysql_errno(self.mysql)
        text = (lib.mysql_stmt_error(stmt) if stmt else lib.mysql_error(self.mysql)) or b""
        cls = self.errors[0] if code >= _CLIENT_ERRORS else self.errors[1]
        return cls(code, text.decode("utf-8", "replace"))

    def prepare(self, sql: str) -> tuple[int, Any]:
        lib = self.lib
        stmt = lib.mysql_stmt_init(self.mysql)
        if not stmt:
            raise self._fail(None)
        text = sql.encode(self.encoding)
        if lib.mysql_stmt_prepare(stmt, text, len(text)):
            error = self._fail(stmt)
            lib.mysql_stmt_close(stmt)
            raise error
        binds = (Bind * max(1, lib.mysql_stmt_param_count(stmt)))()
        self.handles[sql] = (stmt, binds)
        return stmt, binds

    def sender(self) -> Callable[[str, tuple[Any, ...]], None]:
        """`run(sql, params)`: the hot path, with everything it touches bound to locals once."""
        lib, handles, prepare, fail, encoding = self.lib, self.handles, self.prepare, self._fail, self.encoding
        bind_param, execute, field_count = lib.mysql_stmt_bind_param, lib.mysql_stmt_execute, lib.mysql_stmt_field_count
        store, free, next_result = lib.mysql_stmt_store_result, lib.mysql_stmt_free_result, lib.mysql_stmt_next_result

        def run(sql: str, params: tuple[Any, ...]) -> None:
            handle = handles.get(sql)
            stmt, binds = handle if handle is not None else prepare(sql)
            if params:
                for bind, value in zip(binds, params, strict=False):
                    _bind(bind, value, encoding)
                if bind_param(stmt, binds) != b"\x00":
                    raise fail(stmt)
            if execute(stmt):
                raise fail(stmt)
            while True:
                if field_count(stmt):
                    if store(stmt):
                        raise fail(stmt)
                    free(stmt)
                status = next_result(stmt)
                if status:
                    if status > 0:
                        raise fail(stmt)
                    break

        return run

    def close(self) -> None:
        for stmt, _ in self.handles.values():
            self.lib.mysql_stmt_close(stmt)
        self.handles.clear()


def _bind(bind: Bind, value: Any, encoding: str) -> None:
    """One parameter as a driver binds it: integers and doubles in binary, text and bytes as strings."""
    kind = type(value)
    if kind is int:
        if -(1 << 63) <= value < (1 << 63):
            data, bind.buffer_type, bind.is_unsigned = _pack_q(value), _LONGLONG, b"\x00"
        elif 0 <= value < (1 << 64):
            data, bind.buffer_type, bind.is_unsigned = _pack_Q(value), _LONGLONG, b"\x01"
        else:
            data, bind.buffer_type = str(value).encode(), _STRING
    elif kind is str:
        data, bind.buffer_type = value.encode(encoding), _STRING
    elif value is None:
        data, bind.buffer_type = b"", _NULL
    elif kind is float:
        data, bind.buffer_type = _pack_d(value), _DOUBLE
    elif kind is bytes or kind is bytearray:
        data, bind.buffer_type = bytes(value), _BLOB
    elif kind is bool:
        data, bind.buffer_type, bind.is_unsigned = _pack_q(int(value)), _LONGLONG, b"\x00"
    else:  # Decimal, dates: their text, which the server converts as it would a string literal
        data, bind.buffer_type = str(value).encode(encoding), _STRING
    bind.buffer = data
    bind.buffer_length = len(data)
