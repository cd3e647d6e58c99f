r"""The benchmark-model matrix is nearly low rank: its principal components.

With models as rows and tasks as columns, centre each task (and optionally
scale it to unit variance) and take the singular value decomposition
:math:`X = U \Sigma V^\top`.  The share of variance of component k is
:math:`\sigma_k^2 / \sum_l \sigma_l^2`; a model's PC1 score is its coordinate
along the first right singular vector, :math:`(XV)_{i1} = \sigma_1 U_{i1}`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ._validation import measure, numbered, wrap_models

__all__ = ["BenchmarkPCA", "benchmark_pca"]


@dataclass(frozen=True)
class BenchmarkPCA:
    """Result of :func:`benchmark_pca`.

    Attributes
    ----------
    singular_values : ndarray
    explained : ndarray
        Share of the total variance of each component.
    pc1_scores : ndarray or Series
        Each model's coordinate on the first component, oriented to correlate
        positively with the mean score (when the mean score is the same for
        every model, so that the loadings add up to a positive number).
    pc1_loadings : ndarray or Series
        The first component's weight on each task.
    """

    singular_values: np.ndarray
    explained: np.ndarray
    pc1_scores: Any
    pc1_loadings: Any

    def components_for(self, share: float) -> int:
        """Fewest components whose variance shares add up to at least ``share``."""
        if not 0 < share <= 1:
            raise ValueError("share must lie in (0, 1]")
        return int(np.searchsorted(np.cumsum(self.explained), share - 1e-12) + 1)


@measure(allow_nan=False)
def benchmark_pca(scores: Any, higher_is_better: Any = True, *, scale: bool = False) -> BenchmarkPCA:
    """Principal components of a complete models x tasks score matrix.

    Parameters
    ----------
    scores : array_like, DataFrame or Leaderboard, shape (m, n)
        Models x tasks, no missing scores.
    higher_is_better : bool or sequence of bool
        Direction of every task; a lower-is-better task is negated first.
    scale : bool
        Divide each centred task by its standard deviation (PCA on the correlation matrix).

    Examples
    --------
    A rank-one table (every task a multiple of one model quality) has one component:

    >>> import numpy as np
    >>> quality = np.array([1.0, 2.0, 3.0, 4.0])
    >>> r = benchmark_pca(np.outer(quality, [1.0, 2.0, 0.5]))
    >>> np.round(r.explained, 6).tolist(), r.components_for(0.9)
    ([1.0, 0.0, 0.0], 1)
    """
    oriented = scores.values * scores.sign
    x = oriented - oriented.mean(axis=0)
    if scale:
        std = x.std(axis=0)
        if (std == 0).any():
            bad = [scores.tasks[j] for j in np.flatnonzero(std == 0)]
            raise ValueError(f"constant {numbered(len(bad), 'task')} {bad[:5]} cannot be scaled")
        x = x / std
    u, s, vt = np.linalg.svd(x, full_matrices=False)
    total = float(np.sum(s**2))
    if total == 0:
        raise ValueError("every task is constant: there is no variance to explain")
    explained = s**2 / total
    pc1 = u[:, 0] * s[0]
    loadings = vt[0]
    mean = oriented.mean(axis=1)
    # pc1 is centred, so this has the sign of its correlation with the mean score; when the mean score is the
    # same for every model (no correlation defined), the tasks' loadings decide: positive on the whole
    agree = float(np.dot(pc1, mean - mean.mean()))
    if agree < 0 or (agree == 0 and loadings.sum() < 0):
        pc1, loadings = -pc1, -loadings
    load = pd.Series(loadings, index=pd.Index(scores.tasks), name="pc1_loading") if scores.labelled else loadings
    return BenchmarkPCA(
        singular_values=s, explained=explained, pc1_scores=wrap_models(pc1, scores, "pc1"), pc1_loadings=load
    )
