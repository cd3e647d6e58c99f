"""Tests for benchvote.aggregation against brute force and pref-voting."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from conftest import permutations_of, score_tables, strictly_increasing_transforms
from hypothesis import given, settings
from hypothesis import strategies as st
from pref_voting.profiles import Profile
from sensitivity_oracles import integer_tables_and_a_rescaled_task, same_tie_pattern

import benchvote as bv
from benchvote import borda, mean_score, mean_win_rate, pairwise_wins
from benchvote.data import load_table


def brute_counts(s):
    m, n = s.shape
    wins = np.zeros((m, m), int)
    compared = np.zeros((m, m), int)
    for i in range(m):
        for j in range(m):
            if i == j:
                continue
            for k in range(n):
                if np.isnan(s[i, k]) or np.isnan(s[j, k]):
                    continue
                compared[i, j] += 1
                wins[i, j] += s[i, k] > s[j, k]
    return wins, compared


def brute_strict(s):
    wins, compared = brute_counts(s)
    m = s.shape[0]
    return np.array([sum(wins[i, j] / compared[i, j] for j in range(m) if j != i) / m for i in range(m)])


def brute_quantile(s):
    m, n = s.shape
    out = []
    for i in range(m):
        vals = []
        for k in range(n):
            if np.isnan(s[i, k]):
                continue
            col = s[~np.isnan(s[:, k]), k]
            vals.append(np.sum(col <= s[i, k]) / len(col))
        out.append(np.mean(vals))
    return np.array(out)


def brute_helm(s, aggregate=np.mean):
    """HELM's rule written out: beat the other scored models, a tie counting half."""
    m, n = s.shape
    out = []
    for i in range(m):
        vals = []
        for k in range(n):
            if np.isnan(s[i, k]):
                continue
            others = [s[j, k] for j in range(m) if j != i and not np.isnan(s[j, k])]
            if not others:
                continue
            won = sum(1.0 if o < s[i, k] else 0.5 if o == s[i, k] else 0.0 for o in others)
            vals.append(won / len(others))
        out.append(aggregate(vals) if vals else np.nan)
    return np.array(out)


def to_profile(s):
    """Each task's ranking (best first) as a pref-voting Profile; tie-free input only."""
    return Profile([list(np.argsort(-s[:, k], kind="stable")) for k in range(s.shape[1])])


class TestPairwiseWins:
    @given(score_tables(missing=True))
    def test_brute_force(self, table):
        c = pairwise_wins(table)
        wins, compared = brute_counts(table)
        assert np.array_equal(c.wins, wins)
        assert np.array_equal(c.compared, compared)
        assert np.array_equal(c.wins + c.wins.T + c.ties, c.compared)

    @given(score_tables(min_tasks=2, ties=False))
    def test_margins_match_pref_voting(self, table):
        c = pairwise_wins(table)
        p = to_profile(table)
        m = table.shape[0]
        for i in range(m):
            for j in range(m):
                if i != j:
                    assert c.wins[i, j] - c.wins[j, i] == p.margin(i, j)


