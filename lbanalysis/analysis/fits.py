"""Scaling fits: throughput against a load variable (clients, cores, backends).

Three models, all fitted by bounded non-linear least squares
(:func:`scipy.optimize.least_squares`) over every run, so repeated runs at the
same load count as separate observations:

========  =========================================  ==========================
model     throughput X(N)                            parameters
========  =========================================  ==========================
linear    ``intercept + slope * N``                  intercept, slope
amdahl    ``lambda * N / (1 + sigma * (N - 1))``     lambda, sigma (0..1)
usl       ``lambda * N / (1 + sigma * (N - 1)        lambda, sigma (0..1),
          + kappa * N * (N - 1))``                   kappa (>= 0)
========  =========================================  ==========================

``lambda`` is the throughput of one unit of load (Gunther's X(1), R usl's
``gamma``), ``sigma`` the contention (serial fraction; R usl's ``alpha``),
``kappa`` the coherency delay (R usl's ``beta``). Standard errors come from
the Jacobian at the optimum, ``s^2 (J'J)^-1``, as R's ``nls`` and the ``usl``
package compute them; intervals use Student's t with ``n - k`` degrees of
freedom.

Example: data made from known USL parameters are recovered exactly.

>>> import pandas as pd
>>> n = [1, 2, 4, 8, 16, 32, 64]
>>> runs = pd.DataFrame({"concurrency": n, "requests_per_s": usl_throughput(n, 100.0, 0.05, 0.001)})
>>> fit = fit_scaling(runs, x="concurrency", y="requests_per_s", model="usl")
>>> fit.params.round(4).to_dict()
{'lambda': 100.0, 'sigma': 0.05, 'kappa': 0.001}
>>> round(fit.n_peak, 1), round(fit.x_peak)
(30.8, 904)
"""

from __future__ import annotations

import html
import json
import math
import warnings
from collections.abc import Callable, Hashable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
import pandas as pd
from scipy import optimize, special  # special's t quantiles: scipy.stats would add some 0.3 s of import

from lbanalysis.errors import FitError

__all__ = [
    "MODELS",
    "FitSummary",
    "ScalingFit",
    "ScalingFits",
    "amdahl_throughput",
    "fit_scaling",
    "usl_throughput",
]


# ----------------------------------------------------------------- curves ---
def usl_throughput(n: Any, lam: float, sigma: float, kappa: float) -> np.ndarray:
    """Gunther's Universal Scalability Law, ``X(N) = λN / (1 + σ(N-1) + κN(N-1))``.

    >>> usl_throughput([1, 10], 100.0, 0.1, 0.01).round(2).tolist()
    [100.0, 357.14]
    """
    n = np.asarray(n, dtype=float)
    with np.errstate(
        divide="ignore", invalid="ignore"
    ):  # a trial of the fit where the denominator is 0: NaN, no warning
        return lam * n / (1.0 + sigma * (n - 1.0) + kappa * n * (n - 1.0))


def amdahl_throughput(n: Any, lam: float, sigma: float) -> np.ndarray:
    """Amdahl's law as a throughput curve, ``X(N) = λN / (1 + σ(N-1))``.

    >>> amdahl_throughput([1, 1000], 10.0, 0.1).round(1).tolist()
    [10.0, 99.1]
    """
    return usl_throughput(n, lam, sigma, 0.0)


def _linear(n: np.ndarray, p: np.ndarray) -> np.ndarray:
    return p[0] + p[1] * n


def _linear_jac(n: np.ndarray, p: np.ndarray) -> np.ndarray:
    return np.column_stack([np.ones_like(n), n])


def _usl(n: np.ndarray, p: np.ndarray) -> np.ndarray:
    kappa = p[2] if len(p) > 2 else 0.0
    return usl_throughput(n, p[0], p[1], kappa)


def _usl_jac(n: np.ndarray, p: np.ndarray) -> np.ndarray:
    lam, sigma = p[0], p[1]
    kappa = p[2] if len(p) > 2 else 0.0
    d = 1.0 + sigma * (n - 1.0) + kappa * n * (n - 1.0)
    cols = [n / d, -lam * n * (n - 1.0) / d**2]
    if len(p) > 2:
        cols.append(-lam * n * n * (n - 1.0) / d**2)
    return np.column_stack(cols)


# ---------------------------------------------------------- start values ---
def _unit_rate(n: np.ndarray, y: np.ndarray) -> float:
    """λ estimate: mean of X/N over the runs at the smallest load."""
    low = n == n.min()
    return float(np.mean(y[low] / n[low]))


def _linearised(n: np.ndarray, y: np.ndarray, lam: float, k: int) -> np.ndarray:
    """Gunther's linearisation: ``N/C - 1 = σ(N-1) + κN(N-1)`` with ``C = X/λ``."""
    keep = y > 0
    n, c = n[keep], y[keep] / lam
    design = np.column_stack([n - 1.0, n * (n - 1.0)])[:, : k - 1]
    coef, *_ = np.linalg.lstsq(design, n / c - 1.0, rcond=None)
    coef = np.clip(coef, 0.0, None)
    coef[0] = min(coef[0], 1.0)
    return np.concatenate([[lam], coef])


