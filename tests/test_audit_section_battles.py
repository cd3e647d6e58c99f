"""benchvote.audit.sections.battles and the audit of a battle log: counts, ratings, ranks, and what does not run."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import get_type_hints

import choix
import numpy as np
import pandas as pd
import pytest
from audit_support import section_html

from benchvote.audit import SECTIONS, AuditInputError, audit, audit_battles, summary
from benchvote.audit.sections import battles as section
from benchvote.audit.sections.scores import table_text
from benchvote.battles import battle_counts, battle_ratings
from benchvote.cli import read_battle_log

FLIP = {"model_a": "model_b", "model_b": "model_a", "tie": "tie"}


def arena(m: int = 6, n: int = 3000, seed: int = 0, names: list[str] | None = None) -> pd.DataFrame:
    """``n`` battles between random pairs of ``m`` models with evenly spread Bradley-Terry strengths, 10 % ties."""
    rng = np.random.default_rng(seed)
    strength = np.linspace(-1.2, 1.2, m)
    a = rng.integers(0, m, n)
    b = (a + rng.integers(1, m, n)) % m
    p = 1 / (1 + np.exp(strength[b] - strength[a]))
    u = rng.random(n)
    winner = np.where(u < 0.1, "tie", np.where(u < 0.1 + 0.9 * p, "model_a", "model_b"))
    label = np.array(names or [f"model {k}" for k in range(m)], dtype=object)
    return pd.DataFrame({"model_a": label[a], "model_b": label[b], "winner": winner})


@pytest.fixture(scope="module")
def report():
    return audit_battles(arena(), n_boot=200, seed=1)


def test_only_the_sections_that_read_a_battle_log_run(report):
    readers = [name for name, sec in SECTIONS.items() if "battles" in sec.reads]
    assert list(report.sections) == readers == ["battles", "comparisons"]
    assert all(sec["status"] == "ok" for sec in report.sections.values())
    assert report.settings == {"input": "battles", "n_boot": 200, "level": 0.95, "seed": 1}
    assert set(report.results) == {"battles", "comparisons"}


def test_the_section_holds_the_library_fit_and_the_log_counts(report):
    log = arena()
    s = report.sections["battles"]
    r = battle_ratings(log, n_boot=200, seed=1)
    c = battle_counts(log)
    assert s["order"] == [r.models[i] for i in r.order]
    assert [x["rating"] for x in s["models"]] == r.ratings[r.order].tolist()
    assert [x["upper_rank"] for x in s["models"]] == r.upper_rank[r.order].tolist()
    assert [[x["lowest"], x["highest"]] for x in s["models"]] == np.c_[r.lowest, r.highest][r.order].tolist()
    # counts by a loop over the rows
    assert s["n_battles"] == len(log) and s["n_ties"] == int((log.winner == "tie").sum())
    played = pd.concat([log.model_a, log.model_b]).value_counts()
    assert {x["model"]: x["battles"] for x in s["models"]} == played.to_dict()
    assert s["fewest_battles"] == played.min() and s["fewest_battles_models"] == sorted(
        played.index[played == played.min()]
    )
    met = {frozenset(p) for p in zip(log.model_a, log.model_b)}
    assert s["n_pairs_met"] == len(met) and s["n_pairs"] == 15 and c.n_battles == len(log)


def test_comparisons_read_the_same_fit_with_every_pair(report):
    c = report.sections["comparisons"]
    r = report.results["battles"]
    assert c["unit"] == "battles" and c["test"] == "bradley-terry" and c["method"] == "max-t"
    assert c["n_columns"] == 3000 and c["order"] == report.sections["battles"]["order"]
    assert len(c["pairs"]) == 15 and c["rank_sets"] == {
        x["model"]: [x["lowest"], x["highest"]] for x in report.sections["battles"]["models"]
    }
    assert c["tiers"] == [list(t) for t in r.tiers] and c["separated"] == int(r.above.sum()) > 0
    for p in c["pairs"]:
        assert p["ci"][0] <= p["diff"] <= p["ci"][1] and 0 <= p["p"] <= p["p_adjusted"] <= 1
    json.dumps(report.to_dict(), allow_nan=False)


def test_the_verdict_opens_with_the_leader_and_says_which_places_are_separable(report):
    texts = report.summary()
    top = report.sections["battles"]["order"][0]
    assert texts[0].startswith(f"On 3,000 battles among 6 models, {top} has the highest Bradley-Terry rating")
    assert any(t.startswith("On the 3,000 battles (Bradley-Terry ratings redrawn, 95% simultaneous)") for t in texts)
    assert (
        summary(report.to_dict()).splitlines()[0]
        == f"3,000 battles among 6 models, {report.sections['battles']['n_ties']} ties"
    )


def test_pairs_that_never_met_are_said():
    log = arena(4, 800, seed=2)
    keep = ~(
        ((log.model_a == "model 0") & (log.model_b == "model 3"))
        | ((log.model_a == "model 3") & (log.model_b == "model 0"))
    )
    r = audit_battles(log[keep], n_boot=50)
    assert r.sections["battles"]["n_pairs_met"] == 5
    assert any("1 of the 6 pairs of models never met" in s for s in r.summary())


def test_row_order_sides_and_names_that_need_escaping_change_nothing_but_the_labels():
    names = ["<b>x</b>", "a & b", 'say "hi"', "m'4"]
    log = arena(4, 1200, seed=3, names=names)
    first = audit_battles(log, n_boot=60).to_json()
    shuffled = log.sample(frac=1, random_state=4).reset_index(drop=True)
    swapped = pd.DataFrame({"model_a": log.model_b, "model_b": log.model_a, "winner": log.winner.map(FLIP)})
    assert audit_battles(shuffled, n_boot=60).to_json() == first == audit_battles(swapped, n_boot=60).to_json()
    page = audit_battles(log, n_boot=60).to_html()
    assert "<b>x</b>" not in page and "&lt;b&gt;x&lt;/b&gt;" in page and "a &amp; b" in page


def test_the_page_shows_the_ratings_and_both_ranks(report):
    page = report.to_html()
    body = section_html(page, "battles")
    top = report.sections["battles"]["models"][0]
    assert "arena rank" in body and "rank set" in body and top["model"] in body
    assert f"{top['low']:.3f} to {top['high']:.3f}" in body
    assert "A battle log" in page and "primary rule" not in page
    assert "redraws of the battles" in section_html(page, "comparisons")
    # every number the prose shows is the JSON's, as displayed
    sections = json.loads(report.to_json())["sections"]
    found = re.findall(r'<span class="v" data-json="([^"]+)">([^<]*)</span>', page)
    assert {"battles.n_battles", "battles.n_ties", "comparisons.separated"} <= {key for key, _ in found}
    for key, shown in found:
        path, _, kind = key.partition("#")
        value = sections
        for part in path.split("."):
            value = value[int(part)] if isinstance(value, list) else value[part]
        value = len(value) if kind == "len" else 100 * value if kind == "pct" else value
        assert abs(float(shown) - value) <= 0.5 * 10 ** -len(shown.partition(".")[2]), (key, shown, value)


def test_each_section_returns_exactly_its_typed_fields(report):
    head = {"title", "about", "chapter", "cost", "status"}
    for name, sec in report.sections.items():
        assert set(sec) - head == set(get_type_hints(SECTIONS[name].result)), name


def test_the_ratings_table_file_has_one_row_per_model_best_first(report):
    text = table_text(report.to_dict(), ".csv").splitlines()
    assert text[0] == "model,rating,low,high,upper_rank,lowest,highest,battles"
    assert [line.split(",")[0] for line in text[1:]] == report.sections["battles"]["order"]
    top = report.sections["battles"]["models"][0]
    assert text[1].split(",")[4:] == [str(top[c]) for c in ("upper_rank", "lowest", "highest", "battles")]
    assert float(text[1].split(",")[1]) == top["rating"]  # every digit


def test_a_log_whose_ratings_do_not_exist_is_audited_as_far_as_it_goes():
    log = pd.DataFrame({"model_a": ["x", "x", "y"] * 5, "model_b": ["y", "z", "z"] * 5, "winner": ["model_a"] * 15})
    r = audit_battles(log, n_boot=20)
    reason = r.sections["battles"]["reason"]
    assert r.sections["battles"]["status"] == "not_applicable" and "never lost" in reason
    assert "leave those models out of the log" in reason  # how to get a rating for the others
    assert r.sections["comparisons"]["status"] == "not_applicable" and r.verdict == []
    assert "builds on the section" in r.sections["comparisons"]["reason"]
    assert "which is not computed on this battle log" in r.sections["comparisons"]["reason"]
    assert "not computed" in summary(r.to_dict()) and "Not computed on this battle log" in r.to_html()


@pytest.mark.parametrize(
    ("log", "problem"),
    [
        (pd.DataFrame({"model_a": ["x"], "model_b": ["y"]}), "no column 'winner'"),
        (pd.DataFrame({"model_a": ["x", "y"], "model_b": ["y", "y"], "winner": ["a", "b"]}), "playing itself"),
        (pd.DataFrame({"model_a": ["x", "u"], "model_b": ["y", "v"], "winner": ["a", "b"]}), "never met"),
        (pd.DataFrame({"model_a": ["x"], "model_b": ["y"], "winner": ["maybe"]}), "unknown winner"),
    ],
)
def test_a_log_that_is_not_one_is_bad_input(log, problem):
    with pytest.raises(AuditInputError, match=problem):
        audit_battles(log, n_boot=20)


def test_a_battle_log_given_to_the_table_audit_is_sent_to_the_right_function():
    with pytest.raises(AuditInputError, match="audit it with benchvote.audit.audit_battles"):
        audit(arena(3, 90))


@pytest.mark.parametrize("options", [{"n_boot": 1}, {"level": 1.0}, {"seed": -1}])
def test_options_out_of_range_are_bad_input(options):
    with pytest.raises(AuditInputError):
        audit_battles(arena(3, 90), **options)


def test_the_section_states_its_cost_and_reads_only_battle_logs():
    assert section.SECTION.reads == ("battles",) and "O(" in section.SECTION.cost
    assert SECTIONS["comparisons"].reads == ("table", "battles")
    assert all(sec.reads == ("table",) for name, sec in SECTIONS.items() if name not in ("battles", "comparisons"))


# --------------------------------------------------------------------------- a real log: the MT-Bench human judgments

REAL = Path(__file__).resolve().parents[1] / "data" / "battles" / "mt_bench_human.csv"


@pytest.fixture(scope="module")
def real():
    log = read_battle_log(REAL)
    return log, audit_battles(log, n_boot=200)


def test_the_real_log_is_the_published_file():
    digest = hashlib.sha256(REAL.read_bytes()).hexdigest()
    assert digest in (REAL.parent / "README.md").read_text(encoding="utf-8")


def test_the_real_log_is_audited_whole_and_its_counts_are_the_rows(real):
    log, report = real
    raw = pd.read_csv(REAL, dtype=str)
    assert list(report.sections) == ["battles", "comparisons"] and not report.failed
    assert all(sec["status"] == "ok" for sec in report.sections.values())
    s = report.sections["battles"]
    assert s["n_battles"] == len(raw) == 3355 and s["n_ties"] == int((raw.winner == "tie").sum()) == 780
    assert s["n_models"] == 6 and s["n_pairs_met"] == s["n_pairs"] == 15
    played = pd.concat([raw.model_a, raw.model_b]).value_counts()
    assert {x["model"]: x["battles"] for x in s["models"]} == played.to_dict()


def test_the_real_log_ratings_agree_with_choix(real):
    log, report = real
    models = sorted(set(log.model_a) | set(log.model_b))
    index = {name: k for k, name in enumerate(models)}
    pairs = []
    for a, b, w in zip(log.model_a, log.model_b, log.winner):
        i, j = index[a], index[b]  # a decisive vote twice, a tie once each way: half a win to each side
        pairs += [(i, j), (i, j)] if w == "model_a" else [(j, i), (j, i)] if w == "model_b" else [(i, j), (j, i)]
    theirs = choix.opt_pairwise(len(models), pairs)
    ours = {x["model"]: x["rating"] for x in report.sections["battles"]["models"]}
    assert np.allclose([ours[m] for m in models], theirs - theirs.mean(), atol=1e-6)


def test_the_real_log_in_another_row_order_gives_the_same_report(real):
    log, report = real
    shuffled = log.sample(frac=1, random_state=7).reset_index(drop=True)
    assert audit_battles(shuffled, n_boot=200).to_json() == report.to_json()
