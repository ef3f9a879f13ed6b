"""Reads a source file as text, whatever encoding SQL Server tools saved it in, whole or a piece at a time.

SSMS "Generate Scripts" writes UTF-16LE with a BOM and CRLF; SSDT writes UTF-8 with a BOM; hand
edited scripts are often plain UTF-8 or Windows-1252 ("ANSI"). Line numbers in findings must match
what the user sees in an editor, so newlines are normalised (CRLF and lone CR become LF) and
nothing else is changed.

A script with its data can run to hundreds of megabytes, so a file is never held whole to be
read: `open_text` looks at it once, in blocks that end at a line break (a line break is never part
of another character in any of these encodings, so such a block decodes alone exactly as it does
inside the whole), to settle its encoding and what had to be repaired. `TextFile.chunks()` then
gives its text a piece at a time, each ending at a line end, decoded by an incremental decoder
(which carries a character cut by a block's end over to the next). `TextFile.text` is the whole
text, for the kinds of source that are read whole (JSON, XML, YAML, CSV, workload statements).

Damaged text is read, never guessed at silently: a file cut off in the middle of a character keeps
everything before it (IN03); a few invalid bytes in otherwise good UTF-8 or UTF-16 become U+FFFD
(IN15); only text with no sign of UTF-8 falls back to Windows-1252, and says so (IN16). Every
such finding names the line of the first byte concerned.
"""

from __future__ import annotations

import codecs
import re
from collections.abc import Callable, Iterator
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
_HIGH_BYTES = bytes(range(0x80, 0x100))
_CUT_REASONS = ("unexpected end of data", "truncated data")
_MAX_SPANS = 1000
_HEAD = 1 << 16
"""Bytes enough to recognise a file: a BOM, the NUL pattern of UTF-16, binary content."""
BLOCK = 1 << 20
"""Bytes read at a time; a line longer than `_LONG_LINE` is handed on in pieces instead of at its end."""
_LONG_LINE = 1 << 24

Blocks = Callable[[], Iterator[bytes]]
"""The file's bytes from its start, a block at a time; called again to read it again."""


class TextFile:
    """A decoded source file: its encoding, what decoding repaired, and its text, whole or in line-aligned chunks."""

    __slots__ = ("path", "encoding", "bom", "findings", "_text", "_blocks", "_skip", "_end")

    def __init__(self, path: Path, text: str | None = None, encoding: str = "utf-8", bom: bool = False,
                 findings: tuple[Finding, ...] = (), *, blocks: Blocks | None = None, skip: int = 0,
                 end: int | None = None) -> None:
        self.path = path
        self.encoding = encoding
        self.bom = bom
        self.findings = findings
        """What reading the bytes had to repair or assume: a cut-off character, invalid bytes, a legacy code page."""
        self._text = text
        self._blocks = blocks
        self._skip = skip
        self._end = end  # the bytes of a cut-off last character are left out

    @property
    def text(self) -> str:
        """The whole text (held once asked for: only for the kinds of file that are read whole)."""
        if self._text is None:
            self._text = "".join(self.chunks())
        return self._text

    def chunks(self) -> Iterator[str]:
        """The text a piece at a time, newlines normalised; each piece but the last ends with a line end (a line
        longer than `_LONG_LINE` characters is handed on in pieces).

        An incremental decoder carries a character cut by a block's end over to the next block, so the
        text is what decoding the whole file at once gives."""
        if self._text is not None:
            yield self._text
            return
        assert self._blocks is not None
        decoder = codecs.getincrementaldecoder(self.encoding)("replace")
        carry = ""
        for block in _byte_range(self._blocks, self._skip, self._end):
            text = carry + decoder.decode(block)
            # The last line end (a CR only when something follows it: it may be the first half of a CRLF).
            cut = max(text.rfind("\n"), text.rfind("\r", 0, len(text) - 1)) + 1
            if cut == 0 and len(text) >= _LONG_LINE:  # one line that long is handed on in pieces
                cut = len(text) - text.endswith("\r")
            carry = text[cut:]
            if cut:
                yield normalise_newlines(text[:cut])
        text = carry + decoder.decode(b"", final=True)
        if text:
            yield normalise_newlines(text)

    def head(self, size: int = _HEAD) -> str:
        """At least the first `size` characters (fewer only in a shorter file)."""
        if self._text is not None:
            return self._text[:size]
        pieces: list[str] = []
        length = 0
        for chunk in self.chunks():
            pieces.append(chunk)
            length += len(chunk)
            if length >= size:
                break
        return "".join(pieces)


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
    """The text of bytes in memory: in the encoding its BOM or NUL pattern names, else UTF-8, else Windows-1252."""
    return _settle(lambda: iter((data,)), data[:_HEAD], path)


