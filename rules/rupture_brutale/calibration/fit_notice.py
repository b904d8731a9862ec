"""Calibrate the judge's notice on court decisions with Pyro (SVI), offline; write the law into weights.yaml.

Model: ln(months) = a + b·ln(years) + σ·ε, priors a ~ N(0, 1.5), b ~ N(0.7, 0.5), ln σ ~ N(-0.5, 0.7);
guide: a full-covariance Gaussian over (a, b, ln σ) (AutoMultivariateNormal), fitted by SVI (Trace_ELBO).
The posterior mean and covariance are stored in ``weights.yaml`` (numbers.judge_notice_months); the
engine draws (a, b, ln σ) from it per world, so the parameters' uncertainty reaches the verdict.
Leave-one-out: refit without each decision and check whether it falls inside the 80 % predictive
interval (p10–p90) of the others' fit; the coverage is printed (and reported in notes/issue-15.md).

Issue 31: only the rows marked ``fit`` are fitted; the ``holdout`` rows (every third) measure the band.
The deterministic range of the pack (computations.yaml, C_reasonable_low/high) is derived from this law:
its median ``notice_law_scale · years ^ notice_law_exponent`` and a constant-spread 10 %–90 % band
(``notice_band_low_factor``, ``notice_band_high_factor``: the mean over 2–40 years of the predictive
p10/p50 and p90/p50 ratios); ``--write`` stores them in parameters.yaml with the law in weights.yaml.

Run: .venv/bin/python rules/rupture_brutale/calibration/fit_notice.py [--write]
"""

from __future__ import annotations

import argparse
import csv
import math
import re
from pathlib import Path

import pyro
import pyro.distributions as dist
import torch
from pyro.infer import SVI, Trace_ELBO
from pyro.infer.autoguide import AutoMultivariateNormal
from pyro.optim import Adam

HERE = Path(__file__).resolve().parent
WEIGHTS = HERE.parent / "weights.yaml"
PARAMETERS = HERE.parent / "parameters.yaml"


def load(split: str | None = "fit") -> tuple[torch.Tensor, torch.Tensor]:
    """The decisions of one split (``fit`` / ``holdout``), or all of them (None)."""
    rows = [
        r for r in csv.DictReader(line for line in (HERE / "caselaw_notice.csv").open() if not line.startswith("#"))
    ]
    rows = [r for r in rows if split is None or r.get("split", "fit") == split]
    years = torch.tensor([float(r["years"]) for r in rows], dtype=torch.float64)
    months = torch.tensor([float(r["months"]) for r in rows], dtype=torch.float64)
    return years, months


def band(mean: list[float], cov: list[list[float]]) -> tuple[float, float, float, float]:
    """(scale, exponent, low factor, high factor): the median e^a · y^b and the mean p10/p50, p90/p50."""
    lows, highs = [], []
    for y in (2, 3, 5, 8, 12, 20, 30, 40):
        q = torch.quantile(predictive(mean, cov, y), torch.tensor([0.1, 0.5, 0.9], dtype=torch.float64))
        lows.append(math.log(float(q[0] / q[1])))
        highs.append(math.log(float(q[2] / q[1])))
    return math.exp(mean[0]), mean[1], math.exp(sum(lows) / len(lows)), math.exp(sum(highs) / len(highs))


def write_parameters(scale: float, exponent: float, low: float, high: float) -> None:
    text = PARAMETERS.read_text(encoding="utf-8")
    for name, value in (
        ("notice_law_scale", scale),
        ("notice_law_exponent", exponent),
        ("notice_band_low_factor", low),
        ("notice_band_high_factor", high),
    ):
        text, k = re.subn(
            rf"(  {name}:\n(?:    .*\n)*?      - \{{value: )[0-9.]+(\}})", rf"\g<1>{value:.4f}\g<2>", text
        )
        if k != 1:
            raise SystemExit(f"parameters.yaml: {name} not found")
    PARAMETERS.write_text(text, encoding="utf-8")


def model(ly: torch.Tensor, lm: torch.Tensor | None = None) -> None:
    a = pyro.sample("a", dist.Normal(torch.tensor(0.0, dtype=torch.float64), 1.5))
    b = pyro.sample("b", dist.Normal(torch.tensor(0.7, dtype=torch.float64), 0.5))
    ls = pyro.sample("log_sigma", dist.Normal(torch.tensor(-0.5, dtype=torch.float64), 0.7))
    with pyro.plate("decisions", ly.shape[0]):
        pyro.sample("ln_months", dist.Normal(a + b * ly, torch.exp(ls)), obs=lm)


