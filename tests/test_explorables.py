"""benchvote.explorables: the payloads, and the in-page computations, against the library (in Chromium).

The browser tests put explorables built on generated tables (ties, missing cells, lower-is-better tasks,
corner weights) into one standalone page and drive every control (``explorable_checks``).  They need
Debian's Chromium but not the built book (marker ``browser``).
"""

from __future__ import annotations

import json
import re
from importlib import resources
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from chromium import CHROMIUM, FLAGS
from explorable_checks import CHECKS, check_steps, controls_change_charts
from hypothesis import given, settings
from hypothesis import strategies as st

import benchvote as bv
from benchvote import explorables as ex

SHOTS = Path(__file__).resolve().parents[1] / "_build" / "screenshots"


def _table(rng, m, n, *, ties=True, missing=0.0):
    values = rng.integers(0, 6 if ties else 10_000, size=(m, n)).astype(float) / 5
    if missing:
        holes = rng.random((m, n)) < missing
        holes[:, 0] = False  # every model keeps one score
        holes[:2, :] = False  # every task keeps two
        values[holes] = np.nan
    return pd.DataFrame(values, index=[f"M{i}" for i in range(m)], columns=[f"t{j}" for j in range(n)])


# ---------- payloads (no browser) ----------


def test_model_toggle_payload_holds_the_library_counts():
    rng = np.random.default_rng(1)
    s = _table(rng, 7, 5, missing=0.2)
    x = ex.model_toggle(
        s, [True, False, True, True, False], protected=["M0", "M1", "M2"], pool=["M3", "M4", "M5", "M6"]
    )
    counts = bv.pairwise_wins(s.loc[["M0", "M1", "M2", "M3", "M4", "M5", "M6"]], [True, False, True, True, False])
    assert x.data["wins"] == counts.wins[:3].tolist()
    assert x.data["compared"] == counts.compared[:3].tolist()
    assert (
        x.data["base"]
        == bv.protected_ranking(s, [True, False, True, True, False], protected=["M0", "M1", "M2"]).tolist()
    )


def test_quantile_toggle_looks_up_every_subset():
    s = pd.DataFrame({"t1": [2, 3, 1, 0], "t2": [2, 3, 1, 4], "t3": [3, 1, 2, 0]}, index=list("ABCD"))
    x = ex.model_toggle(s, protected=["A", "B"], pool=["C", "D"], convention="quantile")
    assert len(x.data["lookup"]) == 4
    assert (
        x.data["lookup"][0b01]
        == bv.protected_ranking(s, protected=["A", "B"], added=["C"], convention="quantile").tolist()
    )
    assert (
        x.data["lookup"][0b11]
        == bv.protected_ranking(s, protected=["A", "B"], added=["C", "D"], convention="quantile").tolist()
    )


