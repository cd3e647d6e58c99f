"""The audit's HTML page: hostile names stay text, the page states the JSON's numbers, nan never breaks it."""

from __future__ import annotations

import html
import json
import re
from decimal import Decimal

import numpy as np
import pandas as pd
import pytest
from chromium import offline_page
from explorable_checks import CHECKS

import benchvote as bv
from benchvote.audit import audit

FAST = dict(n_boot=100, time_limit=3)
HOSTILE = ["<!--<script>", "</script>", '"><img src=x onerror=alert(1)>', "&amp;", "'quotes\"", "\u202eevil"]
TITLE = "</title><script>alert('title')</script><!--"
COST = "<!--cost--></script>\"'&size"  # a cost column: it reaches the pareto section, its table and its figure


def _board(seed: int = 0, m: int = 9, n: int = 5, models: list[str] | None = None) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    names = (models or []) + [f"model {i}" for i in range(m - len(models or []))]
    return pd.DataFrame(
        rng.normal(size=(m, n)) + np.linspace(1, 0, m)[:, None],
        index=names,
        columns=[f"task {k}" for k in range(n)],
    )


def _hostile_board() -> pd.DataFrame:
    s = _board(seed=7, m=9, n=5, models=HOSTILE)
    s.columns = ["<!--<script>", "</script>", "a&amp;b", "'q\"", "\u2028line\u2029sep"]
    s[COST] = np.geomspace(1.0, 1e4, len(s))
    return s


# --------------------------------------------------------------------------- 1. hostile names


def test_script_json_cannot_close_the_element_or_open_a_comment():
    from benchvote.explorables import script_json as _script_json

    text = _script_json({"m": "</script><!--<script>&\u2028\u2029"})
    assert not set(text) & set("<>&\u2028\u2029")
    assert json.loads(text) == {"m": "</script><!--<script>&\u2028\u2029"}


def test_hostile_names_are_text_everywhere_in_the_page():
    report = audit(_hostile_board(), costs=[COST], **FAST)
    assert "pareto" in report.sections and report.sections["pareto"]["costs"] == [COST]
    page = report.to_html(TITLE)
    assert "<!--" not in page  # no comment can swallow the rest of the page
    assert (
        page.count("<script") == page.count("</script>") == 3
    )  # the explorable's payload and its code, the tables' sorting
    assert "<img" not in page and "<title>" in page and page.count("</title>") == page.count("<title")
    assert page.rstrip().endswith("</html>") and "</footer>" in page
    assert page.count(" data-section=") == len(report.sections)


@pytest.fixture(scope="module")
def hostile_page(tmp_path_factory):
    report = audit(_hostile_board(), costs=[COST], **FAST)
    path = tmp_path_factory.mktemp("hostile") / "report.html"
    path.write_text(report.to_html(TITLE), encoding="utf-8")
    with offline_page(path) as (page, errors, requests, dialogs):
        yield page, report, errors, requests, dialogs


@pytest.mark.browser
def test_hostile_names_render_every_section_and_run_no_script(hostile_page):
    page, report, errors, requests, dialogs = hostile_page
    shown = page.eval_on_selector_all("section[data-section]", "els => els.map(e => e.id)")
    assert shown == list(report.sections)
    assert page.locator("footer").count() == 1
    assert page.title() == TITLE and page.locator("h1").inner_text() == TITLE
    assert page.locator("img").count() == 0
    text = page.locator("body").inner_text()
    for name in ["<!--<script>", "</script>", '"><img src=x onerror=alert(1)>', "&amp;", "'quotes\"", COST]:
        assert name in text, name
    tips = page.locator("section#intervals svg line title").all_text_contents()
    assert {tip.rsplit(": rank ", 1)[0] for tip in tips} == set(report.sections["intervals"]["ranks"])
    p = report.sections["pareto"]
    tips = page.locator("section#pareto svg circle title").all_text_contents()
    assert {tip.rsplit(f": {COST} ", 1)[0] for tip in tips} == {e["model"] for e in p["front"] + p["dominated"]}
    assert page.locator("section#pareto svg title").first.text_content() == f"Quality against {COST}"
    assert COST in page.locator("section#pareto th").all_text_contents()
    assert not dialogs, dialogs
    assert not errors, errors
    assert not requests, requests


@pytest.mark.browser
def test_the_slider_works_with_hostile_names(hostile_page):
    page, _, errors, _, dialogs = hostile_page
    root = page.locator("section#cardinal_sensitivity .bv-explorable")
    assert root.count() == 1 and root.get_attribute("data-mounted") == "yes"
    assert CHECKS["label-noise"](root, np.random.default_rng(0), settings=4) >= 4
    assert not errors and not dialogs


# --------------------------------------------------------------------------- 2. the page states the JSON's numbers


