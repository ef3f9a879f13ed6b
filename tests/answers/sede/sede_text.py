"""The text of generated posts and comments: titles, HTML bodies, comments, in the site's forms.

Bodies are HTML as SEDE stores them (`<p>`, `<pre><code>`, inline `<code>`, links, images, quotes), a few
long ones (past nvarchar's 4,000 characters), a few in other scripts or with an emoji. Now and then a
title, body or comment carries a phrase the corpus queries search for (sede_literals.phrases), so their
LIKE filters find rows.
"""

from __future__ import annotations

from sede_lists import COMMENT_FORMS, LINKS, TITLE_FORMS, VERBS, WORDS
from sede_random import Draw

_FOREIGN = ("Ça ne marche pas avec les accents : é, è, à, ç.", "Не работает, когда строка пустая.",
            "为什么这个查询返回空结果？", "Die Größe der Tabelle ändert sich nicht.", "¿Por qué falla la conexión?",
            "It works now 🙂 thanks to the docs.")


def phrase_text(pieces: tuple[str, ...]) -> str:
    """A text that `LIKE '%a%b%'` of these pieces finds."""
    return " ".join(pieces)


def title(draw: Draw, tag: str, phrases: tuple[tuple[str, ...], ...]) -> str:
    text = draw.pick(TITLE_FORMS).format(verb=draw.pick(VERBS), word=draw.pick(WORDS), word2=draw.pick(WORDS), tag=tag)
    if phrases and draw.chance(0.08):
        text = f"{phrase_text(draw.pick(phrases))}: {text}"
    return text[:250]


def body(draw: Draw, tag: str, phrases: tuple[tuple[str, ...], ...], post_ids: list[int]) -> str:
    parts = []
    for _ in range(1 + draw.heavy(2.0, 5)):
        words = " ".join(draw.pick(WORDS) for _ in range(3 + draw.below(12)))
        sentence = f"I need to {draw.pick(VERBS)} the {words} with {tag}."
        if draw.chance(0.3):
            sentence += f" The <code>{draw.pick(WORDS)}.{draw.pick(VERBS)}()</code> call returns nothing."
        parts.append(f"<p>{sentence}</p>")
    if draw.chance(0.4):
        lines = [f"SELECT {draw.pick(WORDS)}, COUNT(*) FROM {draw.pick(WORDS)}s GROUP BY {draw.pick(WORDS)};",
                 f"for {draw.pick(WORDS)} in {draw.pick(WORDS)}s:", f"    print({draw.pick(WORDS)} &lt; 10)"]
        parts.insert(draw.below(len(parts) + 1), "<pre><code>" + "\n".join(lines[: 1 + draw.below(3)]) + "\n</code></pre>")
    if draw.chance(0.12):
        link = draw.pick(LINKS).format(post=draw.pick(post_ids) if post_ids else 1, word=draw.pick(WORDS),
                                       word2=draw.pick(WORDS), code=f"{draw.below(10**6):06d}")
        parts.append(f'<p>See <a href="{link}" rel="nofollow noreferrer">this {draw.pick(WORDS)}</a>.</p>')
    if draw.chance(0.04):
        parts.append(f'<p><img src="https://i.stack.imgur.com/{draw.below(10**6):06d}.png" alt="screenshot"></p>')
    if draw.chance(0.03):
        parts.insert(0, f"<blockquote>\n  <p>{draw.pick(WORDS)} is not defined</p>\n</blockquote>")
    if draw.chance(0.02):
        parts.append(f"<p>{draw.pick(_FOREIGN)}</p>")
    if phrases and draw.chance(0.05):
        parts.append(f"<p>{phrase_text(draw.pick(phrases))}</p>")
    text = "\n\n".join(parts) + "\n"
    if draw.chance(0.01):  # a long post, past nvarchar's 4,000 characters
        text = (text * (1 + 6000 // len(text)))[: 5000 + draw.below(4000)]
    return text


def comment(draw: Draw, tag: str, phrases: tuple[tuple[str, ...], ...], post_ids: list[int]) -> str:
    text = draw.pick(COMMENT_FORMS).format(verb=draw.pick(VERBS), word=draw.pick(WORDS), tag=tag,
                                           post=draw.pick(post_ids) if post_ids else 1)
    if phrases and draw.chance(0.05):
        text = f"{text} {phrase_text(draw.pick(phrases))}"
    return text[:600]