def test_quantile_toggle_ships_exact_win_rates():
    """The textbook's example: A and B have 2/3 and 5/6 alone, and tie at 7/9 once C joins."""
    s = pd.DataFrame({"t1": [2, 1, 3], "t2": [2, 1, 3], "t3": [1, 3, 2]}, index=list("ABC"))
    x = ex.model_toggle(s, False, protected=["A", "B"], pool=["C"], convention="quantile")
    assert x.data["fractions"] == [[[2, 3], [5, 6]], [[7, 9], [7, 9]]]
    rng = np.random.default_rng(5)
    t = _table(rng, 6, 4, missing=0.2)
    y = ex.model_toggle(t, protected=["M0", "M1"], pool=["M2", "M3", "M4"], convention="quantile")
    for key, fractions in enumerate(y.data["fractions"]):
        added = [f"M{k + 2}" for k in range(3) if key >> k & 1]
        rates = bv.mean_win_rate(t.loc[["M0", "M1", *added]], convention="quantile")
        assert np.allclose([a / b for a, b in fractions], rates.iloc[:2], rtol=0, atol=1e-12)


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda s: ex.model_toggle(s, protected=["M0", "zz"], pool=["M2"]), "zz"),
        (lambda s: ex.model_toggle(s, protected=["M0", "M1"], pool=["M1"]), "both protected and added"),
        (lambda s: ex.model_toggle(s, protected=["M0", "M1"], pool=["M2"], checked=["M3"]), "M3"),
        (
            lambda s: ex.model_toggle(
                s, protected=["M0", "M1"], pool=[f"M{i}" for i in range(2, 12)], convention="quantile"
            ),
            "at most 8",
        ),
        (lambda s: ex.label_noise(s, worst=[1.0]), "one weight"),
        (lambda s: ex.label_noise(s, eps=1.5), "eps"),
        (lambda s: ex.label_noise(s, top=1), "top"),
        (lambda s: ex.missing_share(s, shares=[0.5]), "at least 2"),
        (lambda s: ex.missing_share(s, shares=[0.0, 1.0]), "share"),
        (lambda s: ex.effort([1.0, -1.0], [1.0, 1.0], ["a", "b"]), "positive"),
        (lambda s: ex.effort([1.0], [1.0, 1.0], ["a", "b"]), "same positive length"),
        (lambda s: ex.effort([1.0], [1.0], ["a"], budget=0), "budget"),
    ],
)
def test_bad_input_is_refused_with_a_clear_message(call, message):
    s = _table(np.random.default_rng(0), 12, 3, ties=False)
    with pytest.raises((ValueError, KeyError), match=message):
        call(s)


def test_near_ties_that_would_chain_are_refused():
    s = pd.DataFrame({"t": [1.0, 1.0 + 5e-10, 0.0], "u": [0.0, 1.0, 2.0]}, index=list("ABC"))
    with pytest.raises(ValueError, match="within tol"):
        ex.model_toggle(s, protected=["A", "B"], pool=["C"])
    ex.model_toggle(s, protected=["A", "B"], pool=["C"], tol=0.0)  # exact comparisons: nothing chains


def test_html_is_self_contained():
    s = _table(np.random.default_rng(0), 4, 3)
    s.index = ["</script><b>x", "M1", "M2", "M3"]
    text = ex.cell_knockout(s).to_html()
    # the payload's own closing tag and the two scripts' (runtime, then kind): the label is escaped
    assert text.count("</script>") == 3
    assert text.index("/* benchvote explorables, the shared runtime") < text.index('BV.register("cell-knockout"')
    assert "http://" not in text.replace("http://www.w3.org/2000/svg", "") and "https://" not in text
    assert ex.cell_knockout(s)._repr_html_() == text


WEB = resources.files("benchvote") / "_web"


def test_every_kind_has_its_page_script_and_every_page_script_a_kind():
    on_disk = {p.name for p in WEB.iterdir() if re.fullmatch(r"explorables\..+\.js", p.name)}
    assert on_disk == {ex._scripts(kind)[1] for kind in ex.KINDS}
    for kind in ex.KINDS:
        runtime, own = ex._scripts(kind)
        assert runtime == "explorables.js"
        assert re.findall(r"BV\.register\(\"([^\"]*)\"", (WEB / own).read_text(encoding="utf-8")) == [kind]
    assert 'BV.register("' not in (WEB / "explorables.js").read_text(encoding="utf-8")


@pytest.mark.parametrize("name", sorted({name for kind in ex.KINDS for name in ex._scripts(kind)}))
def test_page_scripts_can_be_inlined_as_classic_scripts(name):
    """Inlined in a ``<script>`` element: nothing may close it or open a comment, and no module syntax (file://)."""
    text = (WEB / name).read_text(encoding="utf-8")
    assert "</script" not in text.lower() and "<!--" not in text
    assert not re.search(r"^\s*(import|export)\b", text, re.MULTILINE)


