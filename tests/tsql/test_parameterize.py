"""A parameterized text reads as the original's tokens with each value literal replaced by its parameter.

T-SQL lets a literal touch the word next to it (`'20130101'and`, `and'x'`, `N'x'and`, `1.5e3and`); a
parameter name may not, since `@1and` is one variable. Checked on hand-made edge cases and on every
statement of the 857 Stack Exchange Data Explorer queries, whole and as the capture splits them.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "translate"))
from translate_sede import sede_queries  # noqa: E402

from sqlsrv2tidb.capture.statements import SplitError, split_batch  # noqa: E402
from sqlsrv2tidb.tsql.literals import tokens  # noqa: E402
from sqlsrv2tidb.tsql.parameterize import parameterize, value_slots  # noqa: E402


def expected_tokens(text: str) -> list[tuple[str, str]]:
    """The original's tokens, each value literal (a negative number's sign included) as its parameter."""
    toks = tokens(text)
    slots = value_slots(toks)
    out, skip = [], set()
    for n, slot in enumerate(slots, 1):
        skip.update({slot, slot + 1} if toks[slot].text == "-" else {slot})
        out.append((slot, ("var", f"@{n}")))
    kept = [(i, (t.kind, t.text)) for i, t in enumerate(toks) if i not in skip]
    return [tok for _, tok in sorted(kept + out)]


def written_tokens(text: str) -> list[tuple[str, str]]:
    return [(t.kind, t.text) for t in tokens(parameterize(text)[0])]


@pytest.mark.parametrize(("sql", "text"), [
    ("SELECT id FROM t WHERE d > '20130101'and id = 4", "SELECT id FROM t WHERE d > @1 and id = @2"),
    ("SELECT 1 FROM t WHERE a = N'x'and b = 1", "SELECT 1 FROM t WHERE a = @1 and b = @2"),
    ("SELECT 1 FROM t WHERE a = 1.5e3and b = -5or c = 2", "SELECT 1 FROM t WHERE a = @1 and b = @2 or c = @3"),
    ("SELECT 1 FROM t WHERE a BETWEEN'x'AND'y'", "SELECT 1 FROM t WHERE a BETWEEN @1 AND @2"),
    ("SELECT 1 FROM t WHERE a = 0x1F and b IN(1,2)", "SELECT 1 FROM t WHERE a = @1 and b IN(@2,@3)"),
])
def test_a_parameter_never_runs_into_the_word_next_to_it(sql, text):
    assert parameterize(sql)[0] == text
    assert written_tokens(sql) == expected_tokens(sql)


def test_a_hex_literal_that_runs_into_a_word_keeps_the_lexers_reading():
    """`0x1Fand` reads as the binary 0x1FA and the word `nd`: the parameter takes the binary's place only."""
    sql = "SELECT 1 FROM t WHERE a = 0x1Fand"
    assert [t.text for t in tokens(sql)][-2:] == ["0x1Fa", "nd"]
    assert parameterize(sql)[0] == "SELECT 1 FROM t WHERE a = @1 nd"
    assert written_tokens(sql) == expected_tokens(sql)


def tight(text: str) -> str:
    """`text` with the spaces on either side of each literal taken out wherever the tokens stay the same
    (`d > '20130101' and` becomes `d >'20130101'and`): the spellings that run a literal into a word."""
    spaced = tokens(text, keep_space=True)
    out = []
    for i, tok in enumerate(spaced):
        near = any(0 <= j < len(spaced) and spaced[j].kind in ("str", "num", "bin") for j in (i - 1, i + 1))
        out.append("" if tok.kind == "ws" and near else tok.text)
    squeezed = "".join(out)
    same = [(t.kind, t.text) for t in tokens(squeezed)] == [(t.kind, t.text) for t in tokens(text)]
    return squeezed if same else text


def touching(text: str) -> int:
    """How many value literals of `text` touch a word or a variable (where a parameter would run into it)."""
    toks = tokens(text)
    count = 0
    for slot in value_slots(toks):
        first = toks[slot]
        last = toks[slot + 1] if first.text == "-" else first
        end = last.start + len(last.text)
        count += (first.start > 0 and (text[first.start - 1].isalnum() or text[first.start - 1] in "_#$@")) or (
            end < len(text) and (text[end].isalnum() or text[end] in "_#$@"))
    return count


def test_every_sede_statement_parameterizes_to_its_own_tokens():
    checked = literals = glued = 0
    wrong = []
    for q in sede_queries():
        try:
            pieces = [p.text for p in split_batch(q.sql)]
        except SplitError:
            pieces = []
        for text in (q.sql, *pieces, *(tight(p) for p in pieces)):
            written, parameters, _ = parameterize(text)
            checked += 1
            literals += len(parameters)
            glued += touching(text)
            if written_tokens(text) != expected_tokens(text):
                wrong.append((q.id, text[:120], written[:120]))
    assert not wrong, f"{len(wrong)} text(s) parameterized into other tokens, e.g. {wrong[:3]}"
    print(f"{checked} texts, {literals} literals made parameters, {glued} of them touching a word")
    assert checked > 857 and literals > 1000 and glued > 100, (checked, literals, glued)