def read_head(path: Path) -> bytes:
    """The first bytes of a file: enough to tell its encoding, or that it is binary."""
    try:
        with path.open("rb") as fh:
            return fh.read(_HEAD)
    except FileNotFoundError:
        raise InputError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise InputError(f"{path}: is a folder, expected a file") from None
    except OSError as exc:
        raise InputError(f"{path}: cannot read ({exc.strerror})") from None


def open_text(path: Path, head: bytes | None = None, block_size: int = BLOCK) -> TextFile:
    """A file's text, read from disk in blocks whenever it is asked for (`head`: its first bytes, if already read)."""
    def blocks() -> Iterator[bytes]:
        with path.open("rb") as fh:
            while block := fh.read(block_size):
                yield block

    return _settle(blocks, read_head(path) if head is None else head, path)


def _settle(blocks: Blocks, head: bytes, path: Path) -> TextFile:
    sniffed = sniff_encoding(head)
    if sniffed is not None:
        return _repairing(blocks, sniffed[1], sniffed[0], path)
    if is_binary(head):
        raise InputError(f"{path}: binary file, not SQL text or a capture file")
    first = _first_error(blocks, "utf-8", 0)
    if first is None:
        return TextFile(path, None, "utf-8", False, blocks=blocks)
    if _looks_like_utf8(blocks, first):
        return _repairing(blocks, 0, "utf-8", path)
    return _legacy(blocks, path, first)


class _Error:
    """Where a block failed to decode, in offsets of the whole file."""

    __slots__ = ("start", "end", "reason", "bytes", "at_end")

    def __init__(self, exc: UnicodeDecodeError, offset: int, at_end: bool) -> None:
        self.start = offset + exc.start
        self.end = offset + exc.end
        self.reason = exc.reason
        self.bytes = exc.object[exc.start:exc.end]
        self.at_end = at_end and exc.end == len(exc.object)
        """The bad bytes are the file's last."""


def _byte_range(blocks: Blocks, skip: int, end: int | None) -> Iterator[bytes]:
    """The file's bytes from `skip` up to `end`, in the blocks they are read in."""
    position = 0
    for block in blocks():
        start, stop = max(skip - position, 0), len(block) if end is None else min(len(block), end - position)
        position += len(block)
        if stop > start:
            yield block[start:stop]
        if end is not None and position >= end:
            return


def _line_blocks(blocks: Blocks, encoding: str, skip: int = 0, end: int | None = None,
                 offsets: list[int] | None = None) -> Iterator[bytes]:
    """The bytes from `skip` to `end` in pieces that end just after a line break (or, in a line longer than
    `_LONG_LINE`, between two characters). With `offsets`, each piece's file offset is appended to it."""
    width = 4 if encoding.startswith("utf-32") else 2 if encoding.startswith("utf-16") else 1
    newline = "\n".encode(encoding)
    carry = b""
    position = skip  # file offset of carry[0]
    for block in _byte_range(blocks, skip, end):
        data = carry + block if carry else block
        cut = _last_line_end(data, newline, width)
        if cut <= 0 and len(data) >= _LONG_LINE:
            cut = _character_boundary(data, encoding, width)
        if cut <= 0:
            carry = data
            continue
        if offsets is not None:
            offsets.append(position)
        yield data[:cut]
        position += cut
        carry = data[cut:]
    if carry:
        if offsets is not None:
            offsets.append(position)
        yield carry