def test_domain_lookup_is_the_library_report_of_every_subset():
    from itertools import combinations

    from benchvote.domains import domain_report, rankings_from_scores

    s = _voters()
    x = ex.domain_explorer(s, [True, False, True], models=list(s.index[:7]), max_models=5)
    models = list(s.index[:7])
    assert len(x.data["lookup"]) == sum(len(list(combinations(range(7), k))) for k in range(3, 6))
    for key, (axis, separable, cycles) in x.data["lookup"].items():
        chosen = [models[k] for k in range(7) if int(key) >> k & 1]
        r = domain_report(rankings_from_scores(s.loc[chosen], [True, False, True]))
        assert (axis is None) == (r.single_peaked_axis is None) and separable == r.group_separable
        assert cycles == r.cycles
    assert any(c for _, _, c in x.data["lookup"].values()), "the table should have a cycle to show"
    assert x.steps and x.steps[0]["view"]["cycles"] == 1


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(models=["m1", "m2"]), "3 to 12"),
        (dict(models=["m1", "m2", "zz"]), "zz"),
        (dict(models=["m1", "m2", "m3"], max_models=9), "max_models"),
        (dict(models=["m1", "m2", "m3"], checked=["m4"]), "m4"),
    ],
)
def test_domain_explorer_refuses_bad_input(kwargs, message):
    with pytest.raises((ValueError, KeyError), match=message):
        ex.domain_explorer(_voters(), **kwargs)


def test_every_explorable_has_a_guided_path_written_from_the_library():
    for x in _explorables(np.random.default_rng(2026)):
        assert x.steps, x.kind
        for step in x.steps:
            assert step["say"] and step["see"] and step["do"] and (step["view"] or step["text"])


def test_the_textbook_step_promises_the_tie_at_seven_ninths():
    s = pd.DataFrame({"t1": [2, 1, 3], "t2": [2, 1, 3], "t3": [1, 3, 2]}, index=list("ABC"))
    (step,) = ex.model_toggle(s, False, protected=["A", "B"], pool=["C"], convention="quantile").steps
    assert step["say"] == "Tick C alone."
    assert step["see"] == "A and B now tie (A at 7/9 = 0.7778, B at 7/9 = 0.7778)"
    assert step["view"]["fractions"] == ["7/9", "7/9"] and step["view"]["reversed"] == 0


def test_effort_steps_follow_the_library_water_filling():
    from benchvote.strategy import water_filling

    x = ex.effort([2.0, 1.0, 0.5, 0.2], [1.0, 2.0, 3.0, 0.5], ["w", "x", "y", "z"], budget=2.0)
    a, b = np.asarray(x.data["a"]), np.asarray(x.data["b"])
    for step in x.steps:
        budget = step["do"][0]["value"]
        plan = water_filling([lambda t, a=ai, b=bi: a * b / (1 + b * t) for ai, bi in zip(a, b)], budget)
        assert np.isclose(step["view"]["level"], plan.level) and step["view"]["active"] == plan.active.tolist()
    assert [step["view"]["active"].count(True) for step in x.steps] == [1, 3]


def test_certificates_must_come_from_the_pool():
    s = _table(np.random.default_rng(0), 6, 3, ties=False)
    with pytest.raises(KeyError, match="M0"):
        ex.model_toggle(s, protected=["M0", "M1"], pool=["M2", "M3"], certificates=[["M0"]])
    with pytest.raises(ValueError, match="at least one"):
        ex.model_toggle(s, protected=["M0", "M1"], pool=["M2", "M3"], certificates=[[]])


def test_label_noise_worst_case_comes_from_the_library():
    s = _table(np.random.default_rng(3), 9, 4, ties=False)
    x = ex.label_noise(s, eps=0.2, seed=0)
    from benchvote.sensitivity import cardinal_sensitivity

    r = cardinal_sensitivity(s, eps=0.2, method="relaxation", restarts=8, steps=100, polish_starts=16, seed=0)
    assert np.allclose(x.data["worst"], r.weights)


def _helm_complete():
    board = bv.data.load("HELM-accuracy")
    return board.scores.dropna(), board.higher_is_better


