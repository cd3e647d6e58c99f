"""Battle logs: counts, validation, Bradley-Terry against choix, bootstrap properties and coverage."""

from __future__ import annotations

import choix
import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.special import ndtri

from benchvote.battles import WINNERS, _redraws, _triples, battle_counts, battle_ratings
from benchvote.comparisons import _surely_better, holm


def log(rows) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=["model_a", "model_b", "winner"])


def simulated(strengths: np.ndarray, n: int, rng, tie_share: float = 0.1) -> pd.DataFrame:
    """``n`` battles between random pairs, decided by Bradley-Terry with the given log-strengths, some ties."""
    m = len(strengths)
    a = rng.integers(0, m, n)
    b = (a + rng.integers(1, m, n)) % m
    p = 1 / (1 + np.exp(strengths[b] - strengths[a]))
    u = rng.random(n)
    winner = np.where(u < tie_share, "tie", np.where(u < tie_share + (1 - tie_share) * p, "model_a", "model_b"))
    names = np.array([f"m{k:03d}" for k in range(m)])
    return pd.DataFrame({"model_a": names[a], "model_b": names[b], "winner": winner})


def choix_pairs(battles: pd.DataFrame, models: list) -> list[tuple[int, int]]:
    """The log as choix's (winner, loser) pairs: a decisive battle twice, a tie once each way (half a win each)."""
    index = {name: k for k, name in enumerate(models)}
    pairs = []
    for a, b, w in zip(battles.model_a, battles.model_b, battles.winner):
        i, j = index[a], index[b]
        pairs += [(i, j), (i, j)] if w == "model_a" else [(j, i), (j, i)] if w == "model_b" else [(i, j), (j, i)]
    return pairs


# --------------------------------------------------------------------------- counts


def test_counts_keep_decisive_wins_and_ties_apart_and_points_add_half_ties():
    c = battle_counts(
        log(
            [
                ("x", "y", "model_a"),
                ("y", "x", " Model_A "),
                ("x", "z", "b"),
                ("z", "y", "tie (bothbad)"),
                ("y", "z", "TIE"),
                ("x", "y", "model_b"),
            ]
        )
    )
    assert c.models == ["x", "y", "z"] and c.n_battles == 6
    assert c.wins.tolist() == [[0, 1, 0], [2, 0, 0], [1, 0, 0]]
    assert c.ties.tolist() == [[0, 0, 0], [0, 0, 2], [0, 2, 0]]
    assert c.points().tolist() == [[0, 1, 0], [2, 0, 1], [1, 1, 0]]


@pytest.mark.parametrize("spelling", sorted(WINNERS))
def test_every_documented_spelling_is_read(spelling):
    c = battle_counts(log([("x", "y", spelling.upper()), ("x", "y", "tie")]))
    outcome = WINNERS[spelling]
    expected = [[0, 1], [0, 0]] if outcome == 0 else [[0, 0], [1, 0]] if outcome == 1 else [[0, 0], [0, 0]]
    assert c.wins.tolist() == expected
    assert c.ties[0, 1] == (2 if outcome == 2 else 1)


def test_counts_agree_with_a_loop_over_the_battles():
    battles = simulated(np.linspace(-1, 1, 7), 3000, np.random.default_rng(3))
    c = battle_counts(battles)
    wins, ties = np.zeros((7, 7)), np.zeros((7, 7))
    index = {name: k for k, name in enumerate(c.models)}
    for a, b, w in zip(battles.model_a, battles.model_b, battles.winner):
        i, j = index[a], index[b]
        if w == "tie":
            ties[i, j] += 1
            ties[j, i] += 1
        elif w == "model_a":
            wins[i, j] += 1
        else:
            wins[j, i] += 1
    assert np.array_equal(c.wins, wins) and np.array_equal(c.ties, ties)


# --------------------------------------------------------------------------- validation


def test_every_problem_of_a_log_gets_its_own_line():
    bad = log([("x", "x", "model_a"), ("x", "y", "maybe"), (None, "y", "tie"), ("y", "x", "a"), ("x", "y", None)])
    with pytest.raises(ValueError) as info:
        battle_counts(bad)
    lines = str(info.value).splitlines()
    assert len(lines) == 4
    assert "without a model name" in lines[0] and "(first: 2)" in lines[0]
    assert "playing itself: x" in lines[1]
    assert "1 row without a winner (first: 4)" in lines[2]
    assert "unknown winner: 'maybe' (1 row)" in lines[3]