def _lookup(sections: dict, key: str) -> float:
    path, _, op = key.partition("#")
    value = sections
    for part in path.split("."):
        value = value[int(part)] if isinstance(value, list) else value[part]
    if op == "len":
        return len(value)
    if op == "max":
        return max(v for row in value.values() for v in row.values())
    if op == "pct":
        return value * 100
    assert not op, key
    return value


def _matches(shown: str, value: float) -> bool:
    """``shown`` is ``value`` rounded as displayed (to the last digit shown)."""
    half = Decimal(1).scaleb(Decimal(shown).as_tuple().exponent) / 2
    return abs(Decimal(shown) - Decimal(repr(float(value)))) <= half


@pytest.mark.parametrize("seed, normalize", [(0, "none"), (1, "zscore")])
def test_every_headline_number_of_the_page_is_the_json_value(seed, normalize):
    board = _board(seed=seed, m=9, n=6)
    board["params_M"] = np.geomspace(1.0, 700.0, len(board))[::-1]
    report = audit(board, seed=seed, normalize=normalize, costs=["params_M"], **FAST)
    sections = json.loads(report.to_json())["sections"]
    page = report.to_html()
    found = re.findall(r'<span class="v" data-json="([^"]+)">([^<]*)</span>', page)
    keys = {key for key, _ in found}
    for needed in (
        "cardinal_sensitivity.mrc",
        "cardinal_sensitivity.tau_distance",
        "cardinal_sensitivity.n_flipped",
        "possible_winners.possible#len",
        "possible_winners.top_k_possible#len",
        "ordinal_sensitivity.tau_distance",
        "intervals.adjacent_inseparable",
        "pareto.front#len",
        "pareto.n_compared",
    ):
        assert needed in keys, needed
    if normalize != "none":
        assert "units.normalized_spread_ratio" in keys
    for key, shown in found:
        assert _matches(shown, _lookup(sections, key)), (key, shown, _lookup(sections, key))
    c = sections["cardinal_sensitivity"]
    plain = re.sub(r"<[^>]+>", "", page)
    assert "largest rank change" in plain and "pairs reversed" in plain  # their numbers: checked by key above
    assert sections["cardinal_sensitivity"]["mrc"] == c["mrc"]
    n = len(sections["possible_winners"]["possible"])
    assert f"Possible winners ({n}), in the order of the primary ranking" in plain


# --------------------------------------------------------------------------- 4. huge scores and nan


def test_a_column_near_the_largest_float_gives_a_finite_spectrum():
    s = _board(seed=2)
    s["huge"] = np.linspace(1.0, 9.0, len(s)) * 1e299
    report = audit(s, **FAST)
    sp = report.sections["spectrum"]
    assert "undefined" not in sp
    explained = np.asarray(sp["explained"])
    assert np.isfinite(explained).all() and explained.sum() == pytest.approx(1.0)
    scaled = s.copy()
    scaled["huge"] = scaled["huge"] / 1e299  # standardising ignores each task's units
    expected = bv.spectrum.benchmark_pca(scaled, scale=True).explained
    assert explained == pytest.approx(np.asarray(expected))
    page = report.to_html()
    assert "The first component explains" in page and page.count(" data-section=") == len(report.sections)


def test_the_page_shows_a_dash_for_nan_instead_of_failing():
    report = audit(_board(seed=3), **FAST)
    report.sections["spectrum"]["explained"] = [float("nan")] * 3
    report.sections["cardinal_sensitivity"]["mrc"] = float("nan")
    report.sections["cardinal_sensitivity"]["tau_distance"] = float("inf")
    report.sections["possible_winners"]["eps"] = None
    page = report.to_html()
    assert 'largest rank change <span class="v" data-json="cardinal_sensitivity.mrc">\u2013</span>' in page
    assert 'explains <span class="v" data-json="spectrum.explained.0#pct">\u2013</span>%' in page
    assert page.count(" data-section=") == len(report.sections)


# --------------------------------------------------------------------------- 5. units mixed without a word


def _mixed_units() -> pd.DataFrame:
    rng = np.random.default_rng(5)
    m = 8
    return pd.DataFrame(
        {
            "accuracy": rng.uniform(0.3, 0.9, m),
            "f1": rng.uniform(0.2, 0.8, m),
            "latency_ms": rng.uniform(1000.0, 9000.0, m),
            "params_M": rng.choice([7.0, 13.0, 34.0, 70.0, 8.0, 3.0, 1.5, 40.0], m, replace=False),
        },
        index=[f"model {i}" for i in range(m)],
    )


