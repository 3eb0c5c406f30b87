"""The model of ../shared/ARTICLE.md, fitted by least squares:

    loop seconds = fixed + epochs x per_epoch + item_calls x per_item

per device and batch. `fixed` is only identifiable when the rows have different epoch
counts; bench's loop timer starts at the first epoch and stops after the device drains, so
with one epoch count the fit drops it (fixed = 0) and says so.
"""

from dataclasses import dataclass

import numpy as np
from scipy import stats


@dataclass
class Fit:
    names: list
    coef: np.ndarray
    se: np.ndarray
    ci95: np.ndarray  # shape (k, 2)
    r2: float
    n: int
    dof: int
    note: str = ""
    cov: np.ndarray = None  # covariance of the coefficients, for the variance of a prediction

    def value(self, name):
        return float(self.coef[self.names.index(name)])

    def interval(self, name):
        lo, hi = self.ci95[self.names.index(name)]
        return float(lo), float(hi)

    def predict(self, columns):
        """columns: dict name -> array-like; missing names count as 0."""
        n = len(next(iter(columns.values())))
        X = np.column_stack([np.asarray(columns.get(k, np.zeros(n)), float) for k in self.names])
        return X @ self.coef

    def predict_var(self, columns):
        """Variance of the fitted mean at each row of `columns` (x' cov x): the uncertainty of
        the line itself, not of a new run."""
        n = len(next(iter(columns.values())))
        X = np.column_stack([np.asarray(columns.get(k, np.zeros(n)), float) for k in self.names])
        return np.einsum("ij,jk,ik->i", X, self.cov, X)


def ols(X, y, names, note=""):
    """Ordinary least squares with standard errors, 95% intervals (Student t) and R^2."""
    X = np.asarray(X, float)
    y = np.asarray(y, float)
    n, k = X.shape
    if n <= k:
        raise ValueError(f"need more rows ({n}) than coefficients ({k}: {', '.join(names)}) to fit")
    coef, *_ = np.linalg.lstsq(X, y, rcond=None)
    resid = y - X @ coef
    dof = n - k
    sigma2 = float(resid @ resid) / dof
    cov = sigma2 * np.linalg.pinv(X.T @ X)
    se = np.sqrt(np.maximum(np.diag(cov), 0.0))
    t = stats.t.ppf(0.975, dof)
    ci = np.column_stack([coef - t * se, coef + t * se])
    ss_tot = float(((y - y.mean()) ** 2).sum())
    r2 = 1.0 - float(resid @ resid) / ss_tot if ss_tot > 0 else 1.0
    return Fit(list(names), coef, se, ci, r2, n, dof, note, cov)


def fit_loop_time(epochs, item_calls, seconds):
    """Fits seconds = [fixed] + epochs*per_epoch + item_calls*per_item over repetition rows."""
    epochs = np.asarray(epochs, float)
    item_calls = np.asarray(item_calls, float)
    if np.ptp(epochs) > 0:
        X = np.column_stack([np.ones_like(epochs), epochs, item_calls])
        return ols(X, seconds, ["fixed", "per_epoch", "per_item"])
    X = np.column_stack([epochs, item_calls])
    return ols(
        X,
        seconds,
        ["per_epoch", "per_item"],
        note=f"all rows ran {int(epochs[0])} epochs, so a fixed term is not identifiable; "
        "the loop timer excludes set-up, so it is taken as 0",
    )


def fit_batch_cost(batch, us_per_epoch):
    """Per-epoch cost against batch size, c(B) = base + per_row x B, weighted by 1/c so
    small and large batches count alike (relative errors)."""
    batch = np.asarray(batch, float)
    c = np.asarray(us_per_epoch, float)
    w = 1.0 / c
    fit = ols(
        np.column_stack([np.ones_like(batch), batch]) * w[:, None], c * w, ["base_us", "per_row_us"]
    )
    fit.note = "weighted least squares on relative error; R^2 on the unweighted values"
    predicted = fit.predict({"base_us": np.ones_like(batch), "per_row_us": batch})
    ss_tot = float(((c - c.mean()) ** 2).sum())
    fit.r2 = 1.0 - float(((c - predicted) ** 2).sum()) / ss_tot if ss_tot > 0 else 1.0
    return fit


def batch_cost_misses(fit, batch, us_per_epoch):
    """[(batch, measured us, fitted us, miss % of the measured)] of a c(B) fit at each point,
    largest miss first: where an affine cost stops describing the data."""
    out = []
    for b, us in zip(batch, us_per_epoch):
        fitted = float(fit.value("base_us") + fit.value("per_row_us") * b)
        out.append((b, float(us), fitted, 100.0 * (fitted - us) / us))
    return sorted(out, key=lambda m: -abs(m[3]))
