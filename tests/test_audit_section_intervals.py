"""benchvote.audit.sections.intervals: the bootstrap intervals of the primary rule, their pairs and figure."""

from __future__ import annotations

import numpy as np
import pytest
from audit_support import FAST, mixed_board, normalised_oracle, rounded_board, section_html

import benchvote as bv
from benchvote.audit import audit
from benchvote.audit._rules import Cardinal, audit_rules
from benchvote.audit.sections import intervals as intervals_module


@pytest.mark.parametrize(
    "primary, normalize",
    [
        ("mean_win_rate", "none"),
        ("helm_win_rate", "none"),
        ("mean_score", "zscore"),
        ("mean_score", "rank"),
        ("borda", "none"),
        ("copeland", "none"),
    ],  # fmt: skip
)
def test_intervals_are_the_library_bootstrap_over_tasks(primary, normalize):
    s = rounded_board(seed=1, m=12)
    hib = [True, False, True, True, False]
    a = audit(s, hib, primary=primary, normalize=normalize, seed=3, **FAST)
    rule = audit_rules(Cardinal(normalize, 1e-9))[primary].fn
    iv = bv.intervals.rank_intervals(s, hib, rule=rule, n_boot=100, seed=3)
    x = a.sections["intervals"]
    assert x["lower"] == {k: float(v) for k, v in iv.lower.items()}
    assert x["upper"] == {k: float(v) for k, v in iv.upper.items()}
    assert x["ranks"] == {k: float(v) for k, v in iv.ranks.items()}
    assert sorted(map(sorted, x["inseparable"])) == sorted(map(sorted, iv.inseparable))  # a set of pairs
    order = a.sections["rankings"]["ranking"]
    pairs = {frozenset(p) for p in iv.inseparable}
    assert x["adjacent_inseparable"] == sum(frozenset(p) in pairs for p in zip(order, order[1:]))
    assert x["n_pairs"] == 12 * 11 // 2 and x["n_adjacent"] == 11 and x["scope"].startswith("all 12 models")


def test_interval_pairs_are_scoped_to_the_top_models_and_every_interval_stays_exact(monkeypatch):
    monkeypatch.setattr(intervals_module, "MAX_PAIR_MODELS", 4)
    s = rounded_board(seed=2, m=10)
    a = audit(s, seed=1, primary="mean_win_rate", **FAST)
    iv = bv.intervals.rank_intervals(s, n_boot=100, seed=1)
    x, order = a.sections["intervals"], a.sections["rankings"]["ranking"]
    assert x["lower"] == {k: float(v) for k, v in iv.lower.items()}  # every model keeps its interval
    top = set(order[:4])
    assert sorted(map(sorted, x["inseparable"])) == sorted(sorted(p) for p in iv.inseparable if set(p) <= top)
    pairs = {frozenset(p) for p in iv.inseparable}
    assert x["adjacent_inseparable"] == sum(frozenset(p) in pairs for p in zip(order, order[1:]))
    assert x["n_pairs"] == 6 and "top 4 models" in x["scope"]


def test_a_rule_that_does_not_add_up_is_bootstrapped_on_the_top_models_and_says_so(monkeypatch):
    monkeypatch.setattr(intervals_module, "SCOPED_CELLS", 5 * 5 * 5)  # five models of five tasks
    s = rounded_board(seed=3, m=9)
    a = audit(s, primary="copeland", seed=4, **FAST)
    top = a.sections["rankings"]["ranking"][:5]
    iv = bv.intervals.rank_intervals(s.loc[top], rule=bv.rules.RULES["copeland"].fn, n_boot=100, seed=4)
    x = a.sections["intervals"]
    assert x["upper"] == {k: float(v) for k, v in iv.upper.items()}
    assert "the top 5 of the 9 models" in x["scope"] and x["n_adjacent"] == 4


def test_the_interval_figure_shows_the_first_40_and_the_verdict_states_the_leader():
    s = rounded_board(seed=4, m=45, n=4)
    a = audit(s, n_boot=30, time_limit=60)
    x = a.sections["intervals"]
    lead = a.sections["rankings"]["ranking"][0]
    sentence = [v["text"] for v in a.verdict if v["section"] == "intervals"][0]
    separable = 44 - x["adjacent_inseparable"]
    assert sentence == (
        f"Redrawing the tasks, the first model, {lead}, has the 95% rank interval "
        f"[{x['lower'][lead]:g}, {x['upper'][lead]:g}]; "
        f"{separable} of the 44 adjacent places {'is' if separable == 1 else 'are'} separable "
        "(but these task-bootstrap intervals rest on only 4 tasks, 35 possible redraws: a rough guide)."
    )
    part = section_html(a.to_html(), "intervals")
    assert "first 40 of 45 models" in part
    assert part.count("<line") - part.count('class="grid"') == 40  # one interval line per drawn model


def test_a_mean_score_primary_ranks_every_redraw_on_the_normalised_table():
    s, hib = mixed_board(seed=14)
    a = audit(s, hib, primary="mean_score", normalize="rank", **FAST)
    table = normalised_oracle(s, "rank")
    iv = bv.intervals.rank_intervals(table, hib, rule=bv.mean_score, n_boot=100)
    assert a.sections["intervals"]["lower"] == {k: float(v) for k, v in iv.lower.items()}
    assert a.sections["intervals"]["upper"] == {k: float(v) for k, v in iv.upper.items()}
    assert a.sections["rankings"]["ranking"] == list(s.index[np.argsort(bv.rank(bv.mean_score(table, hib)))])
    raw = audit(s, hib, primary="mean_score", **FAST)
    assert raw.sections["rankings"]["ranking"] != a.sections["rankings"]["ranking"]
