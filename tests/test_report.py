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
from hypothesis import given, settings
from hypothesis import strategies as st

import benchvote as bv
from benchvote.audit import audit

FAST = dict(n_boot=100, time_limit=60)
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
        page.count("<script") == page.count("</script>") == 4
    )  # the explorable's payload, the explorables' runtime and its kind's script, the tables' sorting
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
    assert sp["status"] == "ok", sp.get("reason")
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
    assert "Suggestion: --normalize zscore puts" in plain and "declared with --cost NAME" in plain
    assert "costs=[" not in plain and "normalize='zscore'" not in plain  # a command-line report, in its own words
    report = audit(s, hib, normalize="zscore", **FAST)
    u = report.sections["units"]
    assert u["normalized_spread_ratio"] == pytest.approx(1.0) and u["eps"] == 0.01  # the spreads are all 1 now
    plain = html.unescape(re.sub(r"<[^>]+>", "", report.to_html()))
    assert "The mean score and the other cardinal parts use the normalised table (zscore)" in plain
    assert "Suggestion" not in plain and "the columns are on different scales" not in plain
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


# --------------------------------------------------------------------------- readable anywhere

#: Text slips a reader must never see in the report: a cut list ending in "....", a count of one in the plural,
#: "(s)" plurals, Python syntax in a command-line report, the mean max rank change described as places.
SLIPS = {
    "four dots": r"\.\.\.\.",
    "one in the plural": r"(?<![\d.\-])1 (pairs|models|tasks|places|cycles|rules|groups)\b",
    "(s) plural": r"\w\(s\)",
    "python syntax": r"costs=\[|normalize='",
    "max rank change as places": r"largest number of places",
}


def _plain(page: str) -> str:
    page = re.sub(r"<script.*?</script>|<style.*?</style>", " ", page, flags=re.S)
    return html.unescape(re.sub(r"<[^>]+>", "", page))


def _long_names_board(m: int = 40, n: int = 5, seed: int = 3) -> pd.DataFrame:
    """Many possible winners and a long front: the lists the verdict cuts, on a table with no missing cell."""
    rng = np.random.default_rng(seed)
    s = pd.DataFrame(
        np.round(rng.uniform(0, 1, (m, n)), 3),
        index=[f"org-{k % 3}/a-rather-long-model-name-{k:02d}" for k in range(m)],
        columns=[f"task {k}" for k in range(n)],
    )
    s["params"] = np.round(np.geomspace(1, 1000, m), 1)
    return s


@pytest.fixture(scope="module")
def long_names_report():
    return audit(_long_names_board(), costs=["params"], **FAST)


def test_the_report_has_no_text_slips(long_names_report):
    """No "....", "pair(s)", "1 pairs" or ``costs=[...]``, and the max rank change described right."""
    report = long_names_report
    plain = _plain(report.to_html())
    verdict = " ".join(s["text"] for s in report.verdict)
    for name, pattern in SLIPS.items():
        for text in (plain, verdict):
            found = [text[max(0, m.start() - 60) : m.end() + 20] for m in re.finditer(pattern, text)]
            assert not found, (name, found[:3])
    assert "and 9 more" in verdict  # the cut list says how many it leaves out
    assert "as a share of the most places a model can move" in plain


def test_a_table_with_no_missing_cell_is_not_called_its_complete_part(long_names_report):
    """Without a missing cell the sections say "the whole table", not "on the complete part"."""
    plain = _plain(long_names_report.to_html())
    verdict = " ".join(s["text"] for s in long_names_report.verdict)
    assert "On the complete part" not in plain and "On the complete part" not in verdict
    assert plain.count("On the whole table: ") == 3 and verdict.startswith("On the whole table, ")
    s = _long_names_board()
    s.iloc[0, 0] = np.nan
    holes = audit(s, costs=["params"], **FAST)
    assert _plain(holes.to_html()).count("On the complete part: ") == 3


def test_rank_intervals_on_few_tasks_carry_a_warning(long_names_report):
    """With 3-6 tasks the task bootstrap has few distinct redraws, and nothing said so."""
    from math import comb

    s = long_names_report.sections["intervals"]
    assert s["n_tasks"] == 5 and s["distinct_redraws"] == comb(9, 5) == 126
    page = long_names_report.to_html()
    section = page[
        page.index('<section id="intervals"') : page.index("</section>", page.index('<section id="intervals"'))
    ]
    assert 'class="warning"' in section and "Few tasks." in section
    sentence = next(v["text"] for v in long_names_report.verdict if v["section"] == "intervals")
    assert "rest on only 5 tasks, 126 possible redraws" in sentence
    many = audit(_board(seed=1, m=9, n=8), **FAST)
    page = many.to_html()
    assert "Few tasks." not in page
    assert "rest on only" not in " ".join(v["text"] for v in many.verdict)