def _starts_scaling(n: np.ndarray, y: np.ndarray, k: int) -> list[np.ndarray]:
    lam0, lam1 = _unit_rate(n, y), float(np.max(y / n))
    starts = [_linearised(n, y, lam0, k), _linearised(n, y, lam1, k)]
    starts.append(np.array([lam1, 0.01, 1e-4][:k]))  # R usl's start values
    return [s for s in starts if np.all(np.isfinite(s)) and s[0] > 0]


def _starts_linear(n: np.ndarray, y: np.ndarray, k: int) -> list[np.ndarray]:
    slope, intercept = np.polyfit(n, y, 1)
    return [np.array([intercept, slope])]


# ---------------------------------------------------------------- models ---
@dataclass(frozen=True)
class Model:
    """A scaling model: its formula, parameters, bounds and start values."""

    name: str
    formula: str
    params: tuple[str, ...]
    func: Callable[[np.ndarray, np.ndarray], np.ndarray]
    jac: Callable[[np.ndarray, np.ndarray], np.ndarray]
    lower: tuple[float, ...]
    upper: tuple[float, ...]
    starts: Callable[[np.ndarray, np.ndarray, int], list[np.ndarray]]
    positive_load: bool = True

    @property
    def k(self) -> int:
        return len(self.params)


MODELS: dict[str, Model] = {
    "linear": Model(
        "linear",
        "X(N) = intercept + slope·N",
        ("intercept", "slope"),
        _linear,
        _linear_jac,
        (-np.inf, -np.inf),
        (np.inf, np.inf),
        _starts_linear,
        positive_load=False,
    ),
    "amdahl": Model(
        "amdahl",
        "X(N) = λN / (1 + σ(N-1))",
        ("lambda", "sigma"),
        _usl,
        _usl_jac,
        (0.0, 0.0),
        (np.inf, 1.0),
        _starts_scaling,
    ),
    "usl": Model(
        "usl",
        "X(N) = λN / (1 + σ(N-1) + κN(N-1))",
        ("lambda", "sigma", "kappa"),
        _usl,
        _usl_jac,
        (0.0, 0.0, 0.0),
        (np.inf, 1.0, np.inf),
        _starts_scaling,
    ),
}


def _get_model(model: str | Model) -> Model:
    if isinstance(model, Model):
        return model
    try:
        return MODELS[model]
    except KeyError:
        raise ValueError(f"unknown model {model!r}; known models: {', '.join(MODELS)}") from None


# ----------------------------------------------------------------- data ---
def _numeric(s: pd.Series) -> np.ndarray:
    """Float values of a column that may hold Int64/boolean/strings; NA → NaN."""
    if isinstance(s.dtype, pd.BooleanDtype) or s.dtype == bool:
        s = s.astype("Float64")
    return pd.to_numeric(s, errors="coerce").astype("Float64").to_numpy(dtype=float, na_value=np.nan)


def _group_words(group: Any) -> str:
    """A group key as a reader reads it: its values, comma-separated.

    >>> _group_words(("haproxy-16", "compute")), _group_words("bad")
    ('haproxy-16, compute', 'bad')
    """
    return ", ".join(map(str, group)) if isinstance(group, tuple) else str(group)


#: Parameters in words, for sentences about a fit.
PARAM_WORDS: dict[str, str] = {
    "lambda": "λ (the rate of one client)",
    "sigma": "σ (contention)",
    "kappa": "κ (coherency)",
    "intercept": "the intercept",
    "slope": "the slope",
    "n_peak": "the load at the peak",
    "x_peak": "the rate at the peak",
    "asymptote": "the asymptote λ/σ",
    "serial_fraction": "the serial fraction σ",
    "speedup_limit": "the speed-up limit 1/σ",
}


def _prepare(runs: pd.DataFrame, x: str, y: str, model: Model, group: Any) -> pd.DataFrame:
    for col in (x, y):
        if col not in runs.columns:
            raise FitError(f"no column {col!r} to fit; the frame has: {', '.join(map(str, runs.columns))}")
    data = pd.DataFrame({x: _numeric(runs[x]), y: _numeric(runs[y])}, index=runs.index)
    data = data[np.isfinite(data[x]) & np.isfinite(data[y])]
    where = "" if group is None else f", for {_group_words(group)}"
    if data.empty:
        raise FitError(f"no run has numbers in both {x!r} and {y!r}{where}: nothing to fit")
    if model.positive_load and (data[x] <= 0).any():
        raise FitError(f"the {model.name} model needs loads > 0; {x!r} has {data[x].min():g}{where}")
    if model.positive_load and not (data[y] > 0).any():
        raise FitError(f"the {model.name} model needs some throughput > 0; {y!r} has none{where}")
    loads = np.unique(data[x])
    if len(loads) < model.k + 1:
        raise FitError(
            f"the {model.name} model has {model.k} parameters and needs at least {model.k + 1} distinct "
            f"values of {x}; got {len(loads)} ({', '.join(f'{v:g}' for v in loads)}){where}"
        )
    return data


# ------------------------------------------------------------------ fit ---
def _least_squares(model: Model, n: np.ndarray, y: np.ndarray) -> optimize.OptimizeResult:
    best, messages = None, []
    for start in model.starts(n, y, model.k):
        start = np.clip(start, model.lower, model.upper)
        try:
            r = optimize.least_squares(
                lambda p: model.func(n, p) - y,
                start,
                jac=lambda p: model.jac(n, p),
                bounds=(model.lower, model.upper),
                x_scale="jac",
                ftol=1e-14,
                xtol=1e-14,
                gtol=1e-14,
                max_nfev=5000,
            )
        except (ValueError, FloatingPointError, np.linalg.LinAlgError) as e:
            messages.append(str(e))
            continue
        if r.status <= 0 or not np.all(np.isfinite(r.x)) or not np.isfinite(r.cost):
            messages.append(r.message)
            continue
        if best is None or r.cost < best.cost:
            best = r
    if best is None:
        raise FitError(f"the {model.name} fit did not converge: {'; '.join(messages) or 'no usable start values'}")
    return best


