"""benchvote.audit.sections.possible_winners: the models some weighting ranks first or in the top k."""

from __future__ import annotations

import dataclasses
import itertools

import numpy as np
import pandas as pd
from audit_support import QUICK, one_factor_board, order

import benchvote as bv
from benchvote.audit import audit
from benchvote.audit.sections import possible_winners as pw_mod


def _corners(n: int, eps: float) -> np.ndarray:
    return np.array(list(itertools.product([eps, 1.0], repeat=n)))


def test_unbeaten_models_match_the_definition_checked_at_every_corner():
    # a linear function's minimum over the box is at a corner: brute force over the 2^n corners
    rng = np.random.default_rng(4)
    x = rng.normal(size=(40, 4)).round(1) + rng.normal(size=(40, 1))
    eps, tol = 0.05, 1e-9
    corners = _corners(4, eps)
    s = x @ corners.T / corners.sum(axis=1)  # models x corners
    beaten = [any(((s[j] - s[i]) > tol).all() for j in range(len(x)) if j != i) for i in range(len(x))]
    assert pw_mod.unbeaten(x, eps, tol).tolist() == [i for i in range(len(x)) if not beaten[i]]


def test_possible_winners_are_the_library_s_in_rank_order():
    s = one_factor_board(1, m=12, n=4)
    a = audit(s, **QUICK)
    pw = a.sections["possible_winners"]
    lib = bv.sensitivity.possible_winners(s, eps=pw["eps"])
    expected = [m for m in order(a) if lib.possible[m]]
    assert pw["possible"] == expected and pw["not_examined"] == []
    ranks = bv.rank(np.asarray(bv.mean_win_rate(s)))
    assert [pw["ranks"][m] for m in expected] == [ranks[list(s.index).index(m)] for m in expected]
    for m in expected:  # the weights put the winner first, by brute-force recount
        w = np.array([pw["weights"][m][t] for t in s.columns])
        means = s.to_numpy() @ w / w.sum()
        assert means[list(s.index).index(m)] == means.max() and (means == means.max()).sum() == 1
    k = pw["k"]
    top = bv.sensitivity.possible_winners(s, k=k, eps=pw["eps"], work_limit=500)
    assert pw["top_k_possible"] == [m for m in order(a) if top.possible[m]]


def test_possible_winners_lower_is_better_and_normalised():
    s = one_factor_board(2, m=9, n=4)
    hib = [True, False, True, True]
    a = audit(s, hib, normalize="zscore", **QUICK)
    pw = a.sections["possible_winners"]
    z = bv.audit._rules.normalised(s, "zscore")
    lib = bv.sensitivity.possible_winners(z, hib, eps=pw["eps"])
    assert sorted(pw["possible"]) == sorted(s.index[lib.possible.to_numpy()])


def test_possible_winners_scoped_beyond_the_lp_limit_stay_sound(monkeypatch):
    rng = np.random.default_rng(5)  # independent tasks: many models nobody surely beats
    s = pd.DataFrame(rng.normal(size=(30, 4)).round(1), index=[f"m{i}" for i in range(30)], columns=list("abcd"))
    monkeypatch.setattr(pw_mod, "LP_MODELS", 4)
    budget = bv.audit.BUDGETS[bv.audit.DEFAULT_BUDGET]
    monkeypatch.setitem(bv.audit.BUDGETS, bv.audit.DEFAULT_BUDGET, dataclasses.replace(budget, top_k_models=6))
    a = audit(s, **QUICK)
    pw = a.sections["possible_winners"]
    lib = bv.sensitivity.possible_winners(s, eps=pw["eps"])
    truth = set(s.index[lib.possible.to_numpy()])
    assert set(pw["possible"]) <= truth  # a confirmed winner is a winner
    assert pw["n_examined"] == 4 and "not examined" in pw["scope"]
    examined = set(pw["possible"]) | set(pw["undecided"])
    assert truth - set(pw["not_examined"]) <= examined  # no winner ruled out
    field = a.sections["possible_winners"]["top_k_models"]
    assert field == order(a)[:6]
    top = bv.sensitivity.possible_winners(s.loc[field], k=pw["k"], eps=pw["eps"], work_limit=500)
    assert pw["top_k_possible"] == [m for m in field if top.possible[m]]
