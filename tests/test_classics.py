"""May's theorem by enumeration, and manipulation searches checked against recounts and brute force."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest

from benchvote.aggregation import borda, mean_win_rate
from benchvote.classics import manipulations, may_rules
from benchvote.voting import copeland


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5])
def test_only_majority_rule_is_anonymous_neutral_and_positively_responsive(n):
    e = may_rules(n)
    assert e.majority_only and len(e.responsive) == 1
    assert all(out == np.sign(a - b) for (a, b), out in e.responsive[0].items())


def test_neutral_count_agrees_with_filtering_every_anonymous_rule():
    """For two voters, enumerate all 3**6 anonymous rules and filter neutrality and responsiveness directly."""
    e = may_rules(2)
    pairs = e.count_pairs
    neutral, survivors = 0, []
    for outcomes in itertools.product((-1, 0, 1), repeat=len(pairs)):
        rule = dict(zip(pairs, outcomes))
        if any(rule[(b, a)] != -rule[(a, b)] for a, b in pairs):
            continue
        neutral += 1
        # responsiveness, written out profile by profile: one voter moves b -> 0 or 0 -> a
        ok = all(
            rule[up] == 1
            for (a, b), out in rule.items()
            if out >= 0
            for up in ((a, b - 1), (a + 1, b))
            if up in rule and up != (a, b)
        )
        if ok:
            survivors.append(rule)
    assert neutral == e.neutral and e.anonymous == 3 ** len(pairs)
    assert survivors == [dict(zip(pairs, (int(np.sign(a - b)) for a, b in pairs)))]


def test_may_refuses_sizes_it_cannot_enumerate():
    with pytest.raises(ValueError, match="n_voters"):
        may_rules(9)


def recount(table: np.ndarray, task: int, ballot: tuple, rule) -> tuple:
    """Independent recount: the honest ranks of every other task, the ballot's positions for ``task``."""
    m = table.shape[0]
    ranked = pd.DataFrame(table).rank(ascending=False, method="average")
    ranked[task] = pd.Series({model: float(pos + 1) for pos, model in enumerate(ballot)})
    values = np.asarray(rule(-ranked, True), dtype=float)
    return tuple(np.flatnonzero(np.isclose(values, values.max(), rtol=0, atol=1e-9)).tolist()), m


@pytest.mark.parametrize("rule", [borda, mean_win_rate, copeland], ids=["borda", "win_rate", "copeland"])
def test_every_reported_manipulation_recounts_to_a_preferred_sole_winner(rule):
    rng = np.random.default_rng(7)
    seen = 0
    for _ in range(30):
        table = rng.integers(0, 6, (int(rng.integers(3, 6)), int(rng.integers(2, 5)))).astype(float)
        for hit in manipulations(table, rule=rule):
            seen += 1
            winners, _ = recount(table, hit.task, hit.ballot, rule)
            assert winners == (hit.winner,)
            col = table[:, hit.task]
            assert all(col[hit.winner] > col[w] for w in hit.honest_winners)
    assert seen > 0


def test_the_exhaustive_search_finds_every_task_that_can_manipulate():
    """Brute force over every ballot of every task, written independently of the library's search order."""
    rng = np.random.default_rng(11)
    for _ in range(25):
        table = rng.integers(0, 5, (4, 3)).astype(float)
        b = borda(table)
        honest = tuple(np.flatnonzero(np.isclose(b, b.max(), rtol=0, atol=1e-9)).tolist())
        can = set()
        for task in range(3):
            col = table[:, task]
            for ballot in itertools.permutations(range(4)):
                winners, _ = recount(table, task, ballot, borda)
                if len(winners) == 1 and all(col[winners[0]] > col[w] for w in honest):
                    can.add(task)
        assert {h.task for h in manipulations(table, rule=borda)} == can


def test_the_constructive_search_only_reports_true_manipulations():
    rng = np.random.default_rng(5)
    for _ in range(60):
        table = rng.integers(0, 6, (5, 3)).astype(float)
        quick = {h.task for h in manipulations(table, rule=borda, exhaustive_max=0)}
        full = {h.task for h in manipulations(table, rule=borda)}
        assert quick <= full


def test_a_dictatorship_cannot_be_manipulated():
    def dictator(scores, higher_is_better=True):
        return np.asarray(pd.DataFrame(scores).iloc[:, 0], dtype=float)

    rng = np.random.default_rng(2)
    for _ in range(30):
        table = rng.random((4, 3))
        assert manipulations(table, rule=dictator) == []


def test_with_two_models_majority_cannot_be_manipulated():
    rng = np.random.default_rng(4)
    for _ in range(50):
        table = rng.integers(0, 3, (2, 5)).astype(float)
        assert manipulations(table, rule=copeland) == []


def test_labels_and_directions_are_kept():
    table = pd.DataFrame([[4, 5, 8], [6, 5, 4], [5, 8, 2], [7, 6, 0]], index=list("abcd"), columns=["x", "y", "z"])
    flipped = table.assign(z=-table["z"])
    plain = manipulations(table, rule=borda)
    turned = manipulations(flipped, [True, True, False], rule=borda)
    assert plain == turned and plain[0].task == "z" and plain[0].winner == "b"
