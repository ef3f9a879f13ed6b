"""Reads a source file as text, whatever encoding SQL Server tools saved it in.

SSMS "Generate Scripts" writes UTF-16LE with a BOM and CRLF; SSDT writes UTF-8 with a BOM; hand
edited scripts are often plain UTF-8 or Windows-1252 ("ANSI"). Line numbers in findings must match
what the user sees in an editor, so newlines are normalised (CRLF and lone CR become LF) and
nothing else is changed.

Damaged text is read, never guessed at silently: a file cut off in the middle of a character keeps
everything before it (IN03); a few invalid bytes in otherwise good UTF-8 or UTF-16 become U+FFFD
(IN15); only text with no sign of UTF-8 falls back to Windows-1252, and says so (IN16). Every
such finding names the line of the first byte concerned.
"""

from __future__ import annotations

import codecs
import re
from dataclasses import dataclass
from pathlib import Path

from ..errors import InputError
from ..model import Finding, Severity

_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)
_NAMES = {"utf-8": "UTF-8", "utf-16-le": "UTF-16LE", "utf-16-be": "UTF-16BE", "utf-32-le": "UTF-32LE",
          "utf-32-be": "UTF-32BE"}
# A whole UTF-8 character of two to four bytes (RFC 3629, section 4): the evidence that a file is UTF-8.
_UTF8_CHARACTER = re.compile(
    rb"[\xc2-\xdf][\x80-\xbf]|\xe0[\xa0-\xbf][\x80-\xbf]|[\xe1-\xec\xee\xef][\x80-\xbf]{2}|\xed[\x80-\x9f][\x80-\xbf]"
    rb"|\xf0[\x90-\xbf][\x80-\xbf]{2}|[\xf1-\xf3][\x80-\xbf]{3}|\xf4[\x80-\x8f][\x80-\xbf]{2}"
)
_CUT_REASONS = ("unexpected end of data", "truncated data")
_MAX_SPANS = 1000


@dataclass(frozen=True)
class TextFile:
    path: Path
    text: str
    encoding: str
    bom: bool
    findings: tuple[Finding, ...] = ()
    """What reading the bytes had to repair or assume: a cut-off character, invalid bytes, a legacy code page."""


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
    """The file's text: in the encoding its BOM or NUL pattern names, else UTF-8, else Windows-1252."""
    sniffed = sniff_encoding(data)
    if sniffed is not None:
        return _decode_repairing(data, sniffed[1], sniffed[0], path)
    if is_binary(data):
        raise InputError(f"{path}: binary file, not SQL text or a capture file")
    try:
        return TextFile(path, normalise_newlines(data.decode("utf-8")), "utf-8", False)
    except UnicodeDecodeError as exc:
        first = exc
    if _looks_like_utf8(data, first):
        return _decode_repairing(data, 0, "utf-8", path)
    return _decode_legacy(data, path, first)


def _looks_like_utf8(data: bytes, first: UnicodeDecodeError) -> bool:
    """Damaged UTF-8 rather than a legacy code page: its whole UTF-8 characters outnumber its bad bytes.

    A file that is valid up to a character cut off at its very end is UTF-8 when it holds other
    UTF-8 characters or the cut part is two bytes or more; a single high byte at the end of
    otherwise plain ASCII is as likely a Windows-1252 letter.
    """
    characters = _UTF8_CHARACTER.findall(data)
    if first.reason in _CUT_REASONS and first.end == len(data):
        return bool(characters) or len(data) - first.start >= 2
    high = len(data) - len(data.translate(None, bytes(range(0x80, 0x100))))
    invalid = high - sum(len(c) for c in characters)
    return bool(characters) and len(characters) >= invalid