def _covariance(jac: np.ndarray, s2: float) -> tuple[np.ndarray, list[str]]:
    """``s² (J'J)^-1``, computed on column-scaled J so that λ ~ 1e6 and κ ~ 1e-6 do not look singular."""
    norms = np.linalg.norm(jac, axis=0)
    if np.any(norms == 0) or not np.all(np.isfinite(norms)):
        return np.full((jac.shape[1], jac.shape[1]), np.nan), [_NOT_IDENTIFIABLE]
    scaled = jac / norms
    jtj = scaled.T @ scaled
    if np.linalg.cond(jtj) > 1e12:
        return np.full_like(jtj, np.nan), [_NOT_IDENTIFIABLE]
    return np.linalg.inv(jtj) / np.outer(norms, norms) * s2, []


_NOT_IDENTIFIABLE = "the parameters are not identifiable from these loads (singular Jacobian): no standard errors"


def _fit_one(runs: pd.DataFrame, x: str, y: str, model: Model, group: Any = None) -> ScalingFit:
    data = _prepare(runs, x, y, model, group)
    n, yy = data[x].to_numpy(), data[y].to_numpy()
    r = _least_squares(model, n, yy)
    resid = yy - model.func(n, r.x)
    dof = len(n) - model.k
    s2 = float(resid @ resid) / dof
    values, notes = _snap_to_bounds(model, n, r.x)
    cov, more = _covariance(model.jac(n, values), s2)
    return ScalingFit(model=model, x=x, y=y, data=data, values=values, cov=cov, group=group, notes=notes + more)


def _snap_to_bounds(model: Model, n: np.ndarray, p: np.ndarray) -> tuple[np.ndarray, list[str]]:
    """Put a parameter exactly on its bound when the curve cannot tell the difference."""
    p, notes = p.copy(), []
    scale = max(float(np.max(np.abs(model.func(n, p)))), 1e-300)
    for i, name in enumerate(model.params):
        for bound in (model.lower[i], model.upper[i]):
            if not math.isfinite(bound) or p[i] == bound:
                continue
            q = p.copy()
            q[i] = bound
            if np.max(np.abs(model.func(n, q) - model.func(n, p))) <= 1e-9 * scale:
                p = q
        if p[i] in (model.lower[i], model.upper[i]):
            notes.append(f"{name} is at its bound {p[i]:g}; its interval is the unconstrained approximation")
    return p, notes


# --------------------------------------------------------------- result ---
def _t(alpha: float, dof: int) -> float:
    return float(special.stdtrit(dof, 1.0 - alpha / 2.0))


def _jsonable(v: Any) -> Any:
    if isinstance(v, Mapping):
        return {str(k): _jsonable(w) for k, w in v.items()}
    if isinstance(v, (list, tuple)):
        return [_jsonable(w) for w in v]
    if isinstance(v, (bool, np.bool_)):
        return bool(v)
    if isinstance(v, (int, np.integer)):
        return int(v)
    if isinstance(v, (float, np.floating)):
        return float(v) if math.isfinite(v) else None
    if v is None or isinstance(v, str):
        return v
    return str(v)


@dataclass
class FitSummary:
    """What :meth:`ScalingFit.summary` returns: prints as text, renders as HTML.

    ``tables`` holds the pieces as frames (``"model"``, ``"params"``,
    ``"derived"``) for anyone who wants numbers rather than text.
    """

    title: str
    tables: dict[str, pd.DataFrame]
    notes: list[str] = field(default_factory=list)

    def as_text(self) -> str:
        parts = [self.title, "=" * len(self.title)]
        for table in self.tables.values():
            if not table.empty:
                parts += ["", table.to_string(float_format=lambda v: f"{v:.6g}")]
        if self.notes:
            parts += ["", "Notes:"] + [f"  - {n}" for n in self.notes]
        return "\n".join(parts)

    def as_html(self) -> str:
        out = [f"<h4>{html.escape(self.title)}</h4>"]
        for table in self.tables.values():
            if not table.empty:
                out.append(table.to_html(float_format=lambda v: f"{v:.6g}", border=0))
        if self.notes:
            out.append("<p><b>Notes</b></p><ul>" + "".join(f"<li>{html.escape(n)}</li>" for n in self.notes) + "</ul>")
        return "\n".join(out)

    def __str__(self) -> str:
        return self.as_text()

    __repr__ = __str__

    def _repr_html_(self) -> str:
        return self.as_html()


