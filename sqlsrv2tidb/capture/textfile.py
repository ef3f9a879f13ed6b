"""Reads a source file as text, whatever encoding SQL Server tools saved it in.

SSMS "Generate Scripts" writes UTF-16LE with a BOM and CRLF; SSDT writes UTF-8 with a BOM; hand
edited scripts are often plain UTF-8 or Windows-1252 ("ANSI"). Line numbers in findings must match
what the user sees in an editor, so newlines are normalised (CRLF and lone CR become LF) and
nothing else is changed.
"""

from __future__ import annotations

import codecs
from dataclasses import dataclass
from pathlib import Path

from ..errors import InputError

_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)


@dataclass(frozen=True)
class TextFile:
    path: Path
    text: str
    encoding: str
    bom: bool


def sniff_encoding(data: bytes) -> tuple[str, int] | None:
    """Return (encoding, bytes to skip) from a BOM or the NUL pattern of BOM-less UTF-16, else None."""
    for bom, name in _BOMS:
        if data.startswith(bom):
            return name, len(bom)
    sample = data[:4096]
    if len(sample) >= 4:
        even_nuls = sample[0::2].count(0)
        odd_nuls = sample[1::2].count(0)
        half = len(sample) / 2
        # ASCII text in UTF-16 has a NUL in every other byte.
        if odd_nuls > 0.4 * half and even_nuls < 0.05 * half:
            return "utf-16-le", 0
        if even_nuls > 0.4 * half and odd_nuls < 0.05 * half:
            return "utf-16-be", 0
    return None


def is_binary(data: bytes) -> bool:
    """True for bytes no text encoding explains: NULs without a UTF-16 pattern, or mostly control bytes."""
    if sniff_encoding(data) is not None:
        return False
    sample = data[:8192]
    if b"\x00" in sample:
        return True
    controls = sum(1 for b in sample if b < 9 or 13 < b < 32)
    return bool(sample) and controls > 0.05 * len(sample)


def decode(data: bytes, path: Path) -> TextFile:
    sniffed = sniff_encoding(data)
    if sniffed is not None:
        encoding, skip = sniffed
        try:
            text = data[skip:].decode(encoding)
        except UnicodeDecodeError as exc:
            raise InputError(
                f"{path}: cannot decode as {encoding.upper()} at byte {exc.start + skip} ({exc.reason})"
            ) from None
        return TextFile(path, normalise_newlines(text), encoding, skip > 0)
    if is_binary(data):
        raise InputError(f"{path}: binary file, not SQL text or a capture file")
    try:
        text = data.decode("utf-8")
        encoding = "utf-8"
    except UnicodeDecodeError:
        # Windows-1252 is what SSMS and Notepad call "ANSI"; five bytes have no character in it.
        try:
            text = data.decode("cp1252")
            encoding = "cp1252"
        except UnicodeDecodeError as exc:
            raise InputError(
                f"{path}: unreadable encoding (neither UTF-8, UTF-16 nor Windows-1252; byte {exc.start})"
            ) from None
    return TextFile(path, normalise_newlines(text), encoding, False)


def read_text(path: Path) -> TextFile:
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise InputError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise InputError(f"{path}: is a folder, expected a file") from None
    except OSError as exc:
        raise InputError(f"{path}: cannot read ({exc.strerror})") from None
    return decode(data, path)


def normalise_newlines(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\r", "\n")