def test_mixed_units_get_a_notice_at_the_top_with_the_json_numbers():
    s = _mixed_units()
    report = audit(s, [True, True, False, False], **FAST)
    assert next(iter(report.sections)) == "units"
    u = json.loads(report.to_json())["sections"]["units"]
    assert {"latency_ms", "params_M"} <= set(u["columns"]) and u["cost_named"] == ["latency_ms", "params_M"]
    spread = s.std(ddof=0)
    assert u["spreads"] == pytest.approx([spread[c] for c in u["columns"]])
    assert u["spread_ratio"] == pytest.approx(spread.max() / spread.min()) and u["mixed_scales"]
    assert u["widest"] == "latency_ms"
    # the eps actually used by the label-noise box, and why it is below 0.01
    assert u["eps"] == report.sections["possible_winners"]["eps"] == pytest.approx(spread.min() / spread.max())
    assert u["eps"] < 0.01 and u["eps_source"] == "default_eps"
    assert "below 0.01" in u["eps_reason"] and "spread ratio" in u["eps_reason"]
    assert "dominated" in u["about"] or "widest column" in u["meaning"]
    page = report.to_html()
    assert page.index('<section id="units"') < page.index('<section id="table"')
    found = re.findall(r'<span class="v" data-json="(units\.[^"]+)">([^<]*)</span>', page)
    keys = {key for key, _ in found}
    assert {"units.spread_ratio", "units.eps"} | {f"units.spreads.{k}" for k in range(len(u["columns"]))} <= keys
    sections = json.loads(report.to_json())["sections"]
    for key, shown in found:
        assert _matches(shown, _lookup(sections, key)), (key, shown)
    plain = re.sub(r"<[^>]+>", "", page)
    assert "latency_ms: spread" in plain and "params_M: spread" in plain and "below 0.01" in plain


def test_the_units_notice_escapes_names_and_states_a_given_eps():
    s = _mixed_units().rename(columns={"params_M": "<b>size</b>"})
    report = audit(s, eps=0.2, **FAST)
    u = report.sections["units"]
    assert u["eps"] == 0.2 and u["eps_source"] == "given" and "given" in u["eps_reason"]
    page = report.to_html()
    assert "<b>size</b>" not in page and "&lt;b&gt;size&lt;/b&gt;: spread" in re.sub(r"</?bdi>", "", page)


def test_no_units_notice_on_a_table_of_one_scale():
    assert "units" not in audit(_board(seed=0), **FAST).sections


def test_the_units_notice_says_which_table_the_cardinal_parts_read_and_what_to_try():
    s = _mixed_units()
    hib = [True, True, False, False]
    plain = html.unescape(re.sub(r"<[^>]+>", "", audit(s, hib, **FAST).to_html()))
    assert "read the scores as read" in plain
    assert "Suggestion: normalize='zscore' (--normalize zscore)" in plain and "(--cost NAME)" in plain
    report = audit(s, hib, normalize="zscore", **FAST)
    u = report.sections["units"]
    assert u["normalized_spread_ratio"] == pytest.approx(1.0) and u["eps"] == 0.01  # the spreads are all 1 now
    plain = html.unescape(re.sub(r"<[^>]+>", "", report.to_html()))
    assert "The cardinal parts use the zscore normalisation" in plain and "Suggestion" not in plain
    assert "eps = 0.01, on the zscore-normalised table" in plain and "the ordinal parts" in plain
    assert "cardinal parts on the zscore-normalised table" in plain  # the line under the title


def _front_page(costs: list[str], params: list[float]) -> tuple[dict, str]:
    s = _mixed_units()
    s["params_M"] = params
    report = audit(s, [True, True, False, False], costs=costs, **FAST)
    page = report.to_html()
    start = page.index('<section id="pareto"')
    return report.sections["pareto"], page[start : page.index("</section>", start)]


def test_the_front_figure_has_a_log_axis_only_when_the_costs_span_more_than_two_decades():
    p, section = _front_page(["params_M"], [7.0, 13.0, 34.0, 70.0, 8.0, 3.0, 1.5, 400.0])
    assert "(log scale)" in section and section.count("<figure") == 1
    assert section.count("<circle") == p["n_compared"] + 2  # every model, and the two of the key
    assert "<polyline" in section and "#E69F00" in section and "#0072B2" in section  # Okabe-Ito
    assert all(f">{e['model']}</text>" in section for e in p["front"])  # the front is labelled
    p, section = _front_page(["params_M"], [7.0, 13.0, 34.0, 70.0, 8.0, 3.0, 1.5, 40.0])
    assert "(log scale)" not in section and section.count("<figure") == 1
    p, section = _front_page(["params_M", "latency_ms"], [7.0, 13.0, 34.0, 70.0, 8.0, 3.0, 1.5, 40.0])
    assert section.count("<figure") == 0 and p["costs"] == ["params_M", "latency_ms"]  # two costs: the table alone
    assert f'data-sort="{p["front"][0]["costs"][1]!r}"' in section  # the front's table holds the JSON's cost


def test_models_listed_apart_are_shown_with_a_dash_for_the_missing_cost():
    s = _mixed_units()
    s.loc["model 2", "params_M"] = np.nan
    report = audit(s, [True, True, False, False], costs=["params_M"], **FAST)
    assert [e["model"] for e in report.sections["pareto"]["missing_cost"]] == ["model 2"]
    assert "Listed apart, with a missing cost: <bdi>model 2</bdi> (costs \u2013)." in report.to_html()