def test_positional_steps_are_the_library_winners_at_every_k():
    """Every k at which a new model wins alone (positional_scores recounted for every slider value) is a step,
    and each step promises positional_winners' own row."""
    from benchvote.positional import positional_scores, positional_winners, scoring_vector

    scores, hib = _helm_complete()
    m = len(scores)
    x = ex.positional_rule(scores, hib)
    rows = positional_winners(scores, hib).set_index("rule")
    alone, before = [], None
    for k in range(1, m):
        points = positional_scores(scores, hib, weights=scoring_vector("approval", m, k))
        best = points[np.isclose(points, points.max(), rtol=0, atol=1e-9)].index.tolist()
        assert tuple(best) == rows["winners"].iloc[k - 1]
        if len(best) == 1 and k > 1 and best != before:  # the slider starts at k = 1
            alone.append((k, best[0]))
        before = best
    slides = [step for step in x.steps if step["do"][0]["op"] == "range"]
    assert [(step["view"]["k"], step["view"]["winners"][0]) for step in slides[: len(alone)]] == alone[:3]
    for step in x.steps:
        rule = step["view"]["rule"]
        assert step["view"]["winners"] == list(rows.loc[rule, "winners"])
        assert step["view"]["best"] == rows.loc[rule, "points"]
        assert (step["do"][0]["op"] == "click") == (rule == "Borda")
    assert x.steps[-1]["view"]["rule"] == "veto" and x.steps[-1]["do"][0]["value"] == m - 1


def test_positional_payload_ranks_every_task_like_the_library():
    scores, hib = _helm_complete()
    d = ex.positional_rule(scores, hib).data
    signed = np.asarray(d["scores"]) * np.asarray(d["sign"])
    assert d["models"] == list(scores.index) and d["tasks"] == list(scores.columns)
    assert np.array_equal(bv.rank(pd.DataFrame(signed), tol=d["tol"]).to_numpy(), bv.rank(scores, hib).to_numpy())
    assert (bv.rank(scores, hib) % 1 != 0).to_numpy().any(), "the board has tied places, which the page splits"


def test_positional_step_text_prints_split_points_as_the_page_does():
    """A three-way tie for places 1-3 under 2-approval gives each model 2/3 of a point: printed 0.67."""
    s = pd.DataFrame({"t": [5.0, 5.0, 5.0, 1.0]}, index=list("ABCD"))
    (borda, *_) = [st for st in ex.positional_rule(s, k=2).steps if st["view"]["rule"] == "Borda"]
    assert borda["view"]["winners"] == ["A", "B", "C"] and borda["view"]["best"] == 2.0
    assert ex._points_text(2 / 3) == "0.67" and ex._points_text(12.833333333333332) == "12.83"
    assert ex._points_text(0.1 + 0.2 + 0.7) == "1"


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda s: ex.positional_rule(s.iloc[:2]), "at least 3 models"),
        (lambda s: ex.positional_rule(s, k=12), "k"),
        (lambda s: ex.positional_rule(s, top=1), "top"),
        (lambda s: ex.positional_rule(s.mask(s > 1.5)), "nan|missing"),
    ],
)
def test_positional_rule_refuses_bad_input(call, message):
    s = _table(np.random.default_rng(0), 12, 3, ties=False)
    with pytest.raises((ValueError, TypeError), match=message):
        call(s)


# ---------- the page's computations against the library, in Chromium ----------


