"""Drive an explorable in a real browser and compare what it shows with benchvote's own results.

Shared by ``test_explorables.py`` (explorables on generated tables, in a standalone page) and ``test_site.py``
(the explorables of the built chapters).  Every check reads the page's numbers from ``element.bvView()``
(what the chart and summary show), never from pixels, and recomputes them with the library from the
explorable's payload (the same table the page holds).
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

import benchvote as bv
from benchvote._validation import numbered
from benchvote.missing import knock_out, partial_borda
from benchvote.ranking import changed_pairs, flipped_pairs
from benchvote.strategy import water_filling


def payload(root) -> dict:
    return json.loads(root.locator("script.bv-data").text_content())


def view(root) -> dict:
    return root.evaluate("e => e.bvView()")


def set_range(slider, value) -> None:
    """Move a range input as a reader's drag does: set the value (a number, "min" or "max") and fire ``input``."""
    slider.evaluate(
        "(e, v) => { e.value = String(v === 'min' ? e.min : v === 'max' ? e.max : v);"
        " e.dispatchEvent(new Event('input', {bubbles: true})); }",
        value,
    )


def set_boxes(boxes, want: list[bool]) -> None:
    """Tick (True) or clear each check box of ``boxes`` as a reader does: a click on every box that must change.

    All in one call to the page: each click fires the events a reader's click fires (``click``, ``input``,
    ``change``), and each box must then be as wanted (a disabled box is not).  Whether a reader's pointer can reach
    every control is :func:`controls_change_charts`'s check.
    """
    wrong = boxes.evaluate_all(
        """(bs, want) => bs.length !== want.length ? [`${bs.length} boxes, ${want.length} wanted`]
             : bs.flatMap((b, k) => { if (b.checked !== want[k]) b.click();
                                      return b.checked === want[k] ? [] : [`${b.name} stays ${b.checked}`]; })""",
        want,
    )
    assert not wrong, wrong


def row_cells(rows) -> list[list[str]]:
    """The text of every cell (``td``) of every row, in one round trip."""
    return rows.evaluate_all("rs => rs.map(r => Array.from(r.querySelectorAll('td')).map(c => c.innerText))")


def _frame(values, index, columns) -> pd.DataFrame:
    arr = np.array([[np.nan if v is None else v for v in row] for row in values], dtype=float)
    return pd.DataFrame(arr, index=index, columns=columns)


