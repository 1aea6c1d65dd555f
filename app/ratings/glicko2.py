"""Glicko-2 as issue 31 specifies it: pure arithmetic, no web and no database.

The rating period follows Glickman's "Example of the Glicko-2 system" (glicko.net,
the revision of 22 March 2022, which reads "f_C f_B <= 0" in step 5, item 4(b); the
first versions had "<") step by step: ``period_steps`` computes every quantity the
paper names (g, E, v, Delta, sigma', phi*, phi', mu'), so the tests can pin the paper's
worked example through the same steps. ``rate_period`` is the paper's general period
(any number of games); ``rate_game`` is the site's use of it: every rated game is one
rating period for both players, computed from both players' values before the game,
with the inactivity growth before it and the site's clamps after it.

Why our own module: the issue asks for these exact rules (the inactivity growth before
the period, the clamps, tau 0.75, the tolerance, step 5 with "<="), and what is on offer
differs. The ``glicko2`` package on PyPI (2.1.0) writes mu^2 where step 5's f needs
phi^2 (unseen in the paper's example, whose mu is 0), has no idle time, and keeps tau on
a class and the player in a mutable object; the Java calculator lichess's derives from
grows the deviation by the idle periods inside step 6 (sigma'^2 times them), not before
the game, and tests "<". The arithmetic is a page; owning it keeps every choice visible
and tested, and pure values fit inside one database transaction.

Units: ``Rating`` holds the displayed (Glicko-1) scale: rating, RD and the volatility
(the volatility has the same value on both scales). Steps 2-7 work on the Glicko-2
scale, mu = (r - 1500) / 173.7178 and phi = RD / 173.7178. Nothing is rounded.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum

#: The paper's conversion factor between the two scales (400 / ln 10).
SCALE = 173.7178
#: Centre of the displayed scale: mu = 0.
CENTRE = 1500.0

NEW_RATING = 1500.0
NEW_RD = 500.0
NEW_VOLATILITY = 0.09
#: Constrains how fast the volatility may change (the paper suggests 0.3 to 1.2).
TAU = 0.75
#: Step 5's convergence tolerance.
EPSILON = 0.000001
#: Rating periods per day of inactivity: RD 60 becomes RD 110 in 365 days at volatility
#: 0.06 (docs/ARCHITECTURE.md, "Ratings", derives it).
PERIODS_PER_DAY = 0.21436

RD_MIN = 45.0
RD_MAX = 500.0
VOLATILITY_MAX = 0.1
RATING_MIN = 400.0
#: A rating is provisional ("?") while its RD is at least this.
PROVISIONAL_RD = 110.0

#: Step 5 converges in a handful of iterations; this many means the arithmetic broke.
MAX_ITERATIONS = 1000


@dataclass(frozen=True)
class Rating:
    """One player's rating on the displayed scale."""

    rating: float = NEW_RATING
    rd: float = NEW_RD
    volatility: float = NEW_VOLATILITY

    @property
    def provisional(self) -> bool:
        return is_provisional(self.rd)


#: A player's values before their first rated game.
NEW = Rating()


def is_provisional(rd: float) -> bool:
    return rd >= PROVISIONAL_RD


class Result(Enum):
    """A game's result seen from player A; the value is A's score."""

    A_WINS = 1.0
    DRAW = 0.5
    B_WINS = 0.0

    @property
    def score_a(self) -> float:
        return self.value

    @property
    def score_b(self) -> float:
        return 1.0 - self.value


@dataclass(frozen=True)
class Game:
    """One game of a rating period: the opponent's values before it, and our score."""

    opponent: Rating
    score: float


@dataclass(frozen=True)
class Steps:
    """Every quantity of the paper's steps 2-8 for one player's period (unclamped)."""

    mu: float
    phi: float
    #: Step 3, per game: g(phi_j) and E(mu, mu_j, phi_j).
    g: tuple[float, ...]
    e: tuple[float, ...]
    #: Step 3: the estimated variance of the rating from the games alone.
    v: float
    #: Step 4: the estimated improvement.
    delta: float
    #: Step 5: the new volatility.
    sigma: float
    #: Step 6: the pre-period deviation grown by the new volatility.
    phi_star: float
    #: Step 7: the new deviation and rating (Glicko-2 scale).
    phi_new: float
    mu_new: float

    @property
    def after(self) -> Rating:
        """Step 8: back to the displayed scale."""
        return Rating(SCALE * self.mu_new + CENTRE, SCALE * self.phi_new, self.sigma)


def g(phi: float) -> float:
    return 1.0 / math.sqrt(1.0 + 3.0 * phi * phi / (math.pi * math.pi))


def expected(mu: float, mu_j: float, phi_j: float) -> float:
    return 1.0 / (1.0 + math.exp(-g(phi_j) * (mu - mu_j)))