def _explorables(rng):
    out = []
    s = _table(rng, 9, 5, missing=0.25)
    hib = [True, False, True, True, False]
    out.append(ex.model_toggle(s, hib, protected=["M0", "M1", "M2", "M3"], pool=["M4", "M5", "M6", "M7", "M8"]))
    out.append(
        ex.model_toggle(s.iloc[:6], hib, protected=["M0", "M1", "M2"], pool=["M3", "M4", "M5"], convention="quantile")
    )
    # the textbook example of data/abc_ranks.csv (rank 1 = best): C ties A and B in the quantile convention
    textbook = pd.DataFrame({"t1": [2, 1, 3], "t2": [2, 1, 3], "t3": [1, 3, 2]}, index=list("ABC"))
    out.append(ex.model_toggle(textbook, False, protected=["A", "B"], pool=["C"], convention="quantile"))
    dense = _table(rng, 14, 6, ties=True)
    out.append(ex.label_noise(dense, [True, True, False, True, True, True], top=8, eps=0.05))
    out.append(ex.missing_share(_table(rng, 10, 6, ties=False), top=6, seed=3))
    out.append(ex.cell_knockout(_table(rng, 5, 4, missing=0.2), [True, False, True, True]))
    out.append(ex.effort([2.0, 1.0, 0.5, 0.2], [1.0, 2.0, 3.0, 0.5], ["w", "x", "y", "z"], budget=2.0))
    # certificates: the sets of pool models that the library's iia_report finds for each reversible pair
    out.append(
        ex.model_toggle(
            s,
            hib,
            protected=["M0", "M1", "M2", "M3"],
            pool=["M4", "M5", "M6", "M7", "M8"],
            certificates=_certificates(s, hib, ["M0", "M1", "M2", "M3"], ["M4", "M5", "M6", "M7", "M8"]),
        )
    )
    out.append(
        ex.domain_explorer(_voters(), [True, False, True], models=list(_voters().index), checked=["</b>m0", "m1", "m2"])
    )
    out.append(ex.positional_rule(_ballots(rng), [True, False, True, True, True, False], top=6))
    sim = bv.data.irt_items(7, 4, 120, seed=5)
    out.append(ex.rank_sets_explorer(sim.blocks, list(sim.ability.index), item_counts=[5, 30, 120]))
    return out


def _ballots(rng):
    """Nine models, six tasks with ties (one within the tie tolerance), two lower-is-better; one hostile name."""
    s = _table(rng, 9, 6, ties=True)
    s.iat[1, 0] = s.iat[0, 0] + 4e-10  # ties with M0 at the default tolerance, so the two share places
    s.index = ["</b>p0", *s.index[1:]]
    return s


def _certificates(s, hib, protected, pool):
    from benchvote.axioms import iia_report

    rep = iia_report(s, hib, protected=protected, pool=pool)
    found = [list(c) for c in rep.loc[rep.status == "reversible", "certificate"]]
    assert found, "the generated table should have a reversible pair"
    return found


def _voters():
    """Nine models and three metrics with a majority cycle; one name is hostile markup."""
    rng = np.random.default_rng(11)
    values = rng.permutation(np.arange(27.0)).reshape(9, 3)
    return pd.DataFrame(values, index=["</b>m0", *[f"m{i}" for i in range(1, 9)]], columns=["acc", "time", "fair"])


N_EXPLORABLES = 11


@pytest.fixture(scope="module")
def standalone(tmp_path_factory):
    if not Path(CHROMIUM).is_file():
        pytest.fail(f"Chromium not found at {CHROMIUM}: apt-get install chromium")
    from playwright.sync_api import sync_playwright

    page_file = tmp_path_factory.mktemp("explorables") / "page.html"
    body = "".join(x.to_html() for x in _explorables(np.random.default_rng(2026)))
    page_file.write_text(
        f"<!doctype html><html><head><meta charset='utf-8'><title>explorables</title></head>"
        f"<body style='max-width:900px'>{body}</body></html>"
    )
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        page = browser.new_page(viewport={"width": 1000, "height": 900})
        errors: list[str] = []
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(page_file.as_uri())
        yield page, errors
        browser.close()


@pytest.mark.browser
def test_every_explorable_mounts_without_errors(standalone):
    page, errors = standalone
    roots = page.locator(".bv-explorable")
    assert roots.count() == N_EXPLORABLES
    assert page.locator(".bv-explorable[data-mounted=yes]").count() == N_EXPLORABLES
    assert sorted(set(roots.evaluate_all("rs => rs.map(r => r.dataset.kind)"))) == sorted(ex.KINDS)
    assert not errors, errors
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "explorables__standalone.png"), full_page=True)


