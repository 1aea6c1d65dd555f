"""Glicko-2 as issue 31 specifies it (app/ratings/glicko2.py), on its own.

The paper's worked example through the same steps; one-game cases against a second,
deliberately plain implementation written here (bisection instead of the Illinois
method, no shared helper); the inactivity growth; every clamp; the provisional flag;
symmetry; and properties over the whole range of values the site can hold.
"""

from __future__ import annotations

import itertools
import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.ratings import glicko2
from app.ratings.glicko2 import NEW, Game, Rating, Result, grown, rate_game, rate_period

# ------------------------------------------------------------------ the paper's example

PLAYER = Rating(1500, 200, 0.06)
EXAMPLE = [
    Game(Rating(1400, 30, 0.06), 1.0),
    Game(Rating(1550, 100, 0.06), 0.0),
    Game(Rating(1700, 300, 0.06), 0.0),
]


def test_the_worked_example_step_by_step() -> None:
    """Each quantity the paper prints, rounded as it prints it."""
    steps = glicko2.period_steps(PLAYER, EXAMPLE, tau=0.5)
    # Step 2
    assert steps.mu == 0.0
    assert round(steps.phi, 4) == 1.1513
    # Step 3: g(phi_j) and E for the three opponents
    assert [round(x, 4) for x in steps.g] == [0.9955, 0.9531, 0.7242]
    assert [round(x, 3) for x in steps.e] == [0.639, 0.432, 0.303]
    # Step 5: the paper prints sigma' = 0.05999, cut at five places (it is 0.0599960).
    assert math.floor(steps.sigma * 1e5) / 1e5 == 0.05999
    # Step 6, 7
    assert round(steps.phi_star, 4) == 1.1529  # the paper's sqrt(1.1513^2 + 0.05999^2)
    assert round(steps.phi_new, 4) == 0.8722
    assert round(steps.mu_new, 4) == -0.2069
    # Step 8 as the paper does it: from mu' and phi' as printed (four places).
    assert round(glicko2.SCALE * -0.2069 + 1500, 2) == 1464.06
    assert round(glicko2.SCALE * 0.8722, 2) == 151.52


def test_the_paper_s_v_and_delta_come_from_its_rounded_g_and_e() -> None:
    """The paper prints v = 1.7785 and Delta = -0.4834: the sums over its rounded g and
    E (our unrounded v is 1.7790). Fed the same rounded values, the steps agree."""
    g, e, s = [0.9955, 0.9531, 0.7242], [0.639, 0.432, 0.303], [1.0, 0.0, 0.0]
    v = 1 / sum(gj * gj * ej * (1 - ej) for gj, ej in zip(g, e, strict=True))
    delta = v * sum(gj * (sj - ej) for gj, ej, sj in zip(g, e, s, strict=True))
    assert round(v, 4) == 1.7785
    assert round(delta, 4) == -0.4834
    steps = glicko2.period_steps(PLAYER, EXAMPLE, tau=0.5)
    assert round(steps.v, 4) == 1.7790
    assert round(steps.delta, 4) == -0.4839
    # Step 5 on the paper's own rounded inputs gives its sigma' too.
    sigma = glicko2.new_volatility(0.06, 1.1513, 1.7785, -0.4834, tau=0.5)
    assert math.floor(sigma * 1e5) / 1e5 == 0.05999


def test_the_worked_example_unrounded() -> None:
    """Unrounded the rating is 1464.0507 (the paper's 1464.06 rounds mu' first), RD
    151.5165, volatility 0.059996; the second implementation agrees within step 5's
    tolerance (1e-6 on ln sigma^2, so sigma' within 5e-7 of it relatively)."""
    after = rate_period(PLAYER, EXAMPLE, tau=0.5)
    assert after.rating == pytest.approx(1464.0507, abs=5e-5)
    assert after.rd == pytest.approx(151.5165, abs=5e-5)
    assert after.volatility == pytest.approx(0.059996, abs=5e-7)
    plain = plain_period((1500, 200, 0.06), [(1400, 30, 1.0), (1550, 100, 0.0), (1700, 300, 0.0)], tau=0.5)
    assert (after.rating, after.rd, after.volatility) == pytest.approx(plain, rel=1e-6)


# ------------------------------------------------------------------ a second implementation