class TestMeanWinRate:
    @given(score_tables(missing=True))
    def test_strict_brute_force(self, table):
        wins, compared = brute_counts(table)
        off = ~np.eye(table.shape[0], dtype=bool)
        if (compared[off] == 0).any():
            with pytest.raises(ValueError, match="shares? no task"):
                mean_win_rate(table)
            return
        assert np.allclose(mean_win_rate(table), brute_strict(table))

    @given(score_tables(missing=True))
    def test_quantile_brute_force(self, table):
        assert np.allclose(mean_win_rate(table, convention="quantile"), brute_quantile(table))

    @given(score_tables(missing=True), st.sampled_from(["mean", "median"]))
    def test_helm_brute_force(self, table, aggregate):
        expected = brute_helm(table, np.mean if aggregate == "mean" else np.median)
        if np.isnan(expected).any():
            with pytest.raises(ValueError, match="no task with a second scored model"):
                mean_win_rate(table, convention="helm", aggregate=aggregate)
            return
        assert np.allclose(mean_win_rate(table, convention="helm", aggregate=aggregate), expected)

    @given(score_tables())
    def test_helm_is_borda_rescaled_on_complete_tables(self, table):
        m, n = table.shape
        assert np.allclose(mean_win_rate(table, convention="helm"), borda(table) / (n * (m - 1)))

    def test_aggregate_is_refused_outside_helm(self):
        with pytest.raises(ValueError, match="only for convention='helm'"):
            mean_win_rate(np.eye(3), aggregate="median")
        with pytest.raises(ValueError, match="aggregate must be"):
            mean_win_rate(np.eye(3), convention="helm", aggregate="max")

    @given(score_tables(ties=False))
    def test_affine_in_borda_without_ties(self, table):
        m, n = table.shape
        b = borda(table)
        assert np.allclose(mean_win_rate(table), b / (n * m))
        assert np.allclose(mean_win_rate(table, convention="quantile"), (b / n + 1) / m)

    @given(score_tables())
    def test_borda_is_midpoint_of_conventions_with_ties(self, table):
        m, n = table.shape
        strict = mean_win_rate(table)
        quant = mean_win_rate(table, convention="quantile")
        assert np.allclose(borda(table), n * (m * (strict + quant) - 1) / 2)

    @given(score_tables(missing=True), st.data())
    def test_permutation_equivariance(self, table, data):
        perm = data.draw(permutations_of(table.shape[0]))
        for conv in ("quantile", "helm"):
            try:
                expected = mean_win_rate(table, convention=conv)
            except ValueError:
                continue
            assert np.allclose(mean_win_rate(table[perm], convention=conv), expected[perm])

    @given(score_tables(), strictly_increasing_transforms())
    def test_ordinal_invariance(self, table, f):
        for conv in ("strict", "quantile", "helm"):
            assert np.allclose(mean_win_rate(f(table), convention=conv), mean_win_rate(table, convention=conv))

    def test_textbook_abc_example(self):
        r = load_table("abc_ranks")
        q = mean_win_rate(r, higher_is_better=False, convention="quantile")
        assert np.allclose(q.to_numpy() * 9, [7, 7, 4])
        two = mean_win_rate(r.loc[["A", "B"]], higher_is_better=False, convention="quantile")
        assert np.allclose(two.to_numpy(), [2 / 3, 5 / 6])

    def test_nine_task_example_and_its_slip(self):
        r4 = load_table("nine_task_ranks")
        r3 = r4.loc[["L1", "L2", "L3"]]
        assert np.allclose(mean_win_rate(r3, higher_is_better=False).to_numpy() * 27, [10, 10, 7])
        # the paper prints 17/36 for L1; counting wins gives 16/36
        assert np.allclose(mean_win_rate(r4, higher_is_better=False).to_numpy()[:3] * 36, [16, 19, 9])

    def test_labelled_output(self):
        df = pd.DataFrame({"t": [1.0, 2.0]}, index=["x", "y"])
        out = mean_win_rate(df)
        assert isinstance(out, pd.Series) and list(out.index) == ["x", "y"]

    def test_bad_input(self):
        with pytest.raises(ValueError, match="at least 2 models"):
            mean_win_rate([[1.0, 2.0]])
        with pytest.raises(ValueError, match="convention"):
            mean_win_rate([[1.0], [2.0]], convention="HELM")
        with pytest.raises(ValueError, match="no observed score"):
            mean_win_rate([[1.0, 2.0], [np.nan, np.nan]])
        with pytest.raises(ValueError, match="shares? no task"):
            mean_win_rate([[1.0, np.nan], [np.nan, 2.0], [0.0, 1.0]])
        with pytest.raises(ValueError, match="one entry per task"):
            mean_win_rate(np.ones((3, 2)), higher_is_better=[True, False, True])


class TestBorda:
    @given(score_tables(min_tasks=1, ties=False))
    def test_matches_pref_voting(self, table):
        theirs = to_profile(table).borda_scores()
        ours = borda(table)
        assert np.allclose(ours, [theirs[i] for i in range(table.shape[0])])

    @given(score_tables(), st.data())
    def test_permutation_equivariance(self, table, data):
        perm = data.draw(permutations_of(table.shape[0]))
        assert np.allclose(borda(table[perm]), borda(table)[perm])

    @given(score_tables(), strictly_increasing_transforms())
    def test_ordinal_invariance(self, table, f):
        assert np.allclose(borda(f(table)), borda(table))

    def test_total_points(self):
        s = np.array([[1.0, 1.0], [1.0, 0.0], [0.0, 2.0]])
        m, n = s.shape
        assert borda(s).sum() == n * m * (m - 1) / 2

    def test_missing_refused(self):
        with pytest.raises(ValueError, match="benchvote.missing"):
            borda([[1.0, np.nan], [2.0, 1.0]])