@pytest.mark.browser
@pytest.mark.parametrize("index", range(N_EXPLORABLES))
def test_the_page_shows_the_library_numbers(standalone, index):
    page, errors = standalone
    root = page.locator(".bv-explorable").nth(index)
    kind = root.get_attribute("data-kind")
    done = CHECKS[kind](root, np.random.default_rng(index), settings=12)
    assert done >= 12
    assert not errors, errors


@pytest.mark.browser
@pytest.mark.parametrize("index", range(N_EXPLORABLES))
def test_every_control_changes_the_chart(standalone, index):
    page, errors = standalone
    assert controls_change_charts(page.locator(".bv-explorable").nth(index)) > 0
    assert not errors, errors


@pytest.mark.browser
def test_one_registry_of_kinds(standalone):
    """The page script, the Python builders and the browser checks know the same kinds."""
    page, _ = standalone
    assert sorted(page.evaluate("() => window.benchvoteExplorables.kinds")) == sorted(ex.KINDS) == sorted(CHECKS)
    assert all(ex.KINDS[kind].__name__ in ex.__all__ for kind in ex.KINDS)


@pytest.mark.browser
def test_each_kind_mounts_alone_from_a_file(standalone, tmp_path):
    """A kind's script needs only the runtime: alone on a page opened from ``file://``, each explorable mounts and
    registers its own kind and no other."""
    page, _ = standalone
    seen = {}
    errors: list[str] = []
    for x in _explorables(np.random.default_rng(2026)):
        if x.kind in seen:
            continue
        path = tmp_path / f"{x.kind}.html"
        path.write_text(
            f"<!doctype html><html><head><meta charset='utf-8'><title>{x.kind}</title></head>"
            f"<body>{x.to_html()}</body></html>",
            encoding="utf-8",
        )
        alone = page.context.browser.new_page()
        alone.on("pageerror", lambda e: errors.append(str(e)))
        alone.goto(path.as_uri())
        kinds = alone.evaluate("() => window.benchvoteExplorables.kinds")
        seen[x.kind] = (kinds, alone.locator(".bv-explorable[data-mounted=yes]").count())
        alone.close()
    assert seen == {kind: ([kind], 1) for kind in ex.KINDS}
    assert not errors, errors


@pytest.mark.browser
def test_every_guided_step_shows_what_it_promises(standalone):
    """Reload, then perform each explorable's "Try this" steps in order and compare the page with the outcome."""
    page, errors = standalone
    page.reload()
    page.wait_for_function(
        f"() => document.querySelectorAll('.bv-explorable[data-mounted=yes]').length == {N_EXPLORABLES}"
    )
    steps = [check_steps(root) for root in page.locator(".bv-explorable").all()]
    assert all(n >= 1 for n in steps), steps
    assert not errors, errors


@pytest.mark.browser
def test_a_certificate_button_shows_its_flip(standalone):
    page, errors = standalone
    root = page.locator(".bv-explorable").nth(7)
    data = json.loads(root.locator("script.bv-data").text_content())
    s = _table(np.random.default_rng(2026), 9, 5, missing=0.25)
    for k, members in enumerate(data["certificates"]):
        root.locator(f"button[name=cert-{k}]").click()
        v = root.evaluate("e => e.bvView()")
        added = [data["pool"][q] for q in members]
        assert v["added"] == added
        assert v["reversed"] >= 1, "a certificate reverses at least its own pair"
        expected = bv.protected_ranking(s, [True, False, True, True, False], protected=data["protected"], added=added)
        assert v["after"] == expected.tolist()
    assert not errors, errors