def _last_line_end(data: bytes, newline: bytes, width: int) -> int:
    """The offset just after the last line break that starts on a character boundary, or 0."""
    i = data.rfind(newline)
    while i >= 0 and i % width:
        i = data.rfind(newline, 0, i + len(newline) - 1)
    return i + len(newline) if i >= 0 else 0


def _character_boundary(data: bytes, encoding: str, width: int) -> int:
    """An offset near the end of `data` that splits no character (nor a UTF-16 surrogate pair)."""
    cut = len(data) - len(data) % width
    if width == 1 and encoding == "utf-8":
        while cut > 0 and 0x80 <= data[cut - 1] < 0xC0 and len(data) - cut < 4:
            cut -= 1
        if cut > 0 and data[cut - 1] >= 0xC0:
            cut -= 1
    elif width == 2:
        high = data[cut - 1] if encoding.endswith("le") else data[cut - 2]
        if 0xD8 <= high < 0xDC:
            cut -= 2
    return cut


def _first_error(blocks: Blocks, encoding: str, skip: int) -> _Error | None:
    """The first bytes that do not decode, with whether they are the file's last bytes."""
    offsets: list[int] = []
    failed: tuple[UnicodeDecodeError, int] | None = None
    for piece in _line_blocks(blocks, encoding, skip, offsets=offsets):
        if failed is not None:  # another piece follows the one that failed
            return _Error(failed[0], failed[1], False)
        try:
            piece.decode(encoding)
        except UnicodeDecodeError as exc:
            failed = (exc, offsets[-1])
    return None if failed is None else _Error(failed[0], failed[1], True)


def _looks_like_utf8(blocks: Blocks, first: _Error) -> bool:
    """Damaged UTF-8 rather than a legacy code page: its whole UTF-8 characters outnumber its bad bytes.

    A file that is valid up to a character cut off at its very end is UTF-8 when it holds other
    UTF-8 characters or the cut part is two bytes or more; a single high byte at the end of
    otherwise plain ASCII is as likely a Windows-1252 letter.
    """
    characters = high = size = character_bytes = 0
    for piece in _line_blocks(blocks, "utf-8"):
        found = _UTF8_CHARACTER.findall(piece)
        characters += len(found)
        character_bytes += sum(len(c) for c in found)
        high += len(piece) - len(piece.translate(None, _HIGH_BYTES))
        size += len(piece)
    if first.reason in _CUT_REASONS and first.end == size:
        return bool(characters) or size - first.start >= 2
    invalid = high - character_bytes
    return bool(characters) and characters >= invalid


def _repairing(blocks: Blocks, skip: int, encoding: str, path: Path) -> TextFile:
    """Decode in a known encoding; a cut-off last character is dropped, invalid bytes become U+FFFD."""
    spans: list[tuple[int, int]] = []  # (start, end) of each bad sequence, offsets from `skip`
    first = tail = b""  # the bytes of the first bad sequence, and of the last when it ends its piece
    size = 0
    offsets: list[int] = []
    for piece in _line_blocks(blocks, encoding, skip, offsets=offsets):
        base = offsets[-1] - skip
        size = base + len(piece)
        if len(spans) >= _MAX_SPANS:
            continue  # a file this broken is reported, not measured byte by byte
        try:
            piece.decode(encoding)
            continue
        except UnicodeDecodeError:
            pass
        for start, end in _spans(piece, encoding, _MAX_SPANS - len(spans)):
            if not spans:
                first = piece[start:end]
            spans.append((base + start, base + end))
            tail = piece[start:] if end == len(piece) else b""
    findings: list[Finding] = []
    name = _NAMES.get(encoding, encoding.upper())
    end = None
    if spans and spans[-1][1] == size and _is_cut(tail, encoding):
        start, _ = spans.pop()
        end = skip + start
        line = _line_of(blocks, encoding, skip, start)
        findings.append(Finding(
            "IN03", Severity.HIGH, str(path),
            f"truncated file: its last {size - start} byte(s) ({_hex(tail)}, line {line}) start a "
            f"{name} character that the file never finishes, so it was probably cut off; the text before them "
            "is read", str(path), line))
    if spans:
        start, _ = spans[0]
        line = _line_of(blocks, encoding, skip, start)
        count = sum(e - s for s, e in spans)
        more = "at least " if len(spans) >= _MAX_SPANS else ""
        findings.append(Finding(
            "IN15", Severity.MEDIUM, str(path),
            f"{more}{count} byte(s) are not valid {name} (the first, {_hex(first)}, at line {line}, "
            f"byte {start + skip}); each bad sequence is read as U+FFFD", str(path), line,
            {"encoding": name, "bytes": count, "byte": start + skip}))
    findings.sort(key=lambda f: f.line or 0)
    return TextFile(path, None, encoding, skip > 0, tuple(findings), blocks=blocks, skip=skip, end=end)