def plain_period(
    player: tuple[float, float, float], games: list[tuple[float, float, float]], tau: float
) -> tuple[float, float, float]:
    """Glicko-2 written out plainly from the paper, independently of the module: the
    volatility as the root of f nearest ln sigma^2 (walked to in steps of 0.001 from
    it, then bisected to 1e-13) instead of the Illinois method."""
    r, rd, sigma = player
    mu, phi = (r - 1500) / 173.7178, rd / 173.7178
    inv_v = 0.0
    total = 0.0
    for r_j, rd_j, s_j in games:
        phi_j = rd_j / 173.7178
        g_j = 1 / math.sqrt(1 + 3 * phi_j**2 / math.pi**2)
        e_j = 1 / (1 + math.exp(-g_j * (mu - (r_j - 1500) / 173.7178)))
        inv_v += g_j**2 * e_j * (1 - e_j)
        total += g_j * (s_j - e_j)
    v = 1 / inv_v
    delta = v * total
    a = math.log(sigma**2)

    def f(x: float) -> float:
        return (
            math.exp(x) * (delta**2 - phi**2 - v - math.exp(x)) / (2 * (phi**2 + v + math.exp(x)) ** 2)
            - (x - a) / tau**2
        )

    # f > 0 left of its roots and < 0 right of them; the step is 0.001 up from a when
    # f(a) > 0, else down. Then bisect the step that crossed zero.
    step = 0.001 if f(a) > 0 else -0.001
    near = a
    while (f(near + step) > 0) == (f(a) > 0):
        near += step
    low, high = sorted((near, near + step))
    while high - low > 1e-13:
        middle = (low + high) / 2
        if f(middle) > 0:
            low = middle
        else:
            high = middle
    new_sigma = math.exp(low / 2)
    phi_star = math.sqrt(phi**2 + new_sigma**2)
    new_phi = 1 / math.sqrt(1 / phi_star**2 + 1 / v)
    new_mu = mu + new_phi**2 * total
    return 173.7178 * new_mu + 1500, 173.7178 * new_phi, new_sigma


def plain_game(
    a: tuple[float, float, float], b: tuple[float, float, float], score_a: float, days_a: float, days_b: float
) -> tuple[tuple[float, float, float], tuple[float, float, float]]:
    """The site's rule written out: grow, rate each against the other, clamp."""

    def grow(p: tuple[float, float, float], days: float) -> tuple[float, float, float]:
        phi2 = (p[1] / 173.7178) ** 2 + p[2] ** 2 * days * 0.21436
        return p[0], min(173.7178 * math.sqrt(phi2), 500.0), p[2]

    def clamp(p: tuple[float, float, float]) -> tuple[float, float, float]:
        return max(p[0], 400.0), min(max(p[1], 45.0), 500.0), min(p[2], 0.1)

    a, b = grow(a, days_a), grow(b, days_b)
    new_a = plain_period(a, [(b[0], b[1], score_a)], tau=0.75)
    new_b = plain_period(b, [(a[0], a[1], 1 - score_a)], tau=0.75)
    return clamp(new_a), clamp(new_b)


ONE_GAME_CASES = [
    # before A, before B, result, days A, days B
    ((1500, 500, 0.09), (1500, 500, 0.09), Result.A_WINS, 0, 0),
    ((1500, 500, 0.09), (1500, 500, 0.09), Result.DRAW, 0, 0),
    ((1820, 62, 0.058), (1510, 140, 0.075), Result.B_WINS, 3.5, 0.2),
    ((1820, 62, 0.058), (1510, 140, 0.075), Result.DRAW, 40, 1),
    ((2210, 48, 0.06), (1340, 90, 0.06), Result.A_WINS, 1, 1),
    ((1050, 300, 0.1), (2400, 45, 0.04), Result.A_WINS, 0, 700),
    ((1500, 500, 0.09), (1930, 70, 0.062), Result.B_WINS, 0, 12),
]


@pytest.mark.parametrize(("a", "b", "result", "days_a", "days_b"), ONE_GAME_CASES)
def test_one_game_against_the_plain_implementation(
    a: tuple[float, float, float],
    b: tuple[float, float, float],
    result: Result,
    days_a: float,
    days_b: float,
) -> None:
    after_a, after_b = rate_game(Rating(*a), Rating(*b), result, days_a, days_b)
    want_a, want_b = plain_game(a, b, result.score_a, days_a, days_b)
    assert (after_a.rating, after_a.rd, after_a.volatility) == pytest.approx(want_a, rel=1e-6)
    assert (after_b.rating, after_b.rd, after_b.volatility) == pytest.approx(want_b, rel=1e-6)