def test_missing_columns_are_each_named():
    with pytest.raises(ValueError) as info:
        battle_counts(pd.DataFrame({"model_a": ["x"], "result": ["a"]}))
    lines = str(info.value).splitlines()
    assert len(lines) == 2 and "'model_b'" in lines[0] and "'winner'" in lines[1]
    with pytest.raises(TypeError, match="DataFrame"):
        battle_counts([("x", "y", "a")])


def test_one_model_and_disconnected_groups_are_refused_with_the_groups_named():
    with pytest.raises(ValueError, match="0 models; a ranking needs at least 2"):
        battle_counts(log([]).astype(object))
    with pytest.raises(ValueError, match=r"2 groups that never met.*\{a, b, c\}; \{x, y\}"):
        battle_counts(log([("a", "b", "a"), ("b", "c", "tie"), ("x", "y", "b")]))


def test_ratings_that_do_not_exist_name_the_models_that_never_lose():
    with pytest.raises(ValueError, match="model x never lost"):
        battle_ratings(log([("x", "y", "a"), ("y", "z", "a"), ("z", "y", "a"), ("z", "x", "b")]), n_boot=10)


def test_options_are_checked():
    battles = simulated(np.zeros(3), 200, np.random.default_rng(0))
    for kwargs in (dict(n_boot=1), dict(level=1.0), dict(seed=-1)):
        with pytest.raises(ValueError):
            battle_ratings(battles, **kwargs)


# --------------------------------------------------------------------------- oracle: choix


@pytest.mark.parametrize("tie_share", [0.0, 0.2])
@pytest.mark.parametrize("fit", ["ilsr", "mm", "opt"])
def test_ratings_agree_with_choix_up_to_a_shift(fit, tie_share):
    battles = simulated(np.random.default_rng(5).normal(size=12), 2000, np.random.default_rng(6), tie_share)
    r = battle_ratings(battles, n_boot=2)
    pairs = choix_pairs(battles, r.models)
    if fit == "ilsr":
        theirs = choix.ilsr_pairwise(12, pairs, alpha=0.0, tol=1e-12, max_iter=1000)
    elif fit == "mm":
        theirs = choix.mm_pairwise(12, pairs, alpha=0.0, tol=1e-12, max_iter=100_000)
    else:
        theirs = choix.opt_pairwise(12, pairs, alpha=1e-12, tol=1e-12)
    assert np.abs((theirs - theirs.mean()) - r.ratings).max() < 1e-6


# --------------------------------------------------------------------------- properties


@st.composite
def logs(draw):
    """A strongly connected log: a cycle of wins through every model, then random battles."""
    m = draw(st.integers(3, 5))
    cycle = [(f"m{k}", f"m{(k + 1) % m}", "model_a") for k in range(m)]
    extra = draw(
        st.lists(
            st.tuples(st.integers(0, m - 1), st.integers(1, m - 1), st.sampled_from(["model_a", "model_b", "tie"])),
            min_size=5,
            max_size=40,
        )
    )
    rows = cycle + [(f"m{a}", f"m{(a + d) % m}", w) for a, d, w in extra]
    return log(rows)


FLIP = {"model_a": "model_b", "model_b": "model_a", "tie": "tie"}


def same(x, y) -> bool:
    """Field by field equality of two results, through the nested comparisons."""
    if hasattr(x, "__dataclass_fields__"):
        return type(x) is type(y) and all(same(getattr(x, f), getattr(y, f)) for f in x.__dataclass_fields__)
    if isinstance(x, np.ndarray):
        return np.array_equal(x, y)
    return x == y


@settings(max_examples=15, deadline=None, derandomize=True)
@given(logs(), st.randoms(use_true_random=False))
def test_row_order_and_swapped_sides_change_nothing(battles, random):
    r = battle_ratings(battles, n_boot=20, seed=1)
    order = list(range(len(battles)))
    random.shuffle(order)
    shuffled = battles.iloc[order].reset_index(drop=True)
    assert same(battle_ratings(shuffled, n_boot=20, seed=1), r)
    swapped = pd.DataFrame({"model_a": battles.model_b, "model_b": battles.model_a, "winner": battles.winner.map(FLIP)})
    assert same(battle_ratings(swapped, n_boot=20, seed=1), r)


