"""benchvote.audit.sections.domains: the domain restrictions of the top models."""

from __future__ import annotations

import numpy as np
from audit_support import FAST, NAN, frame, rounded_board

import benchvote as bv
from benchvote.audit import audit


def test_domains_are_the_library_report_on_the_top_models():
    s = rounded_board(seed=9, m=8)
    a = audit(s, top_models=5, **FAST)
    x = a.sections["domains"]
    top = a.sections["rankings"]["ranking"][:5]
    assert x["models"] == top
    rep = bv.domains.domain_report(bv.domains.rankings_from_scores(s.loc[top]))
    assert (x["single_peaked"], x["group_separable"], x["majority_transitive"]) == (
        rep.single_peaked, rep.group_separable, rep.majority_transitive,
    )  # fmt: skip
    assert x["distance_degree"] == rep.distance_degree
    k = bv.voting.kemeny(s.loc[top])
    assert x["kemeny_ranking"] == list(s.loc[top].index[np.argsort(np.asarray(k.ranks), kind="stable")])


def test_the_domains_of_a_complete_part_of_two_models_are_not_applicable_and_say_why():
    two = frame({"t1": [1, 2], "t2": [3, 1], "t3": [2, 3]}, "AB")
    part_of_two = frame({"t1": [1, 2, 3, 4], "t2": [3, 1, NAN, NAN], "t3": [2, 3, 1, NAN]}, "ABCD")
    for s in (two, part_of_two):
        a = audit(s, **FAST)
        assert a.sections["domains"]["status"] == "not_applicable"
        assert "three or more" in a.sections["domains"]["reason"]
        assert not a.errors, a.errors
