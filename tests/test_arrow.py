"""The executable proof of Arrow's theorem: an independent enumeration agrees with the library."""

from __future__ import annotations

from itertools import permutations, product

from benchvote.arrow import PAIRS, RANKINGS, enumerate_iia_rules


def naive_enumeration():
    """Loops over explicit decision tables (dicts), independent of the bit tricks in the library."""
    patterns = list(product([True, False], repeat=2))  # (task 0 prefers x, task 1 prefers x)
    tables = list(product([True, False], repeat=4))  # winner is x? for each pattern
    profiles = list(product(RANKINGS, RANKINGS))
    counts = {"transitive": 0, "pareto": 0, "both": 0}
    dictators = []
    for choice in product(tables, repeat=3):
        rule = {pair: dict(zip(patterns, table)) for pair, table in zip(PAIRS, choice)}
        pareto = all(rule[p][(True, True)] and not rule[p][(False, False)] for p in PAIRS)
        transitive = True
        copies = {0: True, 1: True}
        for r0, r1 in profiles:
            beats = set()
            for x, y in PAIRS:
                votes = (r0.index(x) < r0.index(y), r1.index(x) < r1.index(y))
                winner, loser = (x, y) if rule[(x, y)][votes] else (y, x)
                beats.add((winner, loser))
                for task, r in ((0, r0), (1, r1)):
                    if (r.index(winner) < r.index(loser)) is False:
                        copies[task] = False
            if any((a, b) in beats and (b, c) in beats and (c, a) in beats for a, b, c in permutations(range(3))):
                transitive = False
        counts["transitive"] += transitive
        counts["pareto"] += pareto
        if transitive and pareto:
            counts["both"] += 1
            dictators.append([t for t, ok in copies.items() if ok])
    return counts, dictators


def test_exactly_two_rules_survive_and_both_are_dictatorships():
    result = enumerate_iia_rules()
    assert result.n_rules == 4096
    assert len(result.survivors) == 2
    assert sorted(result.dictator.values()) == [0, 1]


def test_independent_enumeration_agrees():
    counts, dictators = naive_enumeration()
    result = enumerate_iia_rules()
    assert counts == {
        "transitive": int(result.transitive.sum()),
        "pareto": int(result.pareto.sum()),
        "both": len(result.survivors),
    }
    assert sorted(map(tuple, dictators)) == [(0,), (1,)]


def test_decision_table_of_a_dictator_copies_its_task():
    result = enumerate_iia_rules()
    for rule, task in result.dictator.items():
        for _pair, table in result.decision_table(rule).items():
            for votes, winner in table.items():
                assert winner == votes[task]


def test_imposed_rules_are_transitive_but_not_pareto():
    result = enumerate_iia_rules()
    assert result.imposed.sum() == 8
    assert not (result.imposed & result.pareto).any()
    assert (result.imposed & result.transitive).sum() == 6  # the six fixed rankings