class TestMeanScore:
    def test_score_voting_table(self):
        s = load_table("score_voting")
        assert np.allclose(mean_score(s).to_numpy(), [0.6, 0.7, 0.3])

    @given(score_tables(), st.data())
    def test_permutation_equivariance(self, table, data):
        perm = data.draw(permutations_of(table.shape[0]))
        assert np.allclose(mean_score(table[perm]), mean_score(table)[perm])

    def test_weights_and_missing(self):
        s = np.array([[1.0, 3.0], [2.0, np.nan]])
        assert np.allclose(mean_score(s, nan_policy="omit"), [2.0, 2.0])
        assert np.allclose(mean_score(s, weights=[1, 0], nan_policy="omit"), [1.0, 2.0])
        with pytest.raises(ValueError, match="missing"):
            mean_score(s)
        with pytest.raises(ValueError, match="weights"):
            mean_score([[1.0], [2.0]], weights=[-1])
        with pytest.raises(ValueError, match="one entry per task"):
            mean_score([[1.0], [2.0]], weights=[1, 1])


def test_protected_ranking_is_exact_and_takes_arrays():
    s = np.array([[2.0, 2.0, 3.0], [3.0, 3.0, 1.0], [1.0, 1.0, 2.0]])
    assert bv.protected_ranking(s, protected=[0, 1]).tolist() == [2.0, 1.0]
    assert bv.protected_ranking(s, protected=[0, 1], added=[2]).tolist() == [1.5, 1.5]  # 4/3 against 4/3, exactly
    frame = pd.DataFrame(s, index=list("ABC"))
    assert bv.protected_ranking(frame, protected=["A", "B"], added=["C"]).equals(
        pd.Series([1.5, 1.5], index=pd.Index(["A", "B"]), name="rank")
    )
    # two added models that share no task do not matter: only the protected models' comparisons enter
    t = pd.DataFrame([[2, 1, 0], [0, 2, 0], [1, np.nan, np.nan], [np.nan, 1, 2]], index=list("ABDE"), dtype=float)
    # A: 1/3 (vs B) + 1 (vs D) + 0/2 (vs E) = 4/3; B: 1/3 + 0 + 1/2 = 5/6
    assert bv.protected_ranking(t, protected=["A", "B"], added=["D", "E"]).tolist() == [1.0, 2.0]


# HELM's published "Mean win rate" columns, as benchbench ships them (file, board name)
HELM_PUBLISHED = {
    "HELM-lite": "helm_lite/leaderboard.tsv",
    "HELM-bias": "helm/bias.tsv",
    "HELM-toxicity": "helm/toxicity.tsv",
}
HELM_PUBLISHED.update(
    {
        f"HEIM-{g}": f"heim/{g}.tsv"
        for g in (
            "aesthetics_auto",
            "aesthetics_human",
            "alignment_auto",
            "alignment_human",
            "black_out",
            "nsfw",
            "nudity",
            "originality",
            "quality_auto",
            "quality_human",
        )
    }
)


@pytest.mark.parametrize("name", sorted(HELM_PUBLISHED))
def test_helm_convention_reproduces_the_published_column(name):
    """Every model's published win rate is ours, up to what rounding of the shown table can explain.

    HELM rounds scores and win rates to three decimals. Two scores equal after
    rounding may have been ordered in HELM's run; such a tie can move a model's
    per-task rate by at most half a tie's share either way, which the allowance
    adds up per model (plus half a unit of the published last digit).
    """
    from pathlib import Path

    import benchbench

    from benchvote.data import load

    board = load(name)
    raw = pd.read_csv(Path(benchbench.__file__).parent / "data" / HELM_PUBLISHED[name], sep="\t")
    column = next(c for c in raw.columns if c.startswith("Mean win rate"))
    published = pd.Series(pd.to_numeric(raw[column], errors="coerce").to_numpy(), index=raw.iloc[:, 0])
    published = published[~published.index.duplicated()].reindex(board.scores.index)
    assert published.notna().all()
    ours = mean_win_rate(board, convention="helm")
    s = board.scores.to_numpy(float)
    allowance = np.zeros(len(s))
    for i in range(len(s)):
        shares = []
        for k in range(s.shape[1]):
            col = s[:, k]
            if np.isnan(col[i]) or (~np.isnan(col)).sum() < 2:
                continue
            tied_others = np.sum(col == col[i]) - 1
            shares.append(0.5 * tied_others / ((~np.isnan(col)).sum() - 1))
        allowance[i] = np.mean(shares)
    gap = np.abs(ours.to_numpy() - published.to_numpy())
    assert np.all(gap <= allowance + 0.0005 + 1e-12), ours.index[np.argmax(gap - allowance)]
    # and where the shown table has no tie touching a model, the match is to the last digit
    untied = allowance == 0
    assert np.all(np.abs(np.round(ours.to_numpy()[untied], 3) - published.to_numpy()[untied]) <= 0.001 + 1e-12)