@dataclass(eq=False)
class ScalingFit:
    """The result of one scaling fit (made by :func:`fit_scaling`).

    Attributes follow statsmodels: ``params``, ``bse``, ``tvalues``,
    ``pvalues``, ``conf_int()``, ``cov_params()``, ``nobs``, ``df_resid``,
    ``rsquared``, ``rsquared_adj``, ``aic``, ``bic``, ``ssr``; plus the
    model's derived values (``n_peak``, ``x_peak``, ``retrograde`` for USL;
    ``serial_fraction`` and ``asymptote`` for Amdahl), ``predict()``,
    ``summary()``, ``to_dict()`` and ``plot()``.

    >>> import pandas as pd
    >>> runs = pd.DataFrame({"cores": [1, 2, 4, 8, 16], "rps": amdahl_throughput([1, 2, 4, 8, 16], 50.0, 0.1)})
    >>> fit = fit_scaling(runs, x="cores", y="rps", model="amdahl")
    >>> round(fit.serial_fraction, 3), round(fit.asymptote, 1)
    (0.1, 500.0)
    >>> fit.predict([32]).round(1).tolist()
    [390.2]
    """

    model: Model
    x: str
    y: str
    data: pd.DataFrame
    values: np.ndarray
    cov: np.ndarray
    group: Any = None
    notes: list[str] = field(default_factory=list)

    # -- parameters ------------------------------------------------------
    @property
    def params(self) -> pd.Series:
        """Fitted parameters, labelled."""
        return pd.Series(self.values, index=list(self.model.params), name="estimate")

    @property
    def bse(self) -> pd.Series:
        """Standard errors of the parameters."""
        return pd.Series(np.sqrt(np.diag(self.cov)), index=list(self.model.params), name="bse")

    @property
    def tvalues(self) -> pd.Series:
        return (self.params / self.bse).rename("t")

    @property
    def pvalues(self) -> pd.Series:
        """Two-sided p-values of ``parameter = 0``."""
        return pd.Series(2 * special.stdtr(self.df_resid, -np.abs(self.tvalues)), index=self.params.index, name="p")

    def cov_params(self) -> pd.DataFrame:
        """Covariance matrix of the parameters."""
        names = list(self.model.params)
        return pd.DataFrame(self.cov, index=names, columns=names)

    def conf_int(self, alpha: float = 0.05) -> pd.DataFrame:
        """``1 - alpha`` confidence intervals (columns ``lower``, ``upper``).

        Student's t with ``df_resid`` degrees of freedom: ``estimate ± t·bse``.
        """
        half = _t(alpha, self.df_resid) * self.bse
        return pd.DataFrame({"lower": self.params - half, "upper": self.params + half})

    # -- goodness of fit --------------------------------------------------
    @property
    def nobs(self) -> int:
        return len(self.data)

    @property
    def df_resid(self) -> int:
        return self.nobs - self.model.k

    @property
    def fittedvalues(self) -> pd.Series:
        return pd.Series(self.model.func(self.data[self.x].to_numpy(), self.values), index=self.data.index, name=self.y)

    @property
    def resid(self) -> pd.Series:
        return (self.data[self.y] - self.fittedvalues).rename("resid")

    @property
    def ssr(self) -> float:
        """Sum of squared residuals."""
        return float((self.resid**2).sum())

    @property
    def resid_std(self) -> float:
        """Residual standard error ``sqrt(ssr / df_resid)``."""
        return math.sqrt(self.ssr / self.df_resid)

    @property
    def rsquared(self) -> float:
        """``1 - ssr / (total sum of squares about the mean)``."""
        yy = self.data[self.y]
        tss = float(((yy - yy.mean()) ** 2).sum())
        return 1.0 - self.ssr / tss if tss > 0 else float("nan")

    @property
    def rsquared_adj(self) -> float:
        return 1.0 - (1.0 - self.rsquared) * (self.nobs - 1) / self.df_resid

    @property
    def llf(self) -> float:
        """Gaussian log-likelihood at the optimum."""
        n = self.nobs
        return -n / 2.0 * (math.log(2 * math.pi) + math.log(max(self.ssr, 1e-300) / n) + 1.0)

    @property
    def aic(self) -> float:
        return -2.0 * self.llf + 2.0 * self.model.k

    @property
    def bic(self) -> float:
        return -2.0 * self.llf + self.model.k * math.log(self.nobs)

    # short aliases
    n = nobs
    dof = df_resid
    r2 = rsquared

    # -- prediction ---------------------------------------------------------
    def _curve(self, x: np.ndarray, p: np.ndarray) -> np.ndarray:
        return self.model.func(np.asarray(x, dtype=float), np.asarray(p, dtype=float))

    def predict(
        self,
        x: Any = None,
        *,
        interval: bool = False,
        alpha: float = 0.05,
        kind: Literal["confidence", "prediction"] = "confidence",
    ) -> pd.Series | pd.DataFrame:
        """Throughput predicted at loads ``x`` (default: the fitted loads).

        With ``interval=True`` a frame with ``predicted``, ``lower``, ``upper``:
        the delta-method band ``±t·sqrt(g'Σg)`` of the mean curve
        (``kind="confidence"``), or of a new run (``kind="prediction"``, which
        adds the residual variance).

        >>> import pandas as pd
        >>> runs = pd.DataFrame({"n": [1, 2, 3, 4, 5], "rps": [10.1, 19.9, 30.2, 39.8, 50.0]})
        >>> band = fit_scaling(runs, x="n", y="rps", model="linear").predict([6], interval=True)
        >>> list(band.columns), bool(band.lower.iloc[0] < band.predicted.iloc[0] < band.upper.iloc[0])
        (['predicted', 'lower', 'upper'], True)
        """
        xs = self.data[self.x].to_numpy() if x is None else np.atleast_1d(np.asarray(x, dtype=float))
        index = pd.Index(xs, name=self.x)
        pred = self._curve(xs, self.values)
        if not interval:
            return pd.Series(pred, index=index, name=self.y)
        g = self.model.jac(xs, self.values)
        var = np.einsum("ij,jk,ik->i", g, self.cov, g)
        if kind == "prediction":
            var = var + self.resid_std**2
        elif kind != "confidence":
            raise ValueError(f"kind must be 'confidence' or 'prediction', not {kind!r}")
        half = _t(alpha, self.df_resid) * np.sqrt(var)
        return pd.DataFrame({"predicted": pred, "lower": pred - half, "upper": pred + half}, index=index)

    # -- derived values -----------------------------------------------------
    def _derived_funcs(self) -> dict[str, Callable[[np.ndarray], float]]:
        name = self.model.name
        if name == "usl":
            # without coherency (kappa = 0) the "peak" is the asymptote λ/σ: derive its error from that
            x_peak = _x_peak if math.isfinite(_n_peak(self.values)) else _asymptote
            return {"n_peak": _n_peak, "x_peak": x_peak, "asymptote": _asymptote}
        if name == "amdahl":
            return {"serial_fraction": lambda p: p[1], "asymptote": _asymptote, "speedup_limit": _speedup_limit}
        return {}

    def derived(self, alpha: float = 0.05) -> pd.DataFrame:
        """Derived values with delta-method standard errors and intervals.

        USL: ``n_peak`` = sqrt((1-σ)/κ), ``x_peak`` = X(n_peak), ``asymptote``
        = λ/σ; Amdahl: ``serial_fraction`` = σ, ``asymptote`` = λ/σ (the
        throughput it approaches), ``speedup_limit`` = 1/σ. Infinite values
        (no coherency, no contention) have no standard error. These values
        are positive, so intervals are built on the log scale
        (``est·exp(±t·se/est)``): asymmetric, never below zero.
        """
        rows = {}
        t = _t(alpha, self.df_resid)
        for key, f in self._derived_funcs().items():
            est = float(f(self.values))
            se = _delta_se(f, self.values, self.cov) if math.isfinite(est) else float("nan")
            if est > 0 and math.isfinite(se):
                # positive by nature: a log-scale interval never goes below zero
                half = t * se / est
                lower, upper = est * math.exp(-half), est * math.exp(half)
            else:
                lower, upper = est - t * se, est + t * se
            rows[key] = {"estimate": est, "bse": se, "lower": lower, "upper": upper}
        return pd.DataFrame.from_dict(rows, orient="index", columns=["estimate", "bse", "lower", "upper"])

    def _get(self, key: str) -> float:
        funcs = self._derived_funcs()
        if key not in funcs:
            raise AttributeError(f"{key} is not defined for the {self.model.name} model")
        return float(funcs[key](self.values))

    @property
    def n_peak(self) -> float:
        """USL: the load of peak throughput, ``sqrt((1-σ)/κ)`` (inf when κ = 0)."""
        return self._get("n_peak")

    @property
    def x_peak(self) -> float:
        """USL: the peak throughput X(n_peak) (λ/σ, the supremum, when κ = 0)."""
        return self._get("x_peak")

    @property
    def asymptote(self) -> float:
        """USL/Amdahl: λ/σ, the throughput Amdahl's law approaches."""
        return self._get("asymptote")

    @property
    def serial_fraction(self) -> float:
        """Amdahl: the serial fraction σ."""
        return self._get("serial_fraction")

    @property
    def kappa_pvalue(self) -> float:
        """USL: one-sided p-value of ``κ > 0`` (t test with ``df_resid`` dof)."""
        if self.model.name != "usl":
            return float("nan")
        se = self.bse["kappa"]
        if not (se > 0):
            return float("nan")
        return float(special.stdtr(self.df_resid, -self.params["kappa"] / se))

    def is_retrograde(self, alpha: float = 0.05) -> bool:
        """USL: coherency limits scaling: κ > 0 significantly (throughput falls past ``n_peak``)."""
        p = self.kappa_pvalue
        return bool(math.isfinite(p) and p < alpha)

    @property
    def retrograde(self) -> bool:
        """:meth:`is_retrograde` at the 5% level."""
        return self.is_retrograde()

    # -- reporting ----------------------------------------------------------
    def _stats(self) -> dict[str, Any]:
        return {
            "n": self.nobs,
            "dof": self.df_resid,
            "loads": int(self.data[self.x].nunique()),
            "r2": self.rsquared,
            "r2_adj": self.rsquared_adj,
            "aic": self.aic,
            "bic": self.bic,
            "resid_std": self.resid_std,
        }

    def summary(self, alpha: float = 0.05) -> FitSummary:
        """A report that prints as text and renders as HTML in a notebook."""
        ci = self.conf_int(alpha)
        lo, hi = f"[{alpha / 2:g}", f"{1 - alpha / 2:g}]"
        params = pd.DataFrame(
            {"estimate": self.params, "std err": self.bse, "t": self.tvalues, "P>|t|": self.pvalues,
             lo: ci["lower"], hi: ci["upper"]}
        )  # fmt: skip
        model = pd.DataFrame.from_dict(
            {"model": self.model.formula, "x": self.x, "y": self.y, **self._stats()}, orient="index", columns=[""]
        )
        notes = list(self.notes)
        if self.df_resid < 2:
            notes.append(
                f"only {self.df_resid} residual degree(s) of freedom ({self.nobs} points, "
                f"{len(self.params)} parameters): the curve passes near every point by construction, "
                "the intervals are too wide to mean anything and the data cannot judge the model"
            )
        if self.model.name == "usl":
            notes.append(self._usl_verdict())
        title = f"{self.model.name.upper()} fit of {self.y} against {self.x}"
        if self.group is not None:
            title += f" — {self.group}"
        return FitSummary(title, {"model": model, "params": params, "derived": self.derived(alpha)}, notes)

    def cautions(self, alpha: float = 0.05) -> list[str]:
        """What a reader must know before using this fit's numbers, in words (empty when nothing).

        An interval from fewer than two residual degrees of freedom; a
        parameter's interval reaching below a bound it cannot cross (a
        negative σ); an infinite asymptote (no contention within the loads
        run: the fit names no limit).

        >>> runs = pd.DataFrame({"vcpus": [1, 2, 4, 8], "requests_per_s": [100.0, 200.0, 400.0, 800.0]})
        >>> fit_scaling(runs, x="vcpus", model="amdahl").cautions()
        ['the asymptote is infinite (σ = 0): the runs show no limit within 1 to 8 vcpus, and the fit names none']
        """
        out = []
        conf = f"{1 - alpha:.0%}"
        if self.df_resid < 2:
            out.append(
                f"{self.df_resid} residual degree{'s' if self.df_resid != 1 else ''} of freedom: "
                "no interval or test from this fit"
            )
        else:
            ci = self.conf_int(alpha)
            for i, name in enumerate(self.model.params):
                bound = self.model.lower[i]
                if math.isfinite(bound) and ci.loc[name, "lower"] < bound and not self.values[i] == bound:
                    out.append(
                        f"the {conf} interval of {PARAM_WORDS.get(name, name)} reaches below {bound:g}, which it "
                        "cannot be: the runs do not pin it down"
                    )
        funcs = self._derived_funcs()
        if "asymptote" in funcs and not math.isfinite(float(funcs["asymptote"](self.values))):
            lo, hi = self.data[self.x].min(), self.data[self.x].max()
            out.append(
                f"the asymptote is infinite (σ = 0): the runs show no limit within {lo:g} to {hi:g} {self.x}, "
                "and the fit names none"
            )
        return out

    def _usl_verdict(self) -> str:
        top = self.data[self.x].max()
        if self.retrograde:
            where = "within" if self.n_peak <= top else "beyond"
            return (
                f"coherency limits scaling (kappa > 0, p = {self.kappa_pvalue:.3g}): throughput peaks at "
                f"{self.x} ≈ {self.n_peak:.3g} ({where} the measured range, max {top:g}) and falls after it"
            )
        if self.params["kappa"] > 0 and np.isfinite(self.n_peak):
            return (
                f"coherency delay not significant (kappa p = {self.kappa_pvalue:.3g}): the point estimate peaks at "
                f"{self.x} ≈ {self.n_peak:.3g} and falls after it, but the data cannot rule out a plateau "
                f"(kappa = 0, throughput approaching λ/σ ≈ {self.asymptote:.4g})"
            )
        return (
            f"no coherency delay (kappa = {self.params['kappa']:.3g}, p = {self.kappa_pvalue:.3g}): no retrograde region; "
            f"throughput approaches about {self.asymptote:.4g}"
        )

    def summary_frame(self, alpha: float = 0.05) -> pd.DataFrame:
        """Parameters and derived values in one tidy frame (one row per term).

        Columns ``term``, ``kind`` (``parameter`` or ``derived``), ``estimate``,
        ``bse``, ``lower``, ``upper`` (the ``1 - alpha`` interval: Student's t
        for the parameters, delta method for the derived values, as
        :meth:`derived` computes them), ``model``, ``nobs`` and ``df_resid``.

        >>> runs = pd.DataFrame({"concurrency": [1, 2, 3, 4], "requests_per_s": [10.0, 20.5, 29.5, 40.0]})
        >>> t = fit_scaling(runs, model="linear").summary_frame()
        >>> t[["term", "kind", "estimate"]].round(3).to_dict("records")  # doctest: +NORMALIZE_WHITESPACE
        [{'term': 'intercept', 'kind': 'parameter', 'estimate': 0.25},
         {'term': 'slope', 'kind': 'parameter', 'estimate': 9.9}]
        """
        ci = self.conf_int(alpha)
        params = pd.DataFrame(
            {"estimate": self.params, "bse": self.bse, "lower": ci["lower"], "upper": ci["upper"]}
        ).assign(kind="parameter")
        derived = self.derived(alpha).astype(float).assign(kind="derived")
        parts = [params, derived] if len(derived) else [params]
        out = pd.concat(parts).rename_axis("term").reset_index()
        out["model"] = self.model.name
        out["nobs"] = self.nobs
        out["df_resid"] = self.df_resid
        return out[["term", "kind", "estimate", "bse", "lower", "upper", "model", "nobs", "df_resid"]]

    def to_dict(self, alpha: float = 0.05) -> dict[str, Any]:
        """Everything as plain JSON-serialisable values (non-finite → None).

        >>> import json, pandas as pd
        >>> runs = pd.DataFrame({"n": [1, 2, 3], "rps": [1.0, 2.1, 2.9]})
        >>> d = fit_scaling(runs, x="n", y="rps", model="linear").to_dict()
        >>> sorted(d)[:4], len(json.dumps(d)) > 0
        (['aic', 'alpha', 'bic', 'bse'], True)
        """
        ci = self.conf_int(alpha)
        d = {
            "model": self.model.name,
            "formula": self.model.formula,
            "x": self.x,
            "y": self.y,
            "group": self.group,
            "params": self.params.to_dict(),
            "bse": self.bse.to_dict(),
            "conf_int": {k: [ci.loc[k, "lower"], ci.loc[k, "upper"]] for k in ci.index},
            "alpha": alpha,
            **self._stats(),
            "derived": self.derived(alpha)["estimate"].to_dict(),
            "notes": list(self.notes),
        }
        if self.model.name == "usl":
            d["retrograde"] = self.retrograde
            d["kappa_pvalue"] = self.kappa_pvalue
        return _jsonable(d)

    def to_json(self, **kwargs: Any) -> str:
        return json.dumps(self.to_dict(), allow_nan=False, **kwargs)

    def plot(self, *, band: bool = True, points: bool = True, peak: bool = True, ax: Any = None, **kwargs: Any) -> Any:
        """Draw the runs, the fitted curve, its confidence band and the peak; returns the Axes.

        The same as :func:`lbanalysis.plots.scaling_fit`, drawn by
        :mod:`lbanalysis.drawing` (below the analysis, imported when called so
        that matplotlib loads only to draw; analysis never imports plots).
        """
        from lbanalysis.drawing import scaling_fit

        return scaling_fit(self, band=band, points=points, peak=peak, ax=ax, **kwargs)

    def __repr__(self) -> str:
        p = ", ".join(f"{k}={v:.4g}" for k, v in self.params.items())
        g = "" if self.group is None else f", group={self.group!r}"
        return f"<ScalingFit {self.model.name}: {p}; R²={self.rsquared:.4f}, n={self.nobs}{g}>"

    def _repr_html_(self) -> str:
        return self.summary().as_html()