@pytest.mark.browser
def test_hostile_names_stay_text(standalone):
    """A model named ``</b>m0`` is shown as text everywhere (boxes, steps, tables, chart), never parsed as markup."""
    page, _ = standalone
    root = page.locator(".bv-explorable[data-kind=domains]")
    markup = root.inner_html()
    assert "</b>m0" not in markup and markup.count("&lt;/b&gt;m0") >= 4
    assert root.locator("label").first.inner_text().strip() == "</b>m0"
    assert "</b>m0" in root.locator(".bv-steps li").first.inner_text()
    points = page.locator(".bv-explorable[data-kind=positional]")
    assert "</b>p0" not in points.inner_html() and "&lt;/b&gt;p0" in points.inner_html()


@pytest.mark.browser
def test_a_tie_is_not_called_a_reversal(standalone):
    """Ticking C in the textbook's example ties A and B: one pair changes order, none is reversed, tau is 0."""
    page, errors = standalone
    root = page.locator(".bv-explorable").nth(2)
    box = root.locator("input[type=checkbox]")
    box.set_checked(True)
    v = root.evaluate("e => e.bvView()")
    assert (v["changed"], v["reversed"], v["orderedToTied"], v["tau"]) == (1, 0, 1, 0.0)
    assert v["fractions"] == ["7/9", "7/9"]
    summary = root.locator(".bv-summary").inner_text()
    assert "1 of the 1 pair of protected models changes order (1 ordered \u2192 tied)" in summary
    assert "the Kendall tau distance, 0.000, counts only the 0 pairs strictly reversed" in summary
    assert "A and B now tie" in summary
    cells = root.locator("table[data-table=rates] td").all_inner_texts()
    assert cells == [
        "B",
        "5/6 = 0.8333",
        "7/9 = 0.7778",
        "1 \u2192 1.5",
        "A",
        "2/3 = 0.6667",
        "7/9 = 0.7778",
        "2 \u2192 1.5",
    ]
    box.set_checked(False)
    assert "No pair of protected models changes order" in root.locator(".bv-summary").inner_text()
    assert not errors, errors


@pytest.mark.browser
def test_keyboard_moves_a_slider(standalone):
    page, _ = standalone
    root = page.locator(".bv-explorable[data-kind=effort]")
    slider = root.locator("input[type=range]").first
    before = root.evaluate("e => e.bvView().a[0]")
    slider.focus()
    page.keyboard.press("ArrowLeft")
    assert root.evaluate("e => e.bvView().a[0]") < before


# ---------- invariances of the payloads ----------


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000), m=st.integers(4, 7), n=st.integers(1, 4))
def test_model_toggle_is_ordinal_and_follows_the_pool_order(seed, m, n):
    """A strictly increasing transform of a task changes no count; reordering the pool reorders its columns."""
    rng = np.random.default_rng(seed)
    s = _table(rng, m, n, missing=0.2)
    protected, pool = list(s.index[:2]), list(s.index[2:])
    x = ex.model_toggle(s, protected=protected, pool=pool)
    y = ex.model_toggle(s**3 + 7.0, protected=protected, pool=pool)
    assert (x.data["wins"], x.data["compared"], x.data["base"]) == (y.data["wins"], y.data["compared"], y.data["base"])
    order = rng.permutation(len(pool))
    z = ex.model_toggle(s, protected=protected, pool=[pool[k] for k in order])
    cols = list(range(2)) + [2 + k for k in order]
    assert z.data["wins"] == [[row[c] for c in cols] for row in x.data["wins"]]
    assert z.data["base"] == x.data["base"]


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000))
def test_label_noise_permutes_with_the_models(seed):
    rng = np.random.default_rng(seed)
    s = _table(rng, 6, 3, ties=False)
    order = rng.permutation(6)
    x = ex.label_noise(s, eps=0.3, worst=[1.0, 0.3, 1.0])
    y = ex.label_noise(s.iloc[order], eps=0.3, worst=[1.0, 0.3, 1.0])
    assert y.data["before"] == [x.data["before"][k] for k in order]
    assert y.data["values"] == [x.data["values"][k] for k in order]


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), m=st.integers(3, 7), n=st.integers(1, 5))
def test_positional_steps_depend_on_the_rankings_only(seed, m, n):
    """A strictly increasing transform of every task keeps every step; reversing a task's direction and
    negating its scores keeps them too; every step is a row of positional_winners."""
    from benchvote.positional import positional_winners

    rng = np.random.default_rng(seed)
    s = _table(rng, m, n, ties=True)
    x = ex.positional_rule(s)
    assert ex.positional_rule(s**3 + 7.0).steps == x.steps
    flipped = s.copy()
    flipped.iloc[:, 0] = -flipped.iloc[:, 0]
    assert ex.positional_rule(flipped, [False] + [True] * (n - 1)).steps == x.steps
    rows = positional_winners(s).set_index("rule")
    for step in x.steps:
        assert step["view"]["winners"] == list(rows.loc[step["view"]["rule"], "winners"])


