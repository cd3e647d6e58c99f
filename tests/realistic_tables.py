"""Five seeded leaderboards shaped like the public ones the audit was tried on (issue 29), for tests and bench/.

None is real data: each imitates the structure that made a real table hard for the audit (mixed units,
missing languages, 100+ models, 20-40 tasks, cost columns, rounded scores with ties).  Each function
returns ``(scores, lower_is_better, costs)``: a models x tasks DataFrame with ``nan`` for missing cells, the
tasks where lower is better, and the columns that are costs rather than tasks.
"""

from __future__ import annotations

import numpy as np
import pandas as pd


def _models(prefix: str, m: int) -> list[str]:
    return [f"{prefix}-{k:03d}" for k in range(m)]


def _factor_scores(rng: np.random.Generator, m: int, n: int, spread: float = 0.12, noise: float = 0.05) -> np.ndarray:
    """Scores in (0, 1) with one common factor (stronger models are better almost everywhere) and task noise."""
    skill = rng.normal(0, 1, m)
    load = rng.uniform(0.5, 1.0, n)
    base = rng.uniform(0.35, 0.75, n)
    return np.clip(base + spread * np.outer(skill, load) + noise * rng.normal(0, 1, (m, n)), 0.01, 0.99)


def image_text_zero_shot(seed: int = 0) -> tuple[pd.DataFrame, list[str], list[str]]:
    """About 110 image-text models on 24 zero-shot tasks (percent, one decimal) with parameter and GFLOP columns."""
    rng = np.random.default_rng(seed)
    m, n = 112, 24
    acc = np.round(100 * _factor_scores(rng, m, n), 1)
    params = np.round(10 ** rng.uniform(1.5, 3.8, m), 1)  # millions
    gflops = np.round(params * rng.uniform(0.8, 6.0, m), 2)
    frame = pd.DataFrame(acc, index=_models("clip", m), columns=[f"zs_{k:02d}" for k in range(n)])
    frame["params_M"] = params
    frame["gflops"] = gflops
    return frame, ["params_M", "gflops"], ["params_M", "gflops"]


def multilingual_retrieval(seed: int = 1) -> tuple[pd.DataFrame, list[str], list[str]]:
    """About 120 retrieval models on 30 language tasks (nDCG@10, three decimals); a third lack some languages."""
    rng = np.random.default_rng(seed)
    m, n = 124, 30
    s = np.round(_factor_scores(rng, m, n, spread=0.1), 3)
    miss = rng.random((m, n)) < np.where(rng.random(m)[:, None] < 0.3, 0.25, 0.0)
    s[miss] = np.nan
    return pd.DataFrame(s, index=_models("emb", m), columns=[f"lang_{k:02d}" for k in range(n)]), [], []


def llm_leaderboard(seed: int = 2) -> tuple[pd.DataFrame, list[str], list[str]]:
    """About 105 language models on 23 tasks, scores in percent with two decimals and many near-ties."""
    rng = np.random.default_rng(seed)
    m, n = 105, 23
    s = np.round(100 * _factor_scores(rng, m, n, spread=0.08, noise=0.04), 2)
    return pd.DataFrame(s, index=_models("llm", m), columns=[f"task_{k:02d}" for k in range(n)]), [], []


def toxicity_by_language(seed: int = 3) -> tuple[pd.DataFrame, list[str], list[str]]:
    """About 100 classifiers on 20 languages (AUC, three decimals, error rate for two), missing languages."""
    rng = np.random.default_rng(seed)
    m, n = 101, 20
    s = np.round(0.5 + 0.5 * _factor_scores(rng, m, n, spread=0.15), 3)
    s[:, -2:] = np.round(1 - s[:, -2:], 3)  # two tasks report an error rate
    s[rng.random((m, n)) < 0.08] = np.nan
    cols = [f"auc_{k:02d}" for k in range(n - 2)] + ["err_a", "err_b"]
    return pd.DataFrame(s, index=_models("tox", m), columns=cols), ["err_a", "err_b"], []


def llm_with_parameters(seed: int = 4) -> tuple[pd.DataFrame, list[str], list[str]]:
    """About 130 language models on 36 tasks plus a parameter count near 1e9-1e11 (a cost)."""
    rng = np.random.default_rng(seed)
    m, n = 130, 36
    s = np.round(100 * _factor_scores(rng, m, n), 1)
    frame = pd.DataFrame(s, index=_models("lm", m), columns=[f"bench_{k:02d}" for k in range(n)])
    frame["params"] = np.round(10 ** rng.uniform(9, 11, m), -6)
    return frame, ["params"], ["params"]


#: name -> generator; the determinism test and bench/audit.py loop over it.
TABLES = {
    "image_text_zero_shot": image_text_zero_shot,
    "multilingual_retrieval": multilingual_retrieval,
    "llm_leaderboard": llm_leaderboard,
    "toxicity_by_language": toxicity_by_language,
    "llm_with_parameters": llm_with_parameters,
}