def _decode_repairing(data: bytes, skip: int, encoding: str, path: Path) -> TextFile:
    """Decode in a known encoding; a cut-off last character is dropped, invalid bytes become U+FFFD."""
    body = data[skip:]
    text, spans = _decode_with_spans(body, encoding)
    findings: list[Finding] = []
    name = _NAMES.get(encoding, encoding.upper())
    if spans and spans[-1][1] == len(body) and _is_cut(body[spans[-1][0]:], encoding):
        start, _ = spans.pop()
        text = text[:-1]  # the U+FFFD that stood for the cut-off bytes
        line = _line_of(body, start, encoding)
        findings.append(Finding(
            "IN03", Severity.HIGH, str(path),
            f"truncated file: its last {len(body) - start} byte(s) ({_hex(body[start:])}, line {line}) start a "
            f"{name} character that the file never finishes, so it was probably cut off; the text before them "
            "is read", str(path), line))
    if spans:
        start, end = spans[0]
        line = _line_of(body, start, encoding)
        count = sum(e - s for s, e in spans)
        more = "at least " if len(spans) >= _MAX_SPANS else ""
        findings.append(Finding(
            "IN15", Severity.MEDIUM, str(path),
            f"{more}{count} byte(s) are not valid {name} (the first, {_hex(body[start:end])}, at line {line}, "
            f"byte {start + skip}); each bad sequence is read as U+FFFD", str(path), line,
            {"encoding": name, "bytes": count, "byte": start + skip}))
    findings.sort(key=lambda f: f.line or 0)
    return TextFile(path, normalise_newlines(text), encoding, skip > 0, tuple(findings))


def _decode_legacy(data: bytes, path: Path, first: UnicodeDecodeError) -> TextFile:
    """No BOM and no sign of UTF-8: Windows-1252, what SSMS and Notepad call "ANSI", and a finding that says so."""
    utf8_line = _line_of(data, first.start, "utf-8")
    try:
        text = data.decode("cp1252")
    except UnicodeDecodeError as exc:  # five bytes have no character in Windows-1252
        raise InputError(
            f"{path}: unreadable encoding: not UTF-8 (byte {first.start} at line {utf8_line}, "
            f"{_hex(data[first.start:first.end])}: {first.reason}) nor Windows-1252 (byte {exc.start} at line "
            f"{_line_of(data, exc.start, 'utf-8')}, {_hex(data[exc.start:exc.end])}, has no character in it); "
            "save it as UTF-8 or UTF-16"
        ) from None
    cut = " (or UTF-8 cut off in its last character)" if first.end == len(data) else ""
    finding = Finding(
        "IN16", Severity.LOW, str(path),
        f"no BOM and not UTF-8 (byte {first.start} at line {utf8_line}, {_hex(data[first.start:first.end])}, is "
        f"not valid UTF-8{cut}), so it is read as Windows-1252 (\"ANSI\"); if it was saved in another code "
        "page, names and strings with accented letters are wrong", str(path), utf8_line,
        {"encoding": "Windows-1252", "byte": first.start})
    return TextFile(path, normalise_newlines(text), "cp1252", False, (finding,))


def _decode_with_spans(data: bytes, encoding: str) -> tuple[str, list[tuple[int, int]]]:
    """Decode, putting U+FFFD for each invalid sequence; return the text and the (start, end) of each."""
    pieces: list[str] = []
    spans: list[tuple[int, int]] = []
    pos = 0
    while True:
        try:
            pieces.append(data[pos:].decode(encoding))
            break
        except UnicodeDecodeError as exc:
            pieces.append(data[pos : pos + exc.start].decode(encoding))
            pieces.append("\ufffd")
            spans.append((pos + exc.start, pos + exc.end))
            pos += exc.end
            if len(spans) >= _MAX_SPANS:  # a file this broken is reported, not measured byte by byte
                pieces.append(data[pos:].decode(encoding, "replace"))
                break
    return "".join(pieces), spans


def _is_cut(tail: bytes, encoding: str) -> bool:
    """True if `tail` is the start of a character that the end of the file interrupts."""
    try:
        tail.decode(encoding)
    except UnicodeDecodeError as exc:
        return exc.start == 0 and exc.reason in _CUT_REASONS
    return False


def _line_of(data: bytes, pos: int, encoding: str) -> int:
    """The 1-based line, as an editor counts it, of byte `pos`."""
    return normalise_newlines(data[:pos].decode(encoding, "replace")).count("\n") + 1


def _hex(data: bytes) -> str:
    return " ".join(f"0x{b:02X}" for b in data[:4]) + (" ..." if len(data) > 4 else "")


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