def fit(
    years: torch.Tensor, months: torch.Tensor, steps: int = 3000, seed: int = 0
) -> tuple[list[float], list[list[float]]]:
    pyro.clear_param_store()
    pyro.set_rng_seed(seed)
    ly, lm = torch.log(years), torch.log(months)
    guide = AutoMultivariateNormal(model)
    svi = SVI(model, guide, Adam({"lr": 0.02}), Trace_ELBO())
    for _ in range(steps):
        svi.step(ly, lm)
    post = guide.get_posterior()  # MultivariateNormal over (a, b, log_sigma), in that order
    loc = post.loc.detach()
    cov = post.covariance_matrix.detach()
    return [float(x) for x in loc], [[float(x) for x in row] for row in cov]


def predictive(mean: list[float], cov: list[list[float]], years: float, n: int = 20000, seed: int = 0) -> torch.Tensor:
    g = torch.Generator().manual_seed(seed)
    mvn = torch.distributions.MultivariateNormal(
        torch.tensor(mean, dtype=torch.float64), torch.tensor(cov, dtype=torch.float64)
    )
    z = mvn.sample((n,))
    eps = torch.randn(n, generator=g, dtype=torch.float64)
    return torch.exp(z[:, 0] + z[:, 1] * math.log(years) + torch.exp(z[:, 2]) * eps)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--write", action="store_true", help="store the fitted law in weights.yaml")
    ap.add_argument("--no-loo", action="store_true", help="skip the leave-one-out refits (slow on a loaded machine)")
    args = ap.parse_args()
    years, months = load("fit")
    mean, cov = fit(years, months)
    print(f"{len(years)} decisions fitted (split 'fit')")
    print(f"a = {mean[0]:.3f}, b = {mean[1]:.3f}, sigma = {math.exp(mean[2]):.3f} (posterior means, SVI)")
    scale, exponent, low, high = band(mean, cov)
    print(f"band: median {scale:.3f} · years^{exponent:.3f}, p10 = median × {low:.3f}, p90 = median × {high:.3f}")
    hy, hm = load("holdout")
    inside_h = sum(
        1 for y, m in zip(hy.tolist(), hm.tolist()) if scale * y**exponent * low <= m <= scale * y**exponent * high
    )
    print(f"held-out decisions inside the band (before the pack's caps and floors): {inside_h}/{len(hy)}")
    for y in (2, 5, 10, 20, 40):
        q = torch.quantile(predictive(mean, cov, y), torch.tensor([0.1, 0.5, 0.9], dtype=torch.float64))
        print(f"  {y:>2} years: p10 {q[0]:.1f}  p50 {q[1]:.1f}  p90 {q[2]:.1f} months")
    inside = 0
    for i in range(0 if args.no_loo else len(years)):
        keep = [j for j in range(len(years)) if j != i]
        m_i, c_i = fit(years[keep], months[keep], steps=2000, seed=i)
        q = torch.quantile(predictive(m_i, c_i, float(years[i])), torch.tensor([0.1, 0.9], dtype=torch.float64))
        hit = bool(q[0] <= months[i] <= q[1])
        inside += hit
        print(
            f"  LOO {float(years[i]):>4} y → {float(months[i]):>4} m: 80% interval [{q[0]:.1f}, {q[1]:.1f}] {'in' if hit else 'OUT'}"
        )
    if not args.no_loo:
        print(f"leave-one-out coverage of the 80% interval: {inside}/{len(years)}")
    if args.write:
        text = WEIGHTS.read_text(encoding="utf-8")
        block = (
            f"    mean: [{mean[0]:.5f}, {mean[1]:.5f}, {mean[2]:.5f}]\n"
            f"    cov: [{', '.join('[' + ', '.join(f'{x:.6f}' for x in row) + ']' for row in cov)}]\n"
        )
        new, k = re.subn(r"    mean: \[.*?\]\n    cov: \[.*?\]\]\n", block, text, flags=re.S)
        if k != 1:
            raise SystemExit("weights.yaml: numbers.judge_notice_months.mean/cov not found")
        WEIGHTS.write_text(new, encoding="utf-8")
        write_parameters(scale, exponent, low, high)
        print(f"written to {WEIGHTS} and {PARAMETERS}")


if __name__ == "__main__":
    main()