def _n_peak(p: np.ndarray) -> float:
    sigma, kappa = p[1], p[2]
    return math.sqrt(max(1.0 - sigma, 0.0) / kappa) if kappa > 0 else math.inf


def _asymptote(p: np.ndarray) -> float:
    return p[0] / p[1] if p[1] > 0 else math.inf


def _speedup_limit(p: np.ndarray) -> float:
    return 1.0 / p[1] if p[1] > 0 else math.inf


def _x_peak(p: np.ndarray) -> float:
    n = _n_peak(p)
    return float(_usl(np.array([n]), p)[0]) if math.isfinite(n) else _asymptote(p)


def _delta_se(f: Callable[[np.ndarray], float], p: np.ndarray, cov: np.ndarray) -> float:
    """Standard error of ``f(p)`` by the delta method (central differences)."""
    grad = np.empty(len(p))
    for i in range(len(p)):
        h = 1e-6 * max(abs(p[i]), 1e-8)
        up, down = p.copy(), p.copy()
        up[i] += h
        down[i] = max(down[i] - h, 0.0) if p[i] >= 0 else down[i] - h
        fu, fd = f(up), f(down)
        if not (math.isfinite(fu) and math.isfinite(fd)):
            return float("nan")
        grad[i] = (fu - fd) / (up[i] - down[i])
    return float(math.sqrt(max(grad @ cov @ grad, 0.0)))