@settings(max_examples=25, deadline=None, derandomize=True)
@given(logs(), st.permutations(["w", "v", "u", "t", "s"]))
def test_relabelling_models_permutes_the_ratings_and_counts(battles, names):
    c, r = battle_counts(battles), battle_ratings(battles, n_boot=2)
    rename = dict(zip(c.models, names))
    renamed = battles.assign(model_a=battles.model_a.map(rename), model_b=battles.model_b.map(rename))
    c2, r2 = battle_counts(renamed), battle_ratings(renamed, n_boot=2)
    where = [c2.models.index(rename[name]) for name in c.models]
    assert np.array_equal(c2.wins[np.ix_(where, where)], c.wins)
    assert np.array_equal(c2.ties[np.ix_(where, where)], c.ties)
    assert np.allclose(r2.ratings[where], r.ratings, atol=1e-9)


@settings(max_examples=15, deadline=None, derandomize=True)
@given(logs())
def test_a_duplicated_log_has_the_same_ratings(battles):
    r = battle_ratings(battles, n_boot=2)
    twice = battle_ratings(pd.concat([battles, battles]), n_boot=2)
    assert np.allclose(twice.ratings, r.ratings, atol=1e-9)


def test_a_duplicated_log_narrows_the_intervals_by_about_root_two():
    battles = simulated(np.linspace(-1, 1, 6), 3000, np.random.default_rng(8))
    once = battle_ratings(battles, n_boot=400, seed=2)
    twice = battle_ratings(pd.concat([battles, battles]), n_boot=400, seed=2)
    ratio = (twice.high - twice.low).sum() / (once.high - once.low).sum()
    assert 0.6 < ratio < 0.82  # 1 / sqrt(2) = 0.707


def test_the_same_seed_gives_the_same_result_and_another_seed_other_intervals():
    battles = simulated(np.linspace(-1, 1, 5), 1000, np.random.default_rng(9))
    assert same(battle_ratings(battles, n_boot=100, seed=4), battle_ratings(battles, n_boot=100, seed=4))
    assert not np.array_equal(battle_ratings(battles, n_boot=100, seed=5).low, battle_ratings(battles, n_boot=100).low)


# --------------------------------------------------------------------------- ranks and tiers


def test_upper_rank_rank_sets_and_tiers_follow_their_definitions():
    r = battle_ratings(simulated(np.linspace(-2, 2, 9), 6000, np.random.default_rng(10)), n_boot=300)
    m = len(r.models)
    assert r.upper_rank.tolist() == [1 + int((r.low > r.high[i]).sum()) for i in range(m)]
    place = np.empty(m, dtype=int)
    place[r.order] = np.arange(1, m + 1)
    assert ((r.lowest <= place) & (place <= r.highest)).all()
    assert [name for tier in r.tiers for name in tier] == [r.models[k] for k in r.order]
    assert len(r.tiers) > 2 and list(r.frame().index) == [r.models[k] for k in r.order]
    # the simultaneous claims are never more than the marginal intervals' separations would allow by chance:
    # every pair the max-T intervals separate has ratings in that order
    rows, cols = np.nonzero(r.above)
    assert (r.ratings[rows] > r.ratings[cols]).all()


def fisher_spread(battles: pd.DataFrame, r) -> np.ndarray:
    """Large-sample standard deviation of every rating difference, from the Fisher information of the fit.

    The information of Bradley-Terry's log-likelihood is the Laplacian with
    weights n_ij p_ij (1 - p_ij) (n_ij battles, p_ij the fitted chance that
    i beats j); its pseudo-inverse is the covariance of the centred ratings.
    """
    c = battle_counts(battles)
    n = c.wins + c.wins.T + c.ties
    prob = 1 / (1 + np.exp(r.ratings[None, :] - r.ratings[:, None]))
    weights = n * prob * (1 - prob)
    info = np.diag(weights.sum(axis=1)) - weights
    cov = np.linalg.pinv(info)
    a, b = r.comparisons.a, r.comparisons.b
    return np.sqrt(cov[a, a] + cov[b, b] - 2 * cov[a, b])


