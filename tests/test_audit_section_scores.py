"""The scores section: the raw table and every rule's score and rank per model, in the page and in a file."""

from __future__ import annotations

import io
import json

import numpy as np
import pandas as pd
import pytest
from audit_support import without_timings

from benchvote.audit import audit
from benchvote.audit.sections.scores import export_table, latex_escape, markdown_escape, table_text
from benchvote.cli import main

FAST = dict(n_boot=20, time_limit=60)
NAMES = ["x & y_1", "a|b *c*", "50% {tex} #1 ~^\\", "plain"]


def table():
    rng = np.random.default_rng(4)
    s = pd.DataFrame(rng.random((4, 3)) + 0.1, index=NAMES, columns=["t_1", "t|2", "t3"])
    s.iloc[3, 1] = np.nan  # "plain" is outside the complete part
    s["cost $"] = [3.0, 1.0, 2.0, 5.0]
    return s


@pytest.fixture(scope="module")
def report():
    s = table()
    hib = pd.Series([True, True, False, False], index=s.columns)
    return s, audit(s, hib, costs=["cost $"], **FAST)


def test_the_section_holds_the_raw_table_and_the_rankings_numbers(report):
    s, a = report
    sc, r = a.sections["scores"], a.sections["rankings"]
    assert sorted(sc["models"]) == sorted(NAMES) and sc["models"][-1] == "plain"
    assert sc["in_complete_part"] == [True, True, True, False]
    assert sc["models"][:3] == r["ranking"]  # best first under the primary rule
    for m, raw in zip(sc["models"], sc["raw"]):
        want = [s.loc[m, t] for t in sc["tasks"] + sc["costs"]]
        assert [np.nan if v is None else v for v in raw] == pytest.approx(want, nan_ok=True)
    defined = [q for q, v in r["rules"].items() if "undefined" not in v]
    assert sc["rules"] == defined
    for m, scores, ranks in zip(sc["models"], sc["scores"], sc["ranks"]):
        assert scores == [r["rules"][q]["scores"].get(m) for q in defined]
        assert ranks == [r["rules"][q]["ranks"].get(m) for q in defined]


def test_the_page_shows_it_in_the_sortable_table(report):
    _, a = report
    html = a.to_html()
    part = html[html.index('id="scores"') :]
    part = part[: part.index("</section>")]
    assert 'class="sortable"' in part and "Mean score (rank)" in part
    assert "x &amp; y_1" in part and "&lt;" not in NAMES[0]


def test_the_csv_export_reads_back_as_the_section(report, tmp_path):
    _, a = report
    path = tmp_path / "ranking.csv"
    export_table(a.to_dict(), path)
    back = pd.read_csv(path, keep_default_na=True)
    sc = a.sections["scores"]
    assert list(back["model"]) == sc["models"]
    assert back.columns[1 : 1 + 4].tolist() == sc["tasks"] + sc["costs"]
    ranks = back[f"{sc['labels'][0]} (rank)"].tolist()
    assert ranks[:3] == [row[0] for row in sc["ranks"][:3]] and np.isnan(ranks[3])


def test_markdown_and_latex_escape_every_name(report):
    _, a = report
    md = table_text(a.to_dict(), ".md")
    tex = table_text(a.to_dict(), ".tex")
    for name in NAMES:
        assert markdown_escape(name) in md and latex_escape(name) in tex
    assert "a\\|b \\*c\\*" in md and "x & y\\_1" in md
    assert "x \\& y\\_1" in tex and "50\\% \\{tex\\} \\#1 \\textasciitilde{}\\textasciicircum{}\\textbackslash{}" in tex
    rows = [line for line in md.splitlines() if line.startswith("| ")]
    header_cells = len(rows[0].split(" | "))
    assert all(len(line.split(" | ")) == header_cells for line in rows)  # no name opens a cell
    body = tex.split("\\hline")[2]
    assert all(line.count(" & ") == header_cells - 1 for line in body.strip().splitlines())


def write_csv(tmp_path):
    s = table()
    path = tmp_path / "board.csv"
    s.rename_axis("model").to_csv(path)
    return path


def test_the_command_writes_the_table_in_the_format_of_its_extension(tmp_path):
    src = write_csv(tmp_path)
    for ext in (".csv", ".md", ".tex"):
        out = tmp_path / f"ranking{ext}"
        status = main(["audit", str(src), "--cost", "cost $", "--table", str(out), "--quiet", "--n-boot", "20",
                       "--time-limit", "5"])  # fmt: skip
        assert status == 0 and out.read_text(encoding="utf-8")
    assert pd.read_csv(io.StringIO((tmp_path / "ranking.csv").read_text()))["model"].tolist()[-1] == "plain"


def test_a_table_file_of_unknown_format_is_one_line_exit_2_and_nothing_written(tmp_path, capsys):
    src = write_csv(tmp_path)
    json_out = tmp_path / "r.json"
    status = main(["audit", str(src), "--table", str(tmp_path / "ranking.xlsx"), "--json", str(json_out)])
    err = capsys.readouterr().err
    assert status == 2 and len(err.strip().splitlines()) == 1 and "ranking.xlsx" in err and ".csv, .md, .tex" in err
    assert not json_out.exists() and not (tmp_path / "ranking.xlsx").exists()


def test_weights_from_a_file_or_inline_reach_the_mean(tmp_path, capsys):
    src = write_csv(tmp_path)
    wfile = tmp_path / "w.csv"
    wfile.write_text("task,weight\nt_1,3\nt|2,1\nt3,1\n", encoding="utf-8")
    outs = []
    for spec in (str(wfile), "t_1=3,t|2=1,t3=1"):
        out = tmp_path / "r.json"
        assert main(["audit", str(src), "--cost", "cost $", "--weights", spec, "--json", str(out), "--n-boot", "20",
                     "--time-limit", "5"]) == 0  # fmt: skip
        outs.append(without_timings(json.loads(out.read_text())))
    assert (
        outs[0] == outs[1] and outs[0]["sections"]["rankings"]["rules"]["mean_score"]["label"] == "Weighted mean score"
    )
    bad = main(["audit", str(src), "--weights", "t_1=3,t|2=x,t3=1", "--json", str(tmp_path / "n.json")])
    err = capsys.readouterr().err
    assert bad == 2 and len(err.strip().splitlines()) == 1 and "'x' is not a number" in err