# ----------------------------------------------------------- collection ---
class ScalingFits(Mapping):
    """Fits per group (from ``fit_scaling(..., by=...)``): a mapping key → :class:`ScalingFit`.

    ``params`` and ``to_frame()`` summarise all groups in one frame; groups
    whose fit failed (with ``errors="coerce"``) are listed in ``errors`` and
    appear in ``to_frame()`` with their message.
    """

    def __init__(self, fits: dict[Hashable, ScalingFit], errors: dict[Hashable, str], by: list[str]):
        self._fits = fits
        self.errors = errors
        self.by = by

    def __getitem__(self, key: Hashable) -> ScalingFit:
        return self._fits[key]

    def __iter__(self) -> Iterator[Hashable]:
        return iter(self._fits)

    def __len__(self) -> int:
        return len(self._fits)

    def _index(self, keys: list[Hashable]) -> pd.Index:
        if len(self.by) > 1:
            return pd.MultiIndex.from_tuples(keys, names=self.by)
        return pd.Index(keys, name=self.by[0])

    @property
    def params(self) -> pd.DataFrame:
        """One row per group, one column per parameter."""
        keys = list(self._fits)
        return pd.DataFrame([f.params for f in self._fits.values()], index=self._index(keys))

    @property
    def bse(self) -> pd.DataFrame:
        keys = list(self._fits)
        return pd.DataFrame([f.bse for f in self._fits.values()], index=self._index(keys))

    def to_frame(self, alpha: float = 0.05) -> pd.DataFrame:
        """Parameters, standard errors, intervals, fit statistics and derived values per group;
        ``cautions`` says in words what the numbers cannot carry (:meth:`ScalingFit.cautions`)."""
        rows, keys = [], []
        for key, fit in self._fits.items():
            ci = fit.conf_int(alpha)
            row: dict[str, Any] = {"model": fit.model.name}
            for name in fit.model.params:
                row[name] = fit.params[name]
                row[f"{name}_bse"] = fit.bse[name]
                row[f"{name}_lower"] = ci.loc[name, "lower"]
                row[f"{name}_upper"] = ci.loc[name, "upper"]
            row.update(fit._stats())
            row.update(fit.derived(alpha)["estimate"].to_dict())
            if fit.model.name == "usl":
                row["retrograde"] = fit.retrograde
            row["cautions"] = "; ".join(fit.cautions(alpha))
            row["error"] = ""
            rows.append(row)
            keys.append(key)
        for key, msg in self.errors.items():
            rows.append({"error": msg})
            keys.append(key)
        return pd.DataFrame(rows, index=self._index(keys))

    def summary_frame(self, alpha: float = 0.05) -> pd.DataFrame:
        """Every group's :meth:`ScalingFit.summary_frame`, stacked, with the group keys as columns.

        >>> runs = pd.DataFrame({"g": ["a"] * 3 + ["b"] * 3, "concurrency": [1, 2, 3] * 2,
        ...                      "requests_per_s": [10.0, 20.0, 31.0, 5.0, 10.0, 14.0]})
        >>> t = fit_scaling(runs, by="g", model="linear").summary_frame()
        >>> t[["g", "term"]].values.tolist()
        [['a', 'intercept'], ['a', 'slope'], ['b', 'intercept'], ['b', 'slope']]
        """
        frames = []
        for key, fit in self._fits.items():
            keys = key if isinstance(key, tuple) else (key,)
            frame = fit.summary_frame(alpha)
            for name, value in reversed(list(zip(self.by, keys, strict=True))):
                frame.insert(0, name, value)
            frames.append(frame)
        if not frames:
            return pd.DataFrame(columns=[*self.by, "term", "kind", "estimate", "bse", "lower", "upper"])
        return pd.concat(frames, ignore_index=True)

    def summary(self, alpha: float = 0.05) -> FitSummary:
        notes = [f"{k}: {m}" for k, m in self.errors.items()]
        return FitSummary(f"Scaling fits by {', '.join(self.by)}", {"fits": self.to_frame(alpha)}, notes)

    def to_dict(self, alpha: float = 0.05) -> dict[str, Any]:
        fits = {str(k): f.to_dict(alpha) for k, f in self._fits.items()}
        return _jsonable({"by": self.by, "fits": fits, "errors": {str(k): m for k, m in self.errors.items()}})

    def plot(self, *, band: bool = True, points: bool = True, peak: bool = True, ax: Any = None) -> Any:
        """Every group's runs and curve on one Axes, one colour per group."""
        from lbanalysis.drawing import scaling_fit

        for i, (key, fit) in enumerate(self._fits.items()):
            ax = scaling_fit(fit, band=band, points=points, peak=peak, color=f"C{i % 10}", label=str(key), ax=ax)
        return ax

    def __repr__(self) -> str:
        return f"<ScalingFits by {self.by}: {len(self)} fitted, {len(self.errors)} failed>"

    def _repr_html_(self) -> str:
        return self.summary().as_html()