def test_pairs_hold_every_difference_with_wald_p_values_near_the_fisher_information():
    battles = simulated(np.linspace(-0.3, 0.3, 6), 5000, np.random.default_rng(13), tie_share=0.0)
    r = battle_ratings(battles, n_boot=1000)
    c = r.comparisons
    assert c.test == "bradley-terry" and len(c.a) == 15 and (c.a < c.b).all()
    assert np.allclose(c.diff, r.ratings[c.a] - r.ratings[c.b], rtol=0, atol=1e-15)
    assert ((c.ci_low <= c.diff) & (c.diff <= c.ci_high)).all()
    assert ((c.simultaneous_low <= c.ci_low) & (c.ci_high <= c.simultaneous_high)).all()
    assert np.array_equal(c.p_adjusted, holm(c.p)) and not c.exact.any()
    # the bootstrap standard deviation behind each p-value is the large-sample one, within 10 %
    # (where the p-value is neither near 1 nor below the doubles' resolution of 1 - p/2)
    z_boot = ndtri(1 - c.p / 2)
    z_fisher = np.abs(c.diff) / fisher_spread(battles, r)
    clear = (z_fisher > 1) & (z_fisher < 7)
    assert clear.sum() >= 8 and np.allclose(z_boot[clear], z_fisher[clear], rtol=0.1)


def test_rank_sets_are_the_max_t_decisions_of_the_pairs_and_of_a_full_covariance_oracle():
    battles = simulated(np.linspace(-1.5, 1.5, 7), 3000, np.random.default_rng(14))
    r = battle_ratings(battles, n_boot=400, seed=3)
    rs = r.rank_sets()
    assert rs.method == "max-t" and rs.comparisons is r.comparisons
    assert np.array_equal(rs.above, _surely_better(r.comparisons, "max-t"))
    assert rs.lowest.tolist() == (1 + r.above.sum(axis=0)).tolist()
    assert rs.highest.tolist() == (7 - r.above.sum(axis=1)).tolist()
    # oracle: the max-T decisions from the full covariance of the redrawn ratings, all ordered pairs at once
    boot, _ = _redraws(_triples(battles), 400, 3)
    deviation = boot - r.ratings
    cov = np.cov(deviation, rowvar=False, bias=True)
    var = np.diag(cov)
    spread = np.sqrt(np.maximum(var[:, None] + var[None, :] - 2 * cov, 0.0))
    np.fill_diagonal(spread, np.inf)
    largest = (np.abs(deviation[:, :, None] - deviation[:, None, :]) / spread).max(axis=(1, 2))
    critical = np.sort(largest)[int(np.ceil(400 * 0.95)) - 1]
    oracle = r.ratings[:, None] - r.ratings[None, :] - critical * spread > 0
    assert np.array_equal(r.above, oracle) and r.above.any()


def test_a_model_with_few_battles_is_smoothed_in_the_redraws_that_lose_it():
    battles = simulated(np.zeros(4), 400, np.random.default_rng(11), tie_share=0.0)
    few = log([("new", "m000", "model_a"), ("new", "m001", "model_a"), ("m002", "new", "model_a")])
    r = battle_ratings(pd.concat([battles, few], ignore_index=True), n_boot=200)
    assert r.n_smoothed > 0 and np.isfinite(r.high).all()


@pytest.mark.slow
def test_intervals_and_rank_sets_cover_the_truth_at_about_the_nominal_rate():
    """Battles drawn from known strengths: 40 logs of 8 models, 1,500 battles each, 150 redraws, level 0.95.

    No ties: ties at a rate that does not depend on the strengths would pull
    the half-win ratings towards 0, and the estimand would not be the truth.
    The covered share of the 320 marginal intervals (0.966 with this seed)
    must lie within 0.95 +- 0.04; the simultaneous rank sets must contain
    every true rank in at least 0.95 - 0.06 of the logs (all 40 with this
    seed: the max-T sets are conservative).  About 3 s of CPU.
    """
    rng = np.random.default_rng(12)
    truth = np.linspace(-1.0, 1.0, 8)
    truth -= truth.mean()
    true_rank = 8 - np.argsort(np.argsort(truth))
    covered, all_ranks = [], []
    for rep in range(40):
        r = battle_ratings(simulated(truth, 1500, rng, tie_share=0.0), n_boot=150, seed=rep)
        covered.append((r.low <= truth) & (truth <= r.high))
        all_ranks.append(((r.lowest <= true_rank) & (true_rank <= r.highest)).all())
    assert abs(np.mean(covered) - 0.95) < 0.04, np.mean(covered)
    assert np.mean(all_ranks) >= 0.95 - 0.06, np.mean(all_ranks)