def check_model_toggle(root, rng: np.random.Generator, settings: int = 5) -> int:
    d = payload(root)
    frame = _frame(d["scores"], d["field"], d["tasks"])
    boxes = root.locator("input[type=checkbox]")
    assert boxes.count() == len(d["pool"])
    k = len(d["pool"])
    choices = [set()] + [{int(i)} for i in rng.permutation(k)[: max(1, settings // 2)]]
    while len(choices) < settings:
        choices.append({int(i) for i in np.flatnonzero(rng.random(k) < 0.5)})
    for chosen in choices:
        set_boxes(boxes, [i in chosen for i in range(k)])
        v = view(root)
        added = [d["pool"][i] for i in sorted(chosen)]
        assert v["added"] == added
        try:
            expected = bv.protected_ranking(
                frame,
                d["higher_is_better"],
                protected=d["protected"],
                added=added,
                convention=d["convention"],
                tol=d["tol"],
            ).tolist()
        except ValueError:
            assert "error" in v, f"the library refuses {added} but the page ranked them"
            continue
        assert "error" not in v, v.get("error")
        assert v["after"] == expected, (added, v["after"], expected)
        assert v["before"] == d["base"]
        assert v["changed"] == len(changed_pairs(d["base"], expected))
        assert v["reversed"] == len(flipped_pairs(d["base"], expected))
        tau = bv.kendall_tau_distance(d["base"], expected)
        assert abs(v["tau"] - tau) < 1e-12
        _check_toggle_numbers(root, d, frame, added, expected, v, tau)
    return len(choices)


def _strict_rates(frame: pd.DataFrame, hib, protected: list, field: list, tol: float) -> np.ndarray:
    """Strict mean win rates of the protected models in ``field`` (the library's rule, from its pairwise counts)."""
    try:
        return np.asarray(bv.mean_win_rate(frame.loc[field], hib, tol=tol), dtype=float)[: len(protected)]
    except ValueError:  # two added models share no task: only the protected models' own comparisons enter
        c = bv.pairwise_wins(frame.loc[field], hib, tol=tol)
        return np.array(
            [sum(c.wins[a, j] / c.compared[a, j] for j in range(len(field)) if j != a) for a in range(len(protected))]
        ) / len(field)


def _check_toggle_numbers(root, d, frame, added, expected, v, tau) -> None:
    """The win rates (and fractions) in the table and the summary's counts of changed pairs, against the library."""
    protected, field = d["protected"], d["protected"] + added
    if d["convention"] == "strict":
        rates = _strict_rates(frame, d["higher_is_better"], protected, field, d["tol"])
        base = _strict_rates(frame, d["higher_is_better"], protected, protected, d["tol"])
    else:
        rates = np.asarray(
            bv.mean_win_rate(frame.loc[field], d["higher_is_better"], convention="quantile", tol=d["tol"]), dtype=float
        )[: len(protected)]
        base = np.asarray(
            bv.mean_win_rate(frame.loc[protected], d["higher_is_better"], convention="quantile", tol=d["tol"]),
            dtype=float,
        )
    assert np.allclose(v["rates"], rates, rtol=0, atol=1e-12), (added, v["rates"], rates)
    assert np.allclose(v["beforeRates"], base, rtol=0, atol=1e-12), (v["beforeRates"], base)
    for text, rate in zip(v["fractions"], rates):
        num, _, den = text.partition("/")
        assert abs(int(num) / int(den or 1) - rate) < 1e-12, (text, rate)
    # the table prints every rate, in the base order of the protected models
    rows = root.locator("table[data-table=rates] tr[data-model]")
    names = rows.evaluate_all("rs => rs.map(r => r.dataset.model)")
    assert len(names) == len(protected)
    for name, cells in zip(names, row_cells(rows)):
        i = protected.index(name)
        assert cells[1].endswith(f"{base[i]:.4f}") and cells[2].endswith(f"{rates[i]:.4f}"), (name, cells)
    # the summary sorts the changed pairs, and says what the Kendall tau distance counts
    b, a = np.asarray(d["base"]), np.asarray(expected)
    sorts = {"reversed": 0, "ordered \u2192 tied": 0, "tied \u2192 ordered": 0}
    for i, j in changed_pairs(b, a):
        before, after = np.sign(b[i] - b[j]), np.sign(a[i] - a[j])
        sorts["reversed" if before * after < 0 else "ordered \u2192 tied" if after == 0 else "tied \u2192 ordered"] += 1
    assert (v["orderedToTied"], v["tiedToOrdered"]) == (sorts["ordered \u2192 tied"], sorts["tied \u2192 ordered"])
    assert v["reversed"] == sorts["reversed"]
    summary = root.locator(".bv-summary").inner_text()
    assert summary == v["summary"]
    changed = sum(sorts.values())
    if changed == 0:
        assert "No pair of protected models changes order" in summary and f"distance {tau:.3f}" in summary
    else:
        pairs = len(protected) * (len(protected) - 1) // 2
        verb = "changes order" if changed == 1 else "change order"
        assert f"{changed} of the {pairs} {numbered(pairs, 'pair')} of protected models {verb}" in summary, summary
        for kind, count in sorts.items():
            assert (f"{count} {kind}" in summary) == (count > 0), (kind, summary)
        reversed_ = f"{sorts['reversed']} {numbered(sorts['reversed'], 'pair')}"
        assert f"the Kendall tau distance, {tau:.3f}, counts only the {reversed_} strictly" in summary


def _label_noise_expected(d: dict, alpha: np.ndarray) -> tuple[list, float, float]:
    values = np.asarray(d["values"], dtype=float)
    after = bv.rank(values @ alpha / alpha.sum(), tol=d["tol"])
    return after.tolist(), bv.kendall_tau_distance(d["before"], after), bv.max_rank_change(d["before"], after)


def check_label_noise(root, rng: np.random.Generator, settings: int = 5) -> int:
    d = payload(root)
    sliders = root.locator("input[type=range]")
    n = len(d["tasks"])
    assert sliders.count() == n
    done = 0

    def compare():
        v = view(root)
        alpha = np.asarray(v["alpha"], dtype=float)
        after, tau, mrc = _label_noise_expected(d, alpha)
        assert v["after"] == after
        assert abs(v["tau"] - tau) < 1e-12 and abs(v["mrc"] - mrc) < 1e-12
        shown = list(d["shown"])
        assert v["shownAfter"] == bv.rank(np.asarray(after)[shown], higher_is_better=False).tolist()
        values = np.asarray(d["values"], dtype=float)
        means = values @ alpha / alpha.sum()
        assert np.allclose(v["means"], means, rtol=0, atol=1e-12)
        table = row_cells(root.locator("table[data-table=means] tr[data-model]"))
        assert len(table) == len(shown)
        for q, i in enumerate(shown):  # the table prints the numbers the ranks come from
            cells = table[q]
            # the page prints with toFixed(4), which rounds a binary tie (91.28125) the other way from Python
            shown = [float(cells[1]), float(cells[2])]
            assert shown == pytest.approx([values[i].mean(), means[i]], abs=5.0001e-5), (cells, means[i])
        return alpha

    # the sliders are logarithmic: the value is log10(alpha), and the ends are eps and 1 exactly
    assert float(sliders.first.get_attribute("min")) == np.log10(d["eps"])
    assert float(sliders.first.get_attribute("max")) == 0.0
    for s in range(settings):
        alpha = (
            np.exp(rng.uniform(np.log(d["eps"]), 0.0, size=n)) if s % 2 == 0 else rng.choice([d["eps"], 1.0], size=n)
        )
        for i in range(n):
            set_range(
                sliders.nth(i),
                float(np.log10(alpha[i])) if d["eps"] < alpha[i] < 1 else ("min" if alpha[i] == d["eps"] else 0),
            )
        got = compare()
        assert np.allclose(got, alpha, rtol=1e-12, atol=0)
        done += 1
    root.locator("button[name=worst]").click()
    got = compare()
    assert np.allclose(got, d["worst"], rtol=0, atol=1e-12), "the worst-case button did not set the library's weights"
    root.locator("button[name=clean]").click()
    assert np.all(compare() == 1.0)
    return done + 2


def check_missing_share(root, rng: np.random.Generator, settings: int = 5) -> int:
    d = payload(root)
    frame = _frame(d["scores"], d["models"], d["tasks"])
    slider = root.locator("input[type=range]")
    positions = [0, len(d["states"]) - 1] + [int(p) for p in rng.permutation(len(d["states"]))[:settings]]
    for pos in positions:
        set_range(slider, pos)
        v = view(root)
        share = d["states"][pos]["share"]
        assert v["share"] == share
        holed = knock_out(frame, share, seed=d["seed"])
        assert v["missing"] == int(holed.isna().sum().sum())
        full = [
            bv.rank(bv.mean_score(frame, nan_policy="omit"), tol=d["tol"]),
            bv.rank(partial_borda(frame, tol=d["tol"]), tol=d["tol"]),
        ]
        after = [
            bv.rank(bv.mean_score(holed, nan_policy="omit"), tol=d["tol"]),
            bv.rank(partial_borda(holed, tol=d["tol"]), tol=d["tol"]),
        ]
        values = [bv.mean_score(holed, nan_policy="omit"), partial_borda(holed, tol=d["tol"])]
        for k in range(2):
            assert v["ranks"][k] == after[k][d["shown"][k]].tolist()
            assert abs(v["tau"][k] - bv.kendall_tau_distance(full[k], after[k])) < 1e-12
            assert np.allclose(v["values"][k], values[k][d["shown"][k]].to_numpy(), rtol=0, atol=1e-9)
            cells = root.locator(f"table[data-table=scores-{k}] tr[data-model]").first.locator("td").all_inner_texts()
            assert cells[2] == f"{values[k][d['shown'][k][0]]:.{3 if k == 0 else 2}f}", cells
    return len(positions)


def check_cell_knockout(root, rng: np.random.Generator, settings: int = 5) -> int:
    d = payload(root)
    frame = _frame(d["values"], d["models"], d["tasks"])
    boxes = root.locator("input[type=checkbox]")
    cells = [tuple(map(int, name.split("-")[1:])) for name in boxes.evaluate_all("bs => bs.map(b => b.name)")]
    hib = [s > 0 for s in d["sign"]]
    checked = 0
    for s in range(settings + 2):
        drop = set() if s == 0 else {cells[int(i)] for i in rng.permutation(len(cells))[: 1 + s % 4]}
        if s == settings + 1:  # empty a model's row, which the library refuses
            drop = {c for c in cells if c[0] == 0}
        set_boxes(boxes, [c not in drop for c in cells])
        v = view(root)
        holed = frame.copy()
        for i, j in drop:
            holed.iat[i, j] = np.nan
        try:
            mean = bv.mean_score(holed, nan_policy="omit")
            borda = partial_borda(holed, hib, tol=d["tol"])
        except ValueError:
            assert "error" in v, f"the library refuses dropping {sorted(drop)} but the page ranked"
            checked += 1
            continue
        assert "error" not in v, v.get("error")
        assert np.allclose(v["mean"], mean.to_numpy(), rtol=0, atol=1e-12)
        assert np.allclose(v["borda"], borda.to_numpy(), rtol=0, atol=1e-9)
        assert v["meanRanks"] == bv.rank(mean, tol=d["tol"]).tolist()
        assert v["bordaRanks"] == bv.rank(borda, tol=d["tol"]).tolist()
        checked += 1
    set_boxes(boxes, [True] * len(cells))
    return checked


def check_effort(root, rng: np.random.Generator, settings: int = 5) -> int:
    d = payload(root)
    n = len(d["tasks"])
    sliders = root.locator("input[type=range]")
    assert sliders.count() == 2 * n + 1
    budget = root.locator("input[name=budget]")

    def compare():
        v = view(root)
        a, b = np.asarray(v["a"]), np.asarray(v["b"])
        plan = water_filling([lambda x, a=ai, b=bi: a * b / (1 + b * x) for ai, bi in zip(a, b)], v["budget"])
        assert v["drawnLevel"] == v["level"], "the water level drawn is not the one computed"
        assert abs(sum(v["allocation"]) - v["budget"]) < 1e-9 * max(1.0, v["budget"])
        assert np.allclose(v["allocation"], plan.allocation, rtol=0, atol=1e-7), (v["allocation"], plan.allocation)
        assert abs(v["level"] - plan.level) <= 1e-7 * max(1.0, plan.level)
        big = np.abs(plan.allocation) > 1e-6
        assert np.array_equal(np.asarray(v["active"])[big], plan.active[big])
        gain = float(np.sum(a * np.log1p(b * plan.allocation))) / n
        assert abs(v["gain"] - gain) < 1e-7
        for chart in ("curves", "level"):  # the effort axis carries its values, up to the budget
            ticks = root.locator(f"svg[data-chart={chart}] text[data-tick]")
            assert ticks.count() == 5, f"the {chart} chart's effort axis has no values"
            assert abs(float(ticks.last.get_attribute("data-tick")) - v["budget"]) < 1e-9
        return a, b

    for s in range(settings):
        for k in range(n):  # sliders alternate a, b per task
            set_range(sliders.nth(2 * k), float(rng.uniform(*d["aRange"])))
            set_range(sliders.nth(2 * k + 1), float(rng.uniform(*d["bRange"])))
        if s % 2:
            set_range(budget, float(rng.uniform(*d["budgetRange"])))
        compare()
    root.locator("button[name=reset]").click()
    a, b = compare()
    assert np.allclose(a, d["a"]) and np.allclose(b, d["b"]), "reset did not restore the chapter's curves"
    assert view(root)["budget"] == d["budget"], "reset did not restore the budget"
    return settings + 1


def check_domains(root, rng: np.random.Generator, settings: int = 5) -> int:
    """Tick model subsets; the verdicts, ballots, margins and Condorcet winner against benchvote.domains and voting."""
    from benchvote.domains import domain_report, profile_majority, rankings_from_scores
    from benchvote.voting import condorcet_winner

    d = payload(root)
    models = d["models"]
    boxes = root.locator("input[type=checkbox]")
    assert boxes.count() == len(models)
    # the payload's ballots are the profile; a score table that induces it lets benchvote.voting decide independently
    ballots = [[models[k] for k in b] for b in d["ballots"]]
    table = pd.DataFrame({m: [-b.index(x) for x in models] for m, b in zip(d["metrics"], ballots)}, index=models)
    assert rankings_from_scores(table, tie_break="alphabetical") == [tuple(b) for b in ballots]
    sizes = [3, d["maxModels"], 2] + [
        int(rng.integers(3, min(d["maxModels"], len(models)) + 1)) for _ in range(settings)
    ]
    for size in sizes:
        chosen = sorted(int(k) for k in rng.permutation(len(models))[:size])
        set_boxes(boxes, [k in chosen for k in range(len(models))])
        v = view(root)
        names = [models[k] for k in chosen]
        assert v["ticked"] == names
        if size < 3:
            assert "error" in v and "Tick 3 to" in root.locator(".bv-summary").inner_text()
            continue
        profile = [tuple(x for x in b if x in names) for b in ballots]
        r = domain_report(profile)
        assert v["singlePeaked"] == r.single_peaked and v["groupSeparable"] == r.group_separable
        assert v["cycles"] == r.cycles
        if v["axis"] is not None:
            from benchvote.domains import is_single_peaked_on

            assert is_single_peaked_on(profile, v["axis"])
        assert v["ballots"] == [list(b) for b in profile]
        assert v["margins"] == profile_majority(profile).loc[names, names].to_numpy().astype(int).tolist()
        winner = condorcet_winner(table.loc[names])
        assert v["condorcet"] == winner, (v["condorcet"], winner)
        arrows = root.locator("svg[data-chart=majority] g[data-arrow]")
        assert arrows.count() == int((np.asarray(v["margins"]) > 0).sum())
        assert (root.locator("svg[data-chart=majority] g[data-cycle=yes]").count() > 0) == (r.cycles > 0)
    return len(sizes)


def check_positional(root, rng: np.random.Generator, settings: int = 5) -> int:
    """Every position of the k slider, then Borda: points, ranks and winners against benchvote.positional."""
    from benchvote.positional import positional_scores, positional_winners, scoring_vector

    d = payload(root)
    frame = _frame(d["scores"], d["models"], d["tasks"])
    hib = [s > 0 for s in d["sign"]]
    m = len(d["models"])
    winners = positional_winners(frame, hib, tol=d["tol"]).set_index("rule")
    slider = root.locator("input[type=range][name=k]")
    assert (slider.get_attribute("min"), slider.get_attribute("max")) == ("1", str(m - 1))
    ks = [int(k) for k in rng.permutation(np.arange(1, m))]  # every position, in an order no reader would take
    back = [int(k) for k in rng.integers(1, m, size=max(1, settings - len(ks) - 1))]  # and back from Borda
    for k in [*ks, None, *back]:
        if k is None:
            root.locator("button[name=borda]").click()
            rule, w = "Borda", scoring_vector("borda", m)
        else:
            set_range(slider, k)
            rule, w = winners.index[k - 1], scoring_vector("approval", m, k)
        v = view(root)
        assert (v["rule"], v["k"]) == (rule, k), (v["rule"], v["k"], rule, k)
        assert v["weights"] == w.tolist()
        points = positional_scores(frame, hib, weights=w, tol=d["tol"])
        assert np.allclose(v["points"], points.to_numpy(), rtol=0, atol=1e-9), (rule, v["points"], points.tolist())
        ranks = bv.rank(points, tol=d["tol"])
        assert v["ranks"] == ranks.tolist(), rule
        assert tuple(v["winners"]) == winners.loc[rule, "winners"], (rule, v["winners"])
        assert abs(v["best"] - winners.loc[rule, "points"]) <= 1e-9
        shown = sorted(range(m), key=lambda i: (ranks.iloc[i], i))[: d["top"]]
        assert v["shown"] == [d["models"][i] for i in shown]
        drawn = root.locator("svg[data-chart=points] g[data-model]").evaluate_all("gs => gs.map(g => g.dataset.model)")
        assert drawn == v["shown"]
        columns = root.locator("svg[data-chart=vector] rect[data-points]").evaluate_all(
            "rs => rs.map(r => Number(r.dataset.points))"
        )
        assert columns == w.tolist()
        summary = root.locator(".bv-summary").inner_text()
        assert summary.startswith(f"{rule}, scoring vector (")
    set_range(slider, d["k"])  # back to the chapter's start, as the page was found
    return len(ks) + 1 + len(back)


def _rank_set_expected(d: dict, items: int, tasks: int) -> list:
    """The library's rank sets for one setting, from the answers in the payload (independently of the page)."""
    from benchvote.comparisons import rank_sets

    blocks = [np.array([[float(c) for c in row[:items]] for row in task]) for task in d["bits"][:tasks]]
    pooled = pd.DataFrame(np.hstack(blocks), index=d["models"])
    shares = pd.DataFrame(np.column_stack([b.mean(axis=1) for b in blocks]), index=d["models"])
    options = dict(level=d["level"], n_boot=1, tol=d["tol"])
    return [rank_sets(pooled, test="mcnemar", **options), rank_sets(shares, test="sign", **options)]


def check_rank_sets(root, rng: np.random.Generator, settings: int = 5) -> int:
    """Items and tasks sliders: p-values, rank sets, tiers and the drawn bars against benchvote.comparisons."""
    d = payload(root)
    n_counts, n_tasks = len(d["itemCounts"]), len(d["tasks"])
    items, tasks = root.locator("input[type=range][name=items]"), root.locator("input[type=range][name=tasks]")
    chosen = [(0, n_tasks), (n_counts - 1, 1), (n_counts - 1, n_tasks)]
    chosen += [(int(rng.integers(n_counts)), int(rng.integers(1, n_tasks + 1))) for _ in range(settings)]
    pairs = len(d["models"]) * (len(d["models"]) - 1) // 2
    for pos, t in chosen:
        set_range(items, pos)
        set_range(tasks, t)
        v = view(root)
        k = d["itemCounts"][pos]
        assert (v["items"], v["tasks"]) == (k, t)
        expected = _rank_set_expected(d, k, t)
        summary = root.locator(".bv-summary").inner_text()
        for q, r in enumerate(expected):
            assert v["lowest"][q] == r.lowest.tolist(), (q, k, t, v["lowest"][q], r.lowest.tolist())
            assert v["highest"][q] == r.highest.tolist(), (q, k, t)
            assert v["tiers"][q] == r.tiers, (q, k, t, v["tiers"][q], r.tiers)
            assert np.allclose(v["pAdjusted"][q], r.comparisons.p_adjusted, rtol=1e-9, atol=1e-14), (q, k, t)
            assert v["separated"][q] == int(r.above.sum())
            bars = root.locator(f"svg[data-chart=sets-{q}] g[data-model]").evaluate_all(
                "gs => gs.map(g => [g.dataset.model, Number(g.dataset.lowest), Number(g.dataset.highest)])"
            )
            drawn = [[d["models"][i], int(r.lowest[i]), int(r.highest[i])] for i in r.order]
            assert bars == drawn, (q, bars, drawn)
            word = "tier" if len(r.tiers) == 1 else "tiers"
            assert f"{int(r.above.sum())} of {pairs} pairs separated, {len(r.tiers)} {word}" in summary
    return len(chosen)


CHECKS = {
    "model-toggle": check_model_toggle,
    "label-noise": check_label_noise,
    "missing-share": check_missing_share,
    "cell-knockout": check_cell_knockout,
    "effort": check_effort,
    "domains": check_domains,
    "positional": check_positional,
    "rank-sets": check_rank_sets,
}


def perform(root, actions: list[dict]) -> None:
    """Do what a guided step says, as a reader would: tick boxes, press a button, move a slider."""
    for act in actions:
        if act["op"] == "boxes":
            boxes = root.locator("input[type=checkbox]")
            names = boxes.evaluate_all("bs => bs.map(b => b.name)")
            set_boxes(boxes, [name in act["on"] if "on" in act else name not in act["off"] for name in names])
        elif act["op"] == "click":
            root.locator(f"button[name={act['name']}]").click()
        elif act["op"] == "range":
            set_range(root.locator(f"input[type=range][name={act['name']}]"), act["value"])
        else:
            raise ValueError(f"unknown action {act['op']!r}")


def _close(got, want) -> bool:
    if isinstance(want, float):
        return isinstance(got, (int, float)) and abs(got - want) <= 1e-9 * max(1.0, abs(want))
    if isinstance(want, list):
        return isinstance(got, list) and len(got) == len(want) and all(_close(g, w) for g, w in zip(got, want))
    return got == want


def check_steps(root) -> int:
    """Perform every step of the guided path printed under the controls; the page must show the promised outcome."""
    d = payload(root)
    printed = root.locator(".bv-steps li").all_inner_texts()
    assert printed == [f"{st['say']} You should see: {st['see']}." for st in d.get("steps", [])]
    for st in d.get("steps", []):
        perform(root, st["do"])
        v = view(root)
        for key, want in st["view"].items():
            assert _close(v.get(key), want), (st["say"], key, v.get(key), want)
        summary = root.locator(".bv-summary").inner_text()
        for phrase in st["text"]:
            assert phrase in summary, (st["say"], phrase, summary)
    return len(d.get("steps", []))


#: :func:`controls_change_charts` in the page: every control used in one call (a call per use cost Playwright's
#: round trips and actionability waits, about a second per check box on a loaded machine).
_USE_EVERY_CONTROL = """root => {
  const drawn = () => [...root.querySelectorAll('.bv-slot, .bv-summary')].map(n => n.innerHTML).join('|');
  const setRange = (s, v) => { s.value = String(v); s.dispatchEvent(new Event('input', {bubbles: true})); };
  const failed = [];
  // what Playwright's click waits for: shown, enabled, and the pointer at its centre lands on it (or its label)
  const reachable = (el, what) => {
    el.scrollIntoView({block: 'center', inline: 'center'});
    const r = el.getBoundingClientRect();
    const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
    const ok = r.width > 0 && r.height > 0 && !el.disabled && getComputedStyle(el).visibility !== 'hidden'
      && hit !== null && (hit === el || el.contains(hit) || (hit.closest('label') || {}).control === el);
    const top = hit ? hit.outerHTML.slice(0, 80) : 'nothing';
    if (!ok) failed.push(`${what} cannot be reached by a pointer (${top} on top)`);
    return ok;
  };
  const boxes = [...root.querySelectorAll('input[type=checkbox]')];
  const sliders = [...root.querySelectorAll('input[type=range]')];
  let used = 0;
  for (const box of boxes) {
    if (!reachable(box, `check box ${box.name}`)) continue;
    const before = drawn();
    box.click();
    if (drawn() === before) failed.push(`check box ${box.name} changed nothing`);
    box.click();
    used++;
  }
  for (const slider of sliders) {
    if (!reachable(slider, `slider ${slider.name}`)) continue;
    const before = drawn();
    const [lo, hi, now] = [slider.min, slider.max, slider.value].map(Number);
    setRange(slider, now - lo > hi - now ? lo : hi);
    if (drawn() === before) failed.push(`slider ${slider.name} changed nothing`);
    setRange(slider, now);
    used++;
  }
  // a few states that no single button produces: a slider off its marks, all boxes on, all boxes off
  const scramble = which => {
    if (which === 0 && sliders.length) {
      const [lo, hi] = [sliders[0].min, sliders[0].max].map(Number);
      setRange(sliders[0], (lo + hi) / 2 + (hi - lo) / 7);
    }
    boxes.forEach(b => { if (b.checked !== (which !== 2)) b.click(); });
  };
  for (const button of root.querySelectorAll('button')) {
    if (!reachable(button, `button ${JSON.stringify(button.innerText)}`)) continue;
    let changed = false;
    for (let which = 0; which < 3 && !changed; which++) {
      scramble(which);
      const before = drawn();
      button.click();
      changed = drawn() !== before;
    }
    if (!changed) failed.push(`button ${JSON.stringify(button.innerText)} changed nothing`);
    used++;
  }
  return {used, failed};
}"""


def controls_change_charts(root) -> int:
    """Use every enabled control of one explorable; each use must change what the explorable draws.

    Each check box is clicked and clicked back, each slider moved to its farther end and back, each button pressed
    after a scramble of the other controls (up to three kinds) until what is drawn changes; every control must also
    be shown, enabled and the first thing under a pointer at its centre, as a reader's click needs.
    """
    result = root.evaluate(_USE_EVERY_CONTROL)
    assert not result["failed"], "; ".join(result["failed"])
    return result["used"]