def test_chapters_are_named_without_a_link_unless_the_book_url_is_given(long_names_report):
    """Every section linked a repository address that does not exist."""
    from benchvote.audit._registry import CHAPTERS

    page = long_names_report.to_html()
    assert "github.com/benchvote" not in page and '<a href="https://' not in page
    assert "The book's chapter: <cite>Diversity against stability</cite>" in page
    assert all(long_names_report.sections[n]["chapter"] in CHAPTERS for n in long_names_report.sections)
    linked = long_names_report.to_html(book_url="https://example.org/benchvote/")
    assert '<a href="https://example.org/benchvote/notebooks/tradeoff.html">' in linked
    assert "The book's chapter: Diversity against stability</a>" in linked


@settings(max_examples=200, deadline=None)
@given(
    names=st.lists(
        st.text(alphabet="ab/_-.0123456789xyz\u00e9\u4e2d", min_size=1, max_size=45),
        min_size=1,
        max_size=12,
        unique=True,
    ),
    width=st.integers(5, 40),
)
def test_the_report_charts_shorten_names_by_the_books_rule(names, width):
    """The charts' ``short_names`` and the book's ``plotting.short_labels`` were two rules."""
    from benchvote.audit import _charts
    from benchvote.plotting import short_labels

    assert _charts.short_names(names, width) == dict(zip(names, short_labels(names, width)))


def test_a_long_hub_name_is_shortened_alike_in_the_book_and_the_report():
    from benchvote.audit import _charts
    from benchvote.plotting import short_labels

    name = "cloudyu/Mixtral_34Bx2_MoE_60B"
    assert short_labels([name], 20) == ["cloudyu/M\u2026x2_MoE_60B"]
    assert _charts.short_names([name], 20) == {name: "cloudyu/M\u2026x2_MoE_60B"}
    bars = _charts.hbars([1.0, 2.0], [name * 2, "b"], "t", "d", "x")
    assert bars.labels[0].text == short_labels([name * 2, "b"], 26)[0]


def test_shortened_chart_labels_are_focusable_and_listed_in_full(long_names_report):
    """Full names on tap as well as hover: a focusable label with its full name, and a list that needs no script."""
    page = long_names_report.to_html()
    section = page[
        page.index('<section id="intervals"') : page.index("</section>", page.index('<section id="intervals"'))
    ]
    labels = re.findall(
        r'<text [^>]*class="short" tabindex="0" data-full="([^"]+)"><title>([^<]+)</title>([^<]+)</text>', section
    )
    assert labels and all(full == title and short != full for full, title, short in labels)
    assert '<details class="fullnames"><summary>Full names of the' in section
    for full, _, short in labels:
        assert f"<dt>{short}</dt><dd><bdi>{full}</bdi></dd>" in section


@pytest.mark.browser
@pytest.mark.parametrize("width", [390, 1280])
def test_the_page_has_no_horizontal_scroll_and_its_tables_scroll_in_their_box(width, hostile_page, tmp_path):
    """Long names in bold prose made the page wider than a phone; tables had no cue that they scroll."""
    s = _long_names_board()
    s.index = [f"{name}-{'x' * 60}" for name in s.index]  # 100-character names without a space
    report = audit(s, costs=["params"], **FAST)
    path = tmp_path / "r.html"
    path.write_text(report.to_html("A report with " + "very-long-unbroken-title-" * 4), encoding="utf-8")
    context = hostile_page[0].context.browser.new_context(offline=True, viewport={"width": width, "height": 900})
    try:
        page = context.new_page()
        page.goto(path.as_uri())
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        boxes = page.evaluate(
            """() => [...document.querySelectorAll('.table-box')].map(b => ({
                 wide: b.scrollWidth > b.clientWidth + 1, overflow: getComputedStyle(b).overflowX,
                 tab: b.tabIndex, hint: !b.previousElementSibling.hidden && b.previousElementSibling.className,
                 within: b.getBoundingClientRect().right <= document.documentElement.clientWidth + 0.5}))"""
        )
        assert boxes and all(b["overflow"] == "auto" and b["tab"] == 0 and b["within"] for b in boxes)
        wide = [b for b in boxes if b["wide"]]
        if width == 390:
            assert wide and all(b["hint"] == "scroll-hint" for b in wide)  # the cue is shown where a box scrolls
        label = page.locator("section#intervals svg text.short").first
        label.focus()
        tip = page.locator(".name-tip")
        assert tip.is_visible() and tip.text_content() == label.get_attribute("data-full")
    finally:
        context.close()