NAMES = st.lists(
    st.one_of(
        st.text(alphabet="ab/-_ .", min_size=1, max_size=40),
        st.text(min_size=1, max_size=30),
        st.builds(lambda tail: "cloudyu/Mixtral_34Bx2_MoE_60B" + tail, st.text(alphabet="-dpov12", max_size=6)),
    ),
    min_size=1,
    max_size=12,
    unique=True,
)


@pytest.mark.browser
@settings(max_examples=60, deadline=None)
@given(names=NAMES, width=st.integers(5, 30))
def test_the_page_shortens_names_by_the_library_rule(standalone, names, width):
    """The explorables' labels use the same rule as the figures (benchvote.plotting.short_labels)."""
    from benchvote.plotting import short_labels

    page, _ = standalone
    got = page.evaluate("([n, w]) => window.benchvoteExplorables.shortLabels(n, w)", [names, width])
    assert got == short_labels(names, width)


def test_rank_sets_steps_are_the_library_rank_sets():
    from benchvote.comparisons import rank_sets

    sim = bv.data.irt_items(6, 5, 80, seed=2)
    x = ex.rank_sets_explorer(sim.blocks, list(sim.ability.index), item_counts=[10, 80])
    first, second = x.steps
    assert first["do"] == [{"op": "range", "name": "items", "value": 0}, {"op": "range", "name": "tasks", "value": 5}]
    assert (second["view"]["items"], second["view"]["tasks"]) == (80, 3)
    pooled = np.hstack([b[:, :80] for b in list(sim.blocks.values())[:3]])
    shares = np.column_stack([b[:, :80].mean(axis=1) for b in list(sim.blocks.values())[:3]])
    items, tasks = rank_sets(pooled, test="mcnemar"), rank_sets(shares, test="sign")
    assert second["view"]["lowest"] == [items.lowest.tolist(), tasks.lowest.tolist()]
    assert second["view"]["highest"] == [items.highest.tolist(), tasks.highest.tolist()]
    assert tasks.lowest.tolist() == [1] * 6  # three tasks never separate two models at 95%
    assert x.data["bits"][0][1] == "".join(str(int(v)) for v in sim.blocks["task 1"][1, :80])


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(item_counts=[10]), "at least 2 positions"),
        (dict(item_counts=[20, 10]), "increasing"),
        (dict(item_counts=[10, 500]), "at least 500 items"),
        (dict(models=["a"]), "at least 2 models"),
    ],
)
def test_rank_sets_explorer_refuses_bad_input(kwargs, message):
    answers = {"x": np.ones((3, 40)), "y": np.zeros((3, 40))}
    call = dict(blocks=answers, models=["a", "b", "c"], item_counts=[10, 40]) | kwargs
    with pytest.raises(ValueError, match=message):
        ex.rank_sets_explorer(**call)
    with pytest.raises(ValueError, match="0 or 1"):
        ex.rank_sets_explorer({"x": np.full((3, 40), 0.5)}, ["a", "b", "c"], item_counts=[10, 40])
