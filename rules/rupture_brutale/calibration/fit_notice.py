"""Calibrate the judge's notice on court decisions with Pyro (SVI), offline; write the law into weights.yaml.

Model: ln(months) = a + b·ln(years) + σ·ε, priors a ~ N(0, 1.5), b ~ N(0.7, 0.5), ln σ ~ N(-0.5, 0.7);
guide: a full-covariance Gaussian over (a, b, ln σ) (AutoMultivariateNormal), fitted by SVI (Trace_ELBO).
The posterior mean and covariance are stored in ``weights.yaml`` (numbers.judge_notice_months); the
engine draws (a, b, ln σ) from it per world, so the parameters' uncertainty reaches the verdict.
Leave-one-out: refit without each decision and check whether it falls inside the 80 % predictive
interval (p10–p90) of the others' fit; the coverage is printed (and reported in notes/issue-15.md).

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


def load() -> tuple[torch.Tensor, torch.Tensor]:
    rows = [
        r for r in csv.DictReader(line for line in (HERE / "caselaw_notice.csv").open() if not line.startswith("#"))
    ]
    years = torch.tensor([float(r["years"]) for r in rows], dtype=torch.float64)
    months = torch.tensor([float(r["months"]) for r in rows], dtype=torch.float64)
    return years, months


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
    args = ap.parse_args()
    years, months = load()
    mean, cov = fit(years, months)
    print(f"a = {mean[0]:.3f}, b = {mean[1]:.3f}, sigma = {math.exp(mean[2]):.3f} (posterior means, SVI)")
    for y in (2, 5, 10, 20, 40):
        q = torch.quantile(predictive(mean, cov, y), torch.tensor([0.1, 0.5, 0.9], dtype=torch.float64))
        print(f"  {y:>2} years: p10 {q[0]:.1f}  p50 {q[1]:.1f}  p90 {q[2]:.1f} months")
    inside = 0
    for i in range(len(years)):
        keep = [j for j in range(len(years)) if j != i]
        m_i, c_i = fit(years[keep], months[keep], steps=2000, seed=i)
        q = torch.quantile(predictive(m_i, c_i, float(years[i])), torch.tensor([0.1, 0.9], dtype=torch.float64))
        hit = bool(q[0] <= months[i] <= q[1])
        inside += hit
        print(
            f"  LOO {float(years[i]):>4} y → {float(months[i]):>4} m: 80% interval [{q[0]:.1f}, {q[1]:.1f}] {'in' if hit else 'OUT'}"
        )
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
        print(f"written to {WEIGHTS}")


if __name__ == "__main__":
    main()