def test_two_new_players_one_win_by_hand() -> None:
    """Worked by hand: phi = 500/173.7178 = 2.87823, g = 1/sqrt(1 + 3 phi^2/pi^2) = 0.53315,
    E = 0.5, v = 1/(g^2 E(1-E)) = 14.0722; the winner's mu' = phi'^2 g / 2; the loser
    mirrors it around 1500, both with the same RD."""
    winner, loser = rate_game(NEW, NEW, Result.A_WINS, 0, 0)
    g = 1 / math.sqrt(1 + 3 * (500 / 173.7178) ** 2 / math.pi**2)
    assert g == pytest.approx(0.53315, abs=1e-5)
    v = 1 / (g * g * 0.25)
    assert v == pytest.approx(14.0724, abs=1e-4)
    phi_new = winner.rd / 173.7178
    assert winner.rating == pytest.approx(1500 + 173.7178 * phi_new**2 * g * 0.5, rel=1e-12)
    assert winner.rating - 1500 == pytest.approx(1500 - loser.rating, rel=1e-12)
    assert winner.rd == pytest.approx(loser.rd, rel=1e-9)
    # phi' is below both phi* (about phi) and sqrt(v): a new player's RD drops to about 397.
    assert winner.rd == pytest.approx(396.81, abs=0.01)
    assert winner.rating == pytest.approx(1741.62, abs=0.01)


# ------------------------------------------------------------------ inactivity


def test_a_settled_player_idle_for_a_year_is_provisional_again() -> None:
    """The constant's meaning: RD 60 at volatility 0.06 grows to 110 in 365 days."""
    after_a_year = grown(Rating(1800, 60, 0.06), 365)
    assert after_a_year.rd == pytest.approx(110.0, abs=0.01)
    assert after_a_year.provisional
    assert not grown(Rating(1800, 60, 0.06), 360).provisional
    assert after_a_year.rating == 1800 and after_a_year.volatility == 0.06


def test_inactivity_growth_formula_and_cap() -> None:
    before = Rating(1650, 80, 0.07)
    for days in (0.0, 0.5, 10, 100):
        phi2 = (80 / glicko2.SCALE) ** 2 + 0.07**2 * days * glicko2.PERIODS_PER_DAY
        assert grown(before, days).rd == pytest.approx(glicko2.SCALE * math.sqrt(phi2), rel=1e-12)
    assert grown(before, 0).rd == 80  # a first game, or one right after the last: no growth
    assert grown(before, 100_000).rd == 500.0  # capped
    assert grown(Rating(1500, 499, 0.09), 30).rd == 500.0
    with pytest.raises(ValueError):
        grown(before, -1)


def test_inactivity_is_applied_before_the_game_and_changes_it() -> None:
    """The same game a month later moves the rating more, since the RD grew first."""
    settled, rival = Rating(1700, 50, 0.06), Rating(1700, 50, 0.06)
    soon, _ = rate_game(settled, rival, Result.A_WINS, 1, 1)
    later, _ = rate_game(settled, rival, Result.A_WINS, 30, 1)
    assert later.rating - 1700 > soon.rating - 1700 > 0
    # and the result equals rating the grown values with no further growth
    direct, _ = rate_game(grown(settled, 30), grown(rival, 1), Result.A_WINS, 0, 0)
    assert later == direct


# ------------------------------------------------------------------ clamps


def test_rd_never_below_45() -> None:
    # Unclamped, a settled player against a settled opponent would fall below 45.
    settled = Rating(1500, 45, 0.03)
    unclamped = rate_period(settled, [Game(Rating(1500, 45, 0.03), 1.0)])
    assert unclamped.rd < 45
    after, _ = rate_game(settled, Rating(1500, 45, 0.03), Result.A_WINS, 0, 0)
    assert after.rd == 45.0


def test_rd_never_above_500() -> None:
    assert glicko2.clamped(Rating(1500, 612.0, 0.05)).rd == 500.0
    # A new player's RD never exceeds 500 after a game (step 6 adds sigma'^2 to 500^2).
    after, _ = rate_game(NEW, Rating(1500, 45, 0.06), Result.A_WINS, 0, 0)
    assert after.rd <= 500.0


def test_volatility_at_most_0_1() -> None:
    """A 1050 beating a 2400: the winner's volatility would rise above 0.1."""
    upstart, master = Rating(1050, 300, 0.1), Rating(2400, 96.28, 0.04)
    unclamped = rate_period(upstart, [Game(master, 1.0)])
    assert unclamped.volatility > 0.1
    after, _ = rate_game(upstart, master, Result.A_WINS, 0, 0)
    assert after.volatility == 0.1
    assert after.rating == unclamped.rating and after.rd == unclamped.rd


