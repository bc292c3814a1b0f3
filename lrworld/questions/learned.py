"""The learned negative control: a knowledge-free answerer learned across questions, the
hypothesis-only baseline of NLI and what adversarial filtering (SWAG, HellaSwag, AFLite) is made
to defeat. A logistic regression (scikit-learn) over every option's features
(lrworld/questions/option_features.py), each taken relative to the question's other options (its
difference from their mean, and its rank among them), picks the option it gives the highest
probability. It is trained and scored on disjoint questions: `folds`-fold cross-validation by
question, so no question is answered by a model that saw its gold.

`cross_validate` returns its held-out score with a Wilson interval, the features it leans on (the
largest standardised coefficients of a fit on every question) and, per question, the held-out
probability it gave the gold (what the construction's filter drops questions by,
lrworld/questions/validity.py).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from lrworld.core.seeding import rng_for
from lrworld.questions.option_features import OptionFeatures

FOLDS = 5
CONFIDENCE = 0.95
# the features a result names: the largest standardised coefficients
NAMED = 3


def wilson(k: int, n: int, confidence: float = CONFIDENCE) -> tuple[float, float]:
    """Wilson's score interval for k of n, two-sided: what scipy.stats.binomtest(k, n)
    .proportion_ci(method="wilson") returns (tests compare them). Written from scipy.special's
    normal quantile because scipy.stats costs every audit job about 1 s to import."""
    from scipy.special import ndtri

    z = float(ndtri(0.5 + 0.5 * confidence))
    p = k / n
    denom = 2 * (n + z * z)
    center = (2 * n * p + z * z) / denom
    delta = z / denom * math.sqrt(4 * n * p * (1 - p) + z * z)
    return (0.0 if k == 0 else center - delta), (1.0 if k == n else center + delta)


def design(values: np.ndarray) -> np.ndarray:
    """(questions, options, features) -> (questions x options, 2 x features): each feature's
    difference from its question's mean and its rank share among the question's options (ties
    share their mean rank), so only how an option stands against the others counts."""
    q, o, f = values.shape
    centred = values - values.mean(axis=1, keepdims=True)
    greater = (values[:, :, None, :] > values[:, None, :, :]).sum(axis=2)
    equal = (values[:, :, None, :] == values[:, None, :, :]).sum(axis=2) - 1
    ranks = (greater + 0.5 * equal) / max(1, o - 1)
    return np.concatenate([centred, ranks], axis=2).reshape(q * o, 2 * f)


def _model():
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    return make_pipeline(StandardScaler(), LogisticRegression(C=1.0, max_iter=2000))


def _fit_predict(X: np.ndarray, y: np.ndarray, train: np.ndarray, test: np.ndarray, n_opt: int) -> np.ndarray:
    """(len(test), options) probabilities of each held-out question's options, normalised per question."""
    rows = lambda qs: (qs[:, None] * n_opt + np.arange(n_opt)[None, :]).reshape(-1)  # noqa: E731
    ytr = y[rows(train)]
    if ytr.min() == ytr.max():
        return np.full((len(test), n_opt), 1.0 / n_opt)
    model = _model().fit(X[rows(train)], ytr)
    p = model.predict_proba(X[rows(test)])[:, 1].reshape(len(test), n_opt)
    return p / p.sum(axis=1, keepdims=True)


@dataclass
class LearnedResult:
    correct: int
    n: int
    chance: float
    ci_low: float
    ci_high: float
    leans_on: list[str] = field(default_factory=list)
    # per question, the held-out probability given to its gold (what the filter drops by)
    gold_probability: np.ndarray | None = None
    picks: np.ndarray | None = None

    @property
    def score(self) -> float:
        return self.correct / self.n if self.n else 0.0

    @property
    def above_chance(self) -> bool:
        return self.ci_low > self.chance

    def summary(self) -> dict:
        return {"correct": self.correct, "n": self.n, "score": round(self.score, 4), "ci_low": round(self.ci_low, 4),
                "ci_high": round(self.ci_high, 4), "chance": round(self.chance, 4),
                "above_chance": bool(self.above_chance), "leans_on": self.leans_on, "folds": FOLDS}


def _folds(n: int, seed: int, name: str, folds: int) -> np.ndarray:
    """Each question's fold, a seeded permutation named by what it serves."""
    return rng_for(seed, "learned", name, "folds").permutation(n) % min(folds, n)


def cross_validate(table: OptionFeatures, seed: int = 0, name: str = "", folds: int = FOLDS,
                   repeats: int = 1) -> LearnedResult:
    """The learned answerer's held-out score over `table`'s questions (`repeats` draws of the folds:
    its correct count the mean over them, rounded, its interval over the n questions; the picks from
    the first draw, the gold probabilities averaged over all)."""
    n, n_opt = len(table.qids), (table.values.shape[1] if table.values.ndim == 3 else 0)
    if n == 0 or n_opt == 0:
        return LearnedResult(0, 0, 0.0, 0.0, 1.0)
    X = design(table.values)
    y = np.zeros(n * n_opt, dtype=int)
    y[np.arange(n) * n_opt + table.answers] = 1
    probs = np.zeros((n, n_opt))
    picks, hits = None, []
    for r in range(repeats):
        fold = _folds(n, seed, f"{name}/{r}" if r else name, folds)
        p = np.zeros((n, n_opt))
        for k in np.unique(fold):
            test = np.flatnonzero(fold == k)
            train = np.flatnonzero(fold != k)
            p[test] = _fit_predict(X, y, train, test, n_opt) if len(train) else 1.0 / n_opt
        probs += p / repeats
        hits.append(int((p.argmax(axis=1) == table.answers).sum()))
        if picks is None:
            picks = p.argmax(axis=1)
    correct = int(round(float(np.mean(hits))))
    lo, hi = wilson(correct, n)
    return LearnedResult(correct, n, 1.0 / n_opt, lo, hi, _leans_on(X, y, table.names),
                         probs[np.arange(n), table.answers], picks)


def _leans_on(X: np.ndarray, y: np.ndarray, names: tuple[str, ...]) -> list[str]:
    """The NAMED features with the largest standardised coefficients of a fit on every question,
    signed (`+`: the gold tends to have more of it)."""
    if y.min() == y.max():
        return []
    coef = _model().fit(X, y)[-1].coef_[0]
    labels = [f"{n} (vs mean)" for n in names] + [f"{n} (rank)" for n in names]
    top = np.argsort(-np.abs(coef), kind="stable")[:NAMED]
    return [f"{'+' if coef[i] > 0 else '-'}{labels[i]}" for i in top if abs(coef[i]) > 0]