# ---------------------------------------------------------- entry point ---
def fit_scaling(
    runs: pd.DataFrame,
    x: str = "concurrency",
    y: str = "requests_per_s",
    by: str | Sequence[str] | None = None,
    model: str = "usl",
    *,
    errors: Literal["raise", "coerce"] = "raise",
) -> ScalingFit | ScalingFits:
    """Fit throughput ``y`` against load ``x`` with the ``linear``, ``amdahl`` or ``usl`` model.

    Every run is one observation (repeated runs at a load are not averaged);
    rows with a missing ``x`` or ``y`` are left out. A fit that cannot be made
    (fewer distinct loads than parameters + 1, no numbers, loads <= 0 for
    Amdahl/USL, no convergence) raises :class:`~lbanalysis.errors.FitError`.

    With ``by=`` each group is fitted on its own and a :class:`ScalingFits`
    mapping is returned (keys as in ``DataFrame.groupby``); ``errors="coerce"``
    records failing groups in ``.errors`` instead of raising.

    >>> import pandas as pd
    >>> runs = pd.DataFrame({
    ...     "setup": ["a"] * 5 + ["b"] * 5,
    ...     "concurrency": [1, 2, 4, 8, 16] * 2,
    ...     "requests_per_s": [100, 190, 345, 580, 880, 200, 390, 760, 1440, 2600]})
    >>> fits = fit_scaling(runs, by="setup", model="amdahl")
    >>> fits.params.round(3)  # doctest: +NORMALIZE_WHITESPACE
            lambda  sigma
    setup
    a      100.403  0.055
    b      198.539  0.015
    >>> fit_scaling(runs.head(2), model="usl")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    lbanalysis.errors.FitError: the usl model has 3 parameters and needs at least 4 distinct values ...; got 2 (1, 2)
    """
    m = _get_model(model)
    if by is None:
        return _fit_one(runs, x, y, m)
    by_cols = [by] if isinstance(by, str) else list(by)
    fits: dict[Hashable, ScalingFit] = {}
    failed: dict[Hashable, str] = {}
    for key, group in runs.groupby(by_cols if len(by_cols) > 1 else by_cols[0], sort=True, dropna=False):
        try:
            fits[key] = _fit_one(group, x, y, m, group=key)
        except FitError as e:
            if errors == "raise":
                raise
            failed[key] = str(e)
    if not fits and not failed:
        warnings.warn("fit_scaling: no groups to fit (empty frame)", stacklevel=2)
    return ScalingFits(fits, failed, by_cols)