def helm_oracle(s, higher_is_better):
    """HELM's "Mean win rate" written out with exact comparisons, independently of the library.

    On each task with at least two scored models, a scored model's rate is the share of the other
    scored models it beats (a strictly worse score), an exactly equal score counting half; the model's
    win rate is the mean of its rates over those tasks.
    """
    m, n = s.shape
    rates = [[] for _ in range(m)]
    for k in range(n):
        sign = 1.0 if higher_is_better[k] else -1.0
        scored = [i for i in range(m) if not np.isnan(s[i, k])]
        if len(scored) < 2:
            continue
        for i in scored:
            mine = sign * s[i, k]
            beaten = sum(sign * s[j, k] < mine for j in scored if j != i)
            equal = sum(sign * s[j, k] == mine for j in scored if j != i)
            rates[i].append((beaten + 0.5 * equal) / (len(scored) - 1))
    return np.array([sum(r) / len(r) for r in rates])


NEAR_TIES = [
    (np.array([[0.5, 2.0], [0.5 + 1e-12, 2.0], [0.3, 2.0 - 1e-12]]), [True, True]),
    (np.array([[0.7, 10.0, 1.0], [0.7 - 1e-12, 10.0, np.nan], [0.7, 10.0 + 1e-12, 1.0 + 1e-12]]), [True, False, True]),
]


@pytest.mark.parametrize("table, hib", NEAR_TIES)
def test_helm_compares_exactly_by_default_as_helm_does(table, hib):
    expected = helm_oracle(table, hib)
    assert np.allclose(mean_win_rate(table, hib, convention="helm"), expected, rtol=0, atol=1e-15)
    assert np.allclose(mean_win_rate(table, hib, convention="helm", aggregate="mean"), expected, rtol=0, atol=1e-15)
    # a tol the caller passes still applies: the near-ties become ties (the values 1e-12 apart as equal)
    tied = helm_oracle(np.round(table, 9), hib)
    assert np.allclose(mean_win_rate(table, hib, convention="helm", tol=1e-9), tied, rtol=0, atol=1e-15)
    assert not np.allclose(expected, tied)


def test_the_helm_default_tol_keeps_the_signature_and_the_other_conventions_keep_theirs():
    import inspect

    from benchvote.ranking import DEFAULT_TIE_TOLERANCE

    assert inspect.signature(mean_win_rate).parameters["tol"].default == DEFAULT_TIE_TOLERANCE
    near = NEAR_TIES[0][0]
    assert np.allclose(mean_win_rate(near), mean_win_rate(near, tol=DEFAULT_TIE_TOLERANCE))
    with pytest.raises(ValueError, match="tol"):
        mean_win_rate(near, convention="helm", tol=-1.0)


class TestRescaledTask:
    """Rules that only read the order within each task cannot depend on a task's unit."""

    @settings(max_examples=40, deadline=None, derandomize=True)
    @given(integer_tables_and_a_rescaled_task())
    def test_rank_based_rules_ignore_the_unit_of_a_task(self, case):
        """Task ranks, both win-rate conventions, Borda, Copeland, majority margins, Ranked Pairs and Kemeny:
        identical output when a task of integer scores (ties included) is multiplied by a factor."""
        s, scaled, hib, task, factor = case
        assert same_tie_pattern(s, scaled)
        what = f"task {task} times {factor!r}; table={s.tolist()!r} hib={hib}"
        rules = {
            "task_ranks": bv.aggregation.task_ranks,
            "mean_win_rate": bv.aggregation.mean_win_rate,
            "mean_win_rate quantile": lambda x, h: bv.aggregation.mean_win_rate(x, h, convention="quantile"),
            "borda": bv.aggregation.borda,
            "copeland": bv.voting.copeland,
            "margin_matrix": bv.voting.margin_matrix,
            "ranked_pairs": bv.voting.ranked_pairs,
        }
        for name, rule in rules.items():
            before, after = rule(s, hib), rule(scaled, hib)
            assert np.array_equal(np.asarray(before), np.asarray(after)), f"{name}: {what}"
        before, after = bv.voting.kemeny(s, hib), bv.voting.kemeny(scaled, hib)
        assert np.array_equal(before.ranks, after.ranks), f"kemeny: {what}"
        assert (before.disagreements, before.n_optimal) == (after.disagreements, after.n_optimal), f"kemeny: {what}"
