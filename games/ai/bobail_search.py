"""Bobail's master search: alpha-beta over bit masks, a turn's two slides in two loops.

The generic search (``games.ai.search``) reaches 6–8 plies in the master's 2 s
on Bobail, where games are decided by traps 9–10 plies deep (docs/benchmarks.md,
issue 35). Two costs dominate there: every node builds all of a position's
hundred moves as ``BobailMove`` tuples and board strings before it can see
that the mover slides the Neutron home at once, and a node's moves are ordered
as a hundred unrelated wholes, so a good electron reply found under one Neutron
slide is not tried first under the next one. Here a position is three ints
(the mover's electrons, the other side's, the Neutron's square), the
Neutron's slides are walked first (a slide home ends the node before any
electron move is made), each Neutron slide is followed by a loop over the
electron slides ordered by killers and history of their own, and a slide
count is a bit count.

Scores, depth (a ply is a whole turn) and the ``Progress`` it yields are the
generic search's, so ``levels`` and ``analysis`` treat it alike; the
repetition rule (a position met on the search path, or a third time with the
game's history, is a draw) too. Only the master level uses it: the
depth-bound levels keep the generic search and play exactly as before.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterator, Sequence

from games.ai.eval_bobail import ELECTRON_MOBILITY, NEUTRON_RANK, SAFE_CAP, SAFE_SLIDE, _towards_home
from games.ai.search import (
    ASPIRATION_LIMIT,
    EXACT,
    INFINITY,
    LOWER,
    MAX_PLY,
    STOP_CHECK_NODES,
    TT_LIMIT,
    UPPER,
    WIN,
    Progress,
    SearchStopped,
    _from_table,
    _to_table,
    is_forced_result,
)
from games.bobail import NEUTRON, RAYS, SIZE, SQUARES, WHITE, BobailMove, BobailState

#: Aspiration windows from this depth (whole turns) on.
ASPIRATION_FROM = 3

_WHITE_HOME = sum(1 << sq for sq in range(SQUARES - SIZE, SQUARES))  # rank 1
_BLACK_HOME = sum(1 << sq for sq in range(SIZE))  # rank 5
#: The squares next to each square: a slide that way exists iff that square is empty.
_NEIGHBOURS = tuple(sum(1 << ray[0] for ray in rays) for rays in RAYS)
#: Per side (True: White) and square, how many ranks the Neutron there stands nearer that side's home.
_NEARER = {
    white: tuple(_towards_home("w" if white else "b", sq) for sq in range(SQUARES)) for white in (True, False)
}
_HISTORY_CAP = 1 << 20


def _bits(mask: int) -> list[int]:
    squares = []
    while mask:
        low = mask & -mask
        squares.append(low.bit_length() - 1)
        mask ^= low
    return squares


def _stop(occupied: int, ray: tuple[int, ...]) -> int:
    last = -1
    for square in ray:
        if occupied >> square & 1:
            break
        last = square
    return last


def _mobility(mine: int, empty: int) -> int:
    count = 0
    while mine:
        low = mine & -mine
        count += (_NEIGHBOURS[low.bit_length() - 1] & empty).bit_count()
        mine ^= low
    return count


def _home_rays(occupied: int, neutron: int, away: int) -> list[tuple[int, ...]]:
    """The rays along which the Neutron would slide onto ``away``."""
    found = []
    for ray in RAYS[neutron]:
        stop = _stop(occupied, ray)
        if stop >= 0 and away >> stop & 1:
            found.append(ray)
    return found


def _refuted(
    after: int, neutron: int, mine: int, away: int, slides: list[tuple[int, int]] | None = None
) -> bool:
    """Whether every electron slide of ``mine`` leaves the Neutron a slide onto ``away``.

    ``after`` is the board's occupancy with the Neutron already on ``neutron``.
    One electron can block one ray (it cannot close two), and leaving a square
    can open another, so two open rays refute, none does not, and with one the
    slides that land on it are tried. ``slides``: the mover's slides, if known.
    """
    open_rays = _home_rays(after, neutron, away)
    if not open_rays:
        return False
    if len(open_rays) > 1:
        return True
    segment = 0
    for square in open_rays[0]:
        if after >> square & 1:
            break
        segment |= 1 << square
    if slides is None:
        slides = [
            (square, end) for square in _bits(mine) for ray in RAYS[square] if (end := _stop(after, ray)) >= 0
        ]
    for start, end in slides:
        if segment >> end & 1 and not _home_rays(after ^ (1 << start) ^ (1 << end), neutron, away):
            return False
    return True


def masks(state: BobailState) -> tuple[int, int, int, bool]:
    """(the mover's electrons, the other side's, the Neutron's square, whether White moves)."""
    white = state.side == WHITE
    w = b = 0
    for square, char in enumerate(state.board):
        if char == "w":
            w |= 1 << square
        elif char == "b":
            b |= 1 << square
    neutron = state.board.index(NEUTRON)
    return (w, b, neutron, True) if white else (b, w, neutron, False)


def _key(mine: int, theirs: int, neutron: int, white: bool) -> int:
    return mine | theirs << 25 | neutron << 50 | white << 55


class BobailSearcher:
    """One search's tables and counters."""

    def __init__(
        self,
        history: Sequence[BobailState] = (),
        stop: Callable[[], bool] | None = None,
        max_nodes: int | None = None,
        deadline: float | None = None,
    ) -> None:
        self.stop = stop
        self.max_nodes = max_nodes
        self.deadline = deadline
        self.nodes = 0
        self.table: dict[int, tuple[int, int, int, tuple[int, int, int] | None]] = {}
        self.killers: list[list[tuple[int, int] | None]] = [[None, None] for _ in range(MAX_PLY + 2)]
        self.history: dict[tuple[int, int, bool], int] = {}
        self.path: dict[int, int] = {}
        self.earlier: dict[int, int] = {}
        #: With an ``rng``: the seed of the root's one shuffle (see ``search``).
        self.root_seed: int | None = None
        for state in history:
            key = _key(*masks(state))
            self.earlier[key] = self.earlier.get(key, 0) + 1

    def _check_stop(self) -> None:
        if self.deadline is not None and time.monotonic() >= self.deadline:
            raise SearchStopped
        if self.stop is not None and self.stop():
            raise SearchStopped
        if self.max_nodes is not None and self.nodes >= self.max_nodes:
            raise SearchStopped

    def line(
        self, mine: int, theirs: int, neutron: int, white: bool, best: tuple[int, int, int], limit: int
    ) -> tuple[BobailMove, ...]:
        """The expected line from the root, read back from the table."""
        moves: list[BobailMove] = []
        seen = set()
        step: tuple[int, int, int] | None = best
        while step is not None and len(moves) < limit:
            stop, start, end = step
            moves.append(_move(step, neutron))
            if start < 0:
                break
            mine, theirs = theirs, mine ^ (1 << start) ^ (1 << end)
            neutron, white = stop, not white
            key = _key(mine, theirs, neutron, white)
            entry = self.table.get(key)
            if entry is None or key in seen:
                break
            seen.add(key)
            step = entry[3]
        return tuple(moves)

    def evaluate(self, mine: int, theirs: int, neutron: int, white: bool, stops: list[int], ply: int) -> int:
        """The score of a position at the horizon whose mover cannot slide the Neutron home.

        ``BobailEvaluation``'s terms, with its safe slides counted one turn
        further: a Neutron slide after which the other side slides it home
        whatever electron follows (``_refuted``) is not safe. When no slide is
        safe, the result is proved and scored as the search would score it.
        """
        occupied = mine | theirs | 1 << neutron
        away = _BLACK_HOME if white else _WHITE_HOME
        safe = 0
        legal = False
        handed = False
        for stop in stops:
            if away >> stop & 1:
                handed = True
                continue
            after = occupied ^ (1 << neutron) ^ (1 << stop)
            free = ~after
            if not any(_NEIGHBOURS[square] & free for square in _bits(mine)):
                continue  # not a move: no electron of the mover's can follow it
            legal = True
            if not _refuted(after, stop, mine, away):
                safe += 1
        if not safe:
            if legal:
                return -(WIN - ply - 2)  # every move lets the other side slide home next
            return -(WIN - ply - 1) if handed else -(WIN - ply)
        empty = ~occupied
        score = NEUTRON_RANK * _NEARER[white][neutron] + SAFE_SLIDE * min(safe, SAFE_CAP)
        return score + ELECTRON_MOBILITY * (_mobility(mine, empty) - _mobility(theirs, empty))

    def negamax(
        self, mine: int, theirs: int, neutron: int, white: bool, depth: int, alpha: int, beta: int, ply: int
    ) -> tuple[int, tuple[int, int, int] | None]:
        """The score for the mover within (alpha, beta), and the best (Neutron stop, electron from, to)."""
        self.nodes += 1
        if self.nodes % STOP_CHECK_NODES == 0:
            self._check_stop()
        occupied = mine | theirs | 1 << neutron
        home, away = (_WHITE_HOME, _BLACK_HOME) if white else (_BLACK_HOME, _WHITE_HOME)
        stops = []
        for ray in RAYS[neutron]:
            stop = _stop(occupied, ray)
            if stop < 0:
                continue
            if home >> stop & 1:
                return WIN - ply - 1, (stop, -1, -1)  # the Neutron slides home: won at once
            stops.append(stop)
        key = _key(mine, theirs, neutron, white)
        if ply > 0 and (self.path.get(key, 0) or self.earlier.get(key, 0) >= 2):
            return 0, None
        entry = self.table.get(key)
        table_move = None
        if entry is not None:
            stored_depth, bound, stored, table_move = entry
            if stored_depth >= depth and ply > 0:
                score = _from_table(stored, ply)
                if (
                    bound == EXACT
                    or (bound == LOWER and score >= beta)
                    or (bound == UPPER and score <= alpha)
                ):
                    return score, table_move
        if depth <= 0:
            return self.evaluate(mine, theirs, neutron, white, stops, ply), None

        safe = [stop for stop in stops if not away >> stop & 1]
        shuffle = None if ply or self.root_seed is None else random.Random(self.root_seed).shuffle
        if shuffle is not None:
            shuffle(safe)  # the sorts below are stable: equal moves keep this order
        nearer = _NEARER[white]
        safe.sort(key=nearer.__getitem__, reverse=True)
        if table_move is not None and table_move[0] in safe:
            safe.remove(table_move[0])
            safe.insert(0, table_move[0])
        best = -INFINITY
        best_move: tuple[int, int, int] | None = None
        alpha_before = alpha
        self.path[key] = self.path.get(key, 0) + 1
        killers = self.killers[ply]
        history = self.history
        try:
            moved = False
            for stop in safe:
                after = occupied ^ (1 << neutron) ^ (1 << stop)
                slides = []
                for square in _bits(mine):
                    for ray in RAYS[square]:
                        end = _stop(after, ray)
                        if end >= 0:
                            slides.append((square, end))
                if not slides:
                    continue  # not a move: no electron of the mover's can follow it
                if shuffle is not None:
                    shuffle(slides)
                moved = True
                if _refuted(after, stop, mine, away, slides):
                    # Whatever electron follows, the other side slides the Neutron home.
                    if -(WIN - ply - 2) > best:
                        best, best_move = -(WIN - ply - 2), (stop, *slides[0])
                    continue
                scores = [history.get((s, e, white), 0) for s, e in slides]
                for killer in killers:
                    if killer is not None and killer in slides:
                        scores[slides.index(killer)] += _HISTORY_CAP + 1
                if table_move is not None and table_move[0] == stop:
                    first = (table_move[1], table_move[2])
                    if first in slides:
                        scores[slides.index(first)] = 1 << 40
                order = sorted(range(len(slides)), key=scores.__getitem__, reverse=True)
                for index in order:
                    start, end = slides[index]
                    child_mine = theirs
                    child_theirs = mine ^ (1 << start) ^ (1 << end)
                    if best_move is None:
                        score = -self.negamax(
                            child_mine, child_theirs, stop, not white, depth - 1, -beta, -alpha, ply + 1
                        )[0]
                    else:
                        score = -self.negamax(
                            child_mine, child_theirs, stop, not white, depth - 1, -alpha - 1, -alpha, ply + 1
                        )[0]
                        if alpha < score < beta:
                            score = -self.negamax(
                                child_mine, child_theirs, stop, not white, depth - 1, -beta, -alpha, ply + 1
                            )[0]
                    if score > best:
                        best, best_move = score, (stop, start, end)
                        if score > alpha:
                            alpha = score
                            if alpha >= beta:
                                if killers[0] != (start, end):
                                    killers[1] = killers[0]
                                    killers[0] = (start, end)
                                hkey = (start, end, white)
                                history[hkey] = min(history.get(hkey, 0) + depth * depth, _HISTORY_CAP)
                                break
                if alpha >= beta:
                    break
            if not moved:
                # Only slides onto the other side's home rank are left (the mover hands
                # the game over), or none at all (the mover has no move and loses).
                if len(safe) < len(stops):
                    lost = next(stop for stop in stops if away >> stop & 1)
                    best, best_move = -(WIN - ply - 1), (lost, -1, -1)
                else:
                    best, best_move = -(WIN - ply), None
        finally:
            self.path[key] -= 1
        bound = UPPER if best <= alpha_before else LOWER if best >= beta else EXACT
        if len(self.table) >= TT_LIMIT:
            self.table.clear()
        self.table[key] = (depth, bound, _to_table(best, ply), best_move)
        return best, best_move


def _move(best: tuple[int, int, int], neutron: int) -> BobailMove:
    stop, start, end = best
    if start < 0:
        return BobailMove(neutron, stop)
    return BobailMove(neutron, stop, start, end)


def search(
    state: BobailState,
    max_depth: int,
    *,
    history: Sequence[BobailState] = (),
    stop: Callable[[], bool] | None = None,
    max_nodes: int | None = None,
    deadline: float | None = None,
    aspiration: int | None = None,
    rng: random.Random | None = None,
) -> Iterator[Progress]:
    """Search ``state`` to depths 1..``max_depth`` (whole turns), yielding each finished depth.

    As ``games.ai.search.search`` for Bobail: nothing for a finished position, a
    stop at a proved result, ``stop``, ``max_nodes`` and ``deadline``
    (``time.monotonic``) drop the unfinished depth.
    ``rng``, when given, shuffles the root's moves, the same way at every depth, so
    that equally scored moves are chosen at random but reproducibly (as the generic
    search does); without it, ties go to the first move found.
    """
    mine, theirs, neutron, white = masks(state)
    if (1 << neutron) & (_WHITE_HOME | _BLACK_HOME):
        return
    searcher = BobailSearcher(history, stop, max_nodes, deadline)
    if rng is not None:
        searcher.root_seed = rng.getrandbits(64)
    score = 0
    for depth in range(1, max_depth + 1):
        try:
            if aspiration is None or depth < ASPIRATION_FROM or is_forced_result(score):
                score, best = searcher.negamax(mine, theirs, neutron, white, depth, -INFINITY, INFINITY, 0)
            else:
                low, high, width = score - aspiration, score + aspiration, aspiration
                while True:
                    score, best = searcher.negamax(mine, theirs, neutron, white, depth, low, high, 0)
                    if low < score < high:
                        break
                    width *= 4
                    if width > ASPIRATION_LIMIT:
                        score, best = searcher.negamax(
                            mine, theirs, neutron, white, depth, -INFINITY, INFINITY, 0
                        )
                        break
                    if score <= low:
                        low = score - width
                    else:
                        high = score + width
        except SearchStopped:
            return
        if best is None:
            return  # the mover has no move: the game is over
        move = _move(best, neutron)
        yield Progress(
            depth, move, score, searcher.nodes, searcher.line(mine, theirs, neutron, white, best, depth)
        )
        if is_forced_result(score):
            return
