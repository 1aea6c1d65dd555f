"""Hypothesis strategies that speak each grammar's own punctuation.

Random unicode alone almost never writes ``}`` after a move number, or a tag pair with a
broken quote: these strategies build inputs from the tokens a parser branches on (the
record's brackets, braces, move numbers and results; each game's real moves and position
strings, cut and spliced), mixed with arbitrary characters.
"""

from __future__ import annotations

import random
from functools import cache

from hypothesis import strategies as st

import games
from games import records as records_format

#: Every grammar's punctuation and the characters that end or split its tokens.
PUNCTUATION = [*"{}[]();$!?.\"*-+/:,|=#%&\\'`~^_<>@", " ", "\n", "\t", "\r", "\x00"]
#: Characters that are letters or digits to str.isdigit()/isalnum() but not ASCII,
#: combining marks, a right-to-left mark, wide CJK, an emoji, surrogate-free oddities.
UNICODE = ["٣", "²", "𝟘", "Ⅻ", "é", "é", "\u200f", "\u200b", "中", "分", "🂡", "ß", "İ", "\ufeff", "\u2028"]
CHARS = st.one_of(
    st.sampled_from(PUNCTUATION + UNICODE),
    st.characters(min_codepoint=0x30, max_codepoint=0x7A),
    st.characters(blacklist_categories=("Cs",)),
)
NUMBERS = st.one_of(st.integers(-3, 120).map(str), st.sampled_from(["0", "00", "1e9", "1" * 30, "-0", "٣"]))


@cache
def playout(game_name: str, seed: int = 7, plies: int = 40) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """A reproducible random game: its position strings and its moves' notation."""
    game = games.get(game_name)
    rng = random.Random(seed)
    state = game.initial()
    positions = [game.format_position(state)]
    moves: list[str] = []
    for _ in range(plies):
        if game.outcome(state) is not None:
            break
        legal = game.legal_moves(state)
        if not legal:
            break
        move = rng.choice(legal)
        moves.append(game.format_move(move))
        state = game.apply(state, move)
        positions.append(game.format_position(state))
    return tuple(positions), tuple(moves)


def spliced(texts: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    """A real string with a few characters replaced, inserted or deleted, or two cut and joined."""

    @st.composite
    def build(draw: st.DrawFn) -> str:
        text = draw(texts)
        for _ in range(draw(st.integers(0, 4))):
            at = draw(st.integers(0, len(text)))
            kind = draw(st.sampled_from(["replace", "insert", "delete", "splice"]))
            if kind == "splice":
                other = draw(texts)
                cut = draw(st.integers(0, len(other)))
                text = text[:at] + other[cut:]
            elif kind == "delete":
                text = text[:at] + text[at + 1 :]
            else:
                char = draw(st.one_of(CHARS, NUMBERS))
                text = text[:at] + char + text[at + (kind == "replace") :]
        return text

    return build()


def game_texts(game_name: str) -> st.SearchStrategy[str]:
    positions, moves = playout(game_name)
    return st.sampled_from(positions + moves)


def positions(game_name: str) -> st.SearchStrategy[str]:
    real = st.sampled_from(playout(game_name)[0])
    return st.one_of(real, spliced(real), spliced(game_texts(game_name)), st.text(CHARS, max_size=80))


def moves(game_name: str) -> st.SearchStrategy[str]:
    real = st.sampled_from(playout(game_name)[1])
    return st.one_of(real, spliced(real), st.text(CHARS, max_size=20), real.map(str.upper))


RECORD_WORDS = [
    "{",
    "}",
    "{ a comment }",
    "{ unclosed",
    "(",
    ")",
    "(1. a1)",
    ";",
    "; rest of line",
    "$1",
    "$",
    "!",
    "?!",
    "*",
    "1-0",
    "0-1",
    "2-0",
    "0-2",
    "1-1",
    "1/2-1/2",
    "...",
    ".",
    "1.",
    "1...",
    "2.",
    "99.",
    '"',
    "[",
    "]",
    "%",
]
TAG_NAMES = [
    "Variant",
    "GameType",
    "Result",
    "Position",
    "Termination",
    "Date",
    "White",
    "Black",
    "Event",
    "X",
]
TAG_VALUES = [
    "Bashni",
    "Morris",
    "Bobail",
    "Bilsang",
    "1-0",
    "*",
    "no-moves",
    "resignation",
    "2026.01.02",
    "?",
]


def records(game_name: str) -> st.SearchStrategy[str]:
    """A record: tag pairs (some broken) and movetext of real moves, numbers, results and
    the format's punctuation, each piece joined by a space, a newline or nothing."""
    positions_, moves_ = playout(game_name)
    value = st.one_of(
        st.sampled_from(TAG_VALUES + list(positions_[:3])),
        st.text(st.characters(codec="utf-8", blacklist_characters='"\\]\n\r'), max_size=12),
    )
    # Values each tag accepts, mostly: a refused tag ends the reading before the movetext.
    fitting = {
        "Variant": st.sampled_from([game_name.capitalize(), game_name, game_name.upper()]),
        "Result": st.sampled_from(sorted(records_format.ALL_RESULT_TOKENS)),
        "Termination": st.sampled_from(
            [*records_format.ENGINE_REASONS, *records_format.DECISIVE_ENDINGS, "aborted"]
        ),
        "Date": st.sampled_from(["2026.01.02", "2026.??.??", "????.??.??"]),
        "Position": st.sampled_from(positions_[:5]),
    }
    good_tag = st.one_of(
        st.tuples(st.just("Variant"), fitting["Variant"]),
        st.sampled_from(sorted(fitting)).flatmap(lambda n: st.tuples(st.just(n), fitting[n])),
        st.tuples(st.sampled_from(["White", "Black", "Event", "X"]), value),
    )
    broken_tag = st.one_of(
        st.builds(lambda n, v: f"[{n} {v}", st.sampled_from(TAG_NAMES), value),
        st.text(CHARS, max_size=10).map(lambda t: "[" + t),
    )
    # Mostly well-formed tags (a broken one ends the reading at once) and mostly real
    # moves and numbers, so the inputs get deep into the movetext.
    tags = st.lists(good_tag, max_size=4, unique_by=lambda pair: pair[0]).map(
        lambda pairs: [f'[{n} "{v}"]' for n, v in pairs]
    )
    real = st.one_of(st.sampled_from(moves_), NUMBERS.map(lambda n: n + "."))
    word = st.one_of(
        real,
        real,
        real,
        st.sampled_from(RECORD_WORDS),
        st.sampled_from(["{", "}", "{ c }", "(", ";"]),
        spliced(st.sampled_from(moves_)),
        st.text(CHARS, max_size=6),
    )
    glue = st.sampled_from([" ", " ", "\n", "", "\r\n", "\t"])

    @st.composite
    def build(draw: st.DrawFn) -> str:
        tag_lines = draw(tags)
        if draw(st.integers(0, 9)) == 0:
            tag_lines.insert(draw(st.integers(0, len(tag_lines))), draw(broken_tag))
        words = draw(st.lists(st.tuples(word, glue), max_size=30))
        head = "\n".join(tag_lines) + draw(st.sampled_from(["\n\n", "\n", "", " "]))
        # A real game's start, often: the numbers and moves a reader gets deep into.
        if draw(st.booleans()):
            start = " ".join(f"{i // 2 + 1}. {m}" if i % 2 == 0 else m for i, m in enumerate(moves_[:6]))
            head += start + " "
        return head + "".join(w + g for w, g in words)

    return build()


GAME_NAMES = [g.name for g in games.all()]
