"""How the rest cycle's crossover closes as the positional term ε goes to zero (docs/onset.md §4.3).

For a few random-preset models with a crossover at the preset's ε = 0.02, the closest approach 1 − max|μ| of
the rest cycle is located (meanfield.studies.onset.rest_stability) at ε = 0.01, 0.014, 0.02, 0.028, and the
exponent of closest approach ∝ ε^k is fitted by least squares on the logarithms (its standard error from the
fit's residuals). At ε = 0 the same models have a branch point (a symmetric pitchfork) near the crossover.

    python analysis/crossover_imperfection.py
"""
import numpy as np

import meanfield as mf
from meanfield.studies.onset import rest_stability

MODELS = [(12, 4, 2), (4, 8, 3), (6, 4, 7), (8, 8, 0), (32, 16, 3), (64, 8, 0)]   # (M, L, seed)
EPSILONS = np.array([0.01, 0.014, 0.02, 0.028])


def model(n_features, context, seed, epsilon):
    return mf.presets.random(seed=seed, n_features=n_features, semantic_bits=128, context=context,
                             pe_bits=max(2, (context - 1).bit_length()), epsilon=epsilon)


def main():
    print("| M | L | seed | branch point at ε = 0 | crossover at ε = 0.02 | closest approach at ε = 0.01 … 0.028 "
          "| exponent k |")
    print("|---|---|---|---|---|---|---|")
    for m, c, s in MODELS:
        symmetric = rest_stability(model(m, c, s, 0.0), (0.25, 8.0))
        found = [rest_stability(model(m, c, s, eps), (0.25, 8.0)) for eps in EPSILONS]
        gaps = np.array([f.closest_approach for f in found])
        ok = np.isfinite(gaps)
        fit = np.polyfit(np.log(EPSILONS[ok]), np.log(gaps[ok]), 1, cov=True) if ok.sum() > 2 else None
        exponent = f"{fit[0][0]:.2f} ± {np.sqrt(fit[1][0, 0]):.2f}" if fit is not None else "—"
        print(f"| {m} | {c} | {s} | {symmetric.onset:.4f} ({symmetric.kind}) | {found[2].crossover:.4f} | "
              + ", ".join(f"{g:.2e}" for g in gaps) + f" | {exponent} |", flush=True)


if __name__ == "__main__":
    main()