def test_step_5_takes_the_root_of_f_nearest_the_old_volatility() -> None:
    """In that upset f has three roots between ln sigma^2 and ln(Delta^2 - phi^2 - v);
    the paper's Illinois steps from that bracket end at the one nearest the old
    volatility (0.1001), not at the one a plain bisection of the bracket finds (228)."""
    steps = glicko2.period_steps(Rating(1050, 300, 0.1), [Game(Rating(2400, 96.28, 0.04), 1.0)])
    a = math.log(0.1**2)
    phi2, v, delta2 = steps.phi**2, steps.v, steps.delta**2

    def f(x: float) -> float:
        ex = math.exp(x)
        return ex * (delta2 - phi2 - v - ex) / (2 * (phi2 + v + ex) ** 2) - (x - a) / 0.75**2

    high = math.log(delta2 - phi2 - v)
    samples = [a + (high - a) * i / 10_000 for i in range(10_001)]
    crossings = sum((f(x) > 0) != (f(y) > 0) for x, y in itertools.pairwise(samples))
    assert crossings == 3
    assert steps.sigma == pytest.approx(0.100128, abs=1e-6)
    assert abs(f(math.log(steps.sigma**2))) < 1e-4


def test_rating_at_least_400() -> None:
    weak, rival = Rating(420, 300, 0.09), Rating(420, 100, 0.06)
    unclamped = rate_period(weak, [Game(rival, 0.0)])
    assert unclamped.rating < 400
    after, _ = rate_game(weak, rival, Result.B_WINS, 0, 0)
    assert after.rating == 400.0
    assert after.rd == unclamped.rd
    floor_loss, _ = rate_game(Rating(400, 45, 0.06), Rating(400, 45, 0.06), Result.B_WINS, 0, 0)
    assert floor_loss.rating == 400.0


# ------------------------------------------------------------------ provisional, symmetry


def test_provisional_while_rd_at_least_110() -> None:
    assert NEW.provisional
    assert Rating(1500, 110.0, 0.06).provisional
    assert not Rating(1500, 109.999, 0.06).provisional
    assert not Rating(1500, 45, 0.06).provisional


def test_a_new_player_stays_provisional_for_a_few_games_then_settles() -> None:
    player, games = NEW, 0
    rival = Rating(1500, 60, 0.06)
    while player.provisional:
        player, _ = rate_game(player, rival, Result.DRAW, 0, 0)
        games += 1
    assert 5 <= games <= 30, games


def test_a_draw_between_equal_new_players_changes_nothing_but_rd() -> None:
    after_a, after_b = rate_game(NEW, NEW, Result.DRAW, 0, 0)
    assert after_a == after_b
    assert after_a.rating == 1500.0
    assert after_a.rd < 500
    # Step 5 always moves the volatility a little (with Delta = 0 the root of f lies just
    # below ln sigma^2): by less than 0.00001 here.
    assert after_a.volatility == pytest.approx(0.09, abs=1e-5)


# ------------------------------------------------------------------ properties

ratings = st.builds(
    Rating,
    rating=st.floats(400, 3500),
    rd=st.floats(45, 500),
    volatility=st.floats(0.01, 0.1),
)
days = st.floats(0, 3650)
results = st.sampled_from(list(Result))


@given(ratings, ratings, days, days)
def test_a_win_never_lowers_the_winner_s_rating(a: Rating, b: Rating, days_a: float, days_b: float) -> None:
    winner, loser = rate_game(a, b, Result.A_WINS, days_a, days_b)
    assert winner.rating >= a.rating
    assert loser.rating <= b.rating


@given(ratings, ratings, results, days, days)
def test_outputs_within_the_clamps(
    a: Rating, b: Rating, result: Result, days_a: float, days_b: float
) -> None:
    for after in rate_game(a, b, result, days_a, days_b):
        assert after.rating >= 400
        assert 45 <= after.rd <= 500
        assert 0 < after.volatility <= 0.1
        assert all(math.isfinite(x) for x in (after.rating, after.rd, after.volatility))


@given(ratings, ratings, results, days, days)
def test_swapping_players_swaps_results(
    a: Rating, b: Rating, result: Result, days_a: float, days_b: float
) -> None:
    swapped = {Result.A_WINS: Result.B_WINS, Result.B_WINS: Result.A_WINS, Result.DRAW: Result.DRAW}[result]
    after_a, after_b = rate_game(a, b, result, days_a, days_b)
    assert rate_game(b, a, swapped, days_b, days_a) == (after_b, after_a)


@given(ratings, ratings, days, days)
def test_a_win_is_worth_at_least_a_draw(a: Rating, b: Rating, days_a: float, days_b: float) -> None:
    win, _ = rate_game(a, b, Result.A_WINS, days_a, days_b)
    draw, _ = rate_game(a, b, Result.DRAW, days_a, days_b)
    loss, _ = rate_game(a, b, Result.B_WINS, days_a, days_b)
    assert win.rating >= draw.rating >= loss.rating