def new_volatility(sigma: float, phi: float, v: float, delta: float, tau: float = TAU) -> float:
    """Step 5: the Illinois algorithm for the root of f, exactly as the paper lists it."""
    a = math.log(sigma * sigma)
    phi2, delta2 = phi * phi, delta * delta

    def f(x: float) -> float:
        ex = math.exp(x)
        return ex * (delta2 - phi2 - v - ex) / (2.0 * (phi2 + v + ex) ** 2) - (x - a) / (tau * tau)

    big_a = a
    if delta2 > phi2 + v:
        big_b = math.log(delta2 - phi2 - v)
    else:
        k = 1
        while f(a - k * tau) < 0:
            k += 1
        big_b = a - k * tau
    f_a, f_b = f(big_a), f(big_b)
    for _ in range(MAX_ITERATIONS):
        if abs(big_b - big_a) <= EPSILON:
            return math.exp(big_a / 2.0)
        big_c = big_a + (big_a - big_b) * f_a / (f_b - f_a)
        f_c = f(big_c)
        if f_c * f_b <= 0:
            big_a, f_a = big_b, f_b
        else:
            f_a = f_a / 2.0
        big_b, f_b = big_c, f_c
    raise ArithmeticError("the Glicko-2 volatility iteration did not converge")


def period_steps(player: Rating, games: Sequence[Game], tau: float = TAU) -> Steps:
    """Steps 1-7 of the paper for a player who played ``games`` (at least one)."""
    if not games:
        raise ValueError("a period without games only grows the deviation: see idle_period")
    mu = (player.rating - CENTRE) / SCALE  # step 2
    phi = player.rd / SCALE
    mus = [(game.opponent.rating - CENTRE) / SCALE for game in games]
    phis = [game.opponent.rd / SCALE for game in games]
    gs = tuple(g(phi_j) for phi_j in phis)  # step 3
    es = tuple(expected(mu, mu_j, phi_j) for mu_j, phi_j in zip(mus, phis, strict=True))
    v = 1.0 / sum(g_j * g_j * e_j * (1.0 - e_j) for g_j, e_j in zip(gs, es, strict=True))
    improvement = sum(g_j * (game.score - e_j) for g_j, e_j, game in zip(gs, es, games, strict=True))
    delta = v * improvement  # step 4
    sigma = new_volatility(player.volatility, phi, v, delta, tau)  # step 5
    phi_star = math.sqrt(phi * phi + sigma * sigma)  # step 6
    phi_new = 1.0 / math.sqrt(1.0 / (phi_star * phi_star) + 1.0 / v)  # step 7
    mu_new = mu + phi_new * phi_new * improvement
    return Steps(mu, phi, gs, es, v, delta, sigma, phi_star, phi_new, mu_new)


def rate_period(player: Rating, games: Sequence[Game], tau: float = TAU) -> Rating:
    """The paper's rating period, unclamped: the player's values after ``games``."""
    if not games:
        return idle_period(player)
    return period_steps(player, games, tau).after


def idle_period(player: Rating) -> Rating:
    """The paper's period without games: only the deviation grows, by one period."""
    phi = player.rd / SCALE
    return Rating(player.rating, SCALE * math.sqrt(phi * phi + player.volatility**2), player.volatility)


def grown(player: Rating, idle_days: float) -> Rating:
    """Before a game: the deviation grown by the days since the player's last rated game
    in this category (0 for a first game), phi^2 + sigma^2 * t, capped at RD 500."""
    if idle_days < 0 or math.isnan(idle_days):
        raise ValueError("idle days cannot be negative")
    phi = player.rd / SCALE
    t = idle_days * PERIODS_PER_DAY
    phi_grown = math.sqrt(phi * phi + player.volatility**2 * t)
    return Rating(player.rating, min(SCALE * phi_grown, RD_MAX), player.volatility)


def clamped(after: Rating) -> Rating:
    """After a game: RD within [45, 500], volatility at most 0.1, rating at least 400."""
    return Rating(
        max(after.rating, RATING_MIN),
        min(max(after.rd, RD_MIN), RD_MAX),
        min(after.volatility, VOLATILITY_MAX),
    )


def rate_game(
    before_a: Rating, before_b: Rating, result: Result, days_a: float, days_b: float
) -> tuple[Rating, Rating]:
    """One rated game as one rating period for both players.

    ``days_a`` / ``days_b``: days since that player's last rated game in the game's
    category, 0 for a first game. Both players are first grown by their inactivity;
    each is then rated against the other's grown values, and clamped.
    """
    a, b = grown(before_a, days_a), grown(before_b, days_b)
    after_a = rate_period(a, [Game(b, result.score_a)])
    after_b = rate_period(b, [Game(a, result.score_b)])
    return clamped(after_a), clamped(after_b)