def _legacy(blocks: Blocks, path: Path, first: _Error) -> TextFile:
    """No BOM and no sign of UTF-8: Windows-1252, what SSMS and Notepad call "ANSI", and a finding that says so."""
    utf8_line = _line_of(blocks, "utf-8", 0, first.start)
    wrong = _first_error(blocks, "cp1252", 0)
    if wrong is not None:  # five bytes have no character in Windows-1252
        raise InputError(
            f"{path}: unreadable encoding: not UTF-8 (byte {first.start} at line {utf8_line}, "
            f"{_hex(first.bytes)}: {first.reason}) nor Windows-1252 (byte {wrong.start} at line "
            f"{_line_of(blocks, 'utf-8', 0, wrong.start)}, {_hex(wrong.bytes)}, has no character in it); "
            "save it as UTF-8 or UTF-16"
        )
    cut = " (or UTF-8 cut off in its last character)" if first.at_end else ""
    finding = Finding(
        "IN16", Severity.LOW, str(path),
        f"no BOM and not UTF-8 (byte {first.start} at line {utf8_line}, {_hex(first.bytes)}, is "
        f"not valid UTF-8{cut}), so it is read as Windows-1252 (\"ANSI\"); if it was saved in another code "
        "page, names and strings with accented letters are wrong", str(path), utf8_line,
        {"encoding": "Windows-1252", "byte": first.start})
    return TextFile(path, None, "cp1252", False, (finding,), blocks=blocks)


def _spans(data: bytes, encoding: str, limit: int) -> Iterator[tuple[int, int]]:
    """The (start, end) of each invalid sequence in `data`, as many as `limit`."""
    pos = 0
    while limit > 0:
        try:
            data[pos:].decode(encoding)
            return
        except UnicodeDecodeError as exc:
            yield pos + exc.start, pos + exc.end
            pos += exc.end
            limit -= 1


def _is_cut(tail: bytes, encoding: str) -> bool:
    """True if `tail` is the start of a character that the end of the file interrupts."""
    try:
        tail.decode(encoding)
    except UnicodeDecodeError as exc:
        return exc.start == 0 and exc.reason in _CUT_REASONS
    return False


def _line_of(blocks: Blocks, encoding: str, skip: int, pos: int) -> int:
    """The 1-based line, as an editor counts it, of the byte `pos` bytes after `skip`."""
    before = TextFile(Path(), None, encoding, blocks=blocks, skip=skip, end=skip + pos)
    return sum(chunk.count("\n") for chunk in before.chunks()) + 1


def _hex(data: bytes) -> str:
    return " ".join(f"0x{b:02X}" for b in data[:4]) + (" ..." if len(data) > 4 else "")


def read_text(path: Path) -> TextFile:
    """The file's text (see `open_text`); missing, folder and unreadable files are one-line errors."""
    return open_text(path)


def normalise_newlines(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\r", "\n")
