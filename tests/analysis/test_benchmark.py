"""The classification benchmark (tests/analysis/textbook.py): textbook attractors with labels from the
literature, at 2e4 and 2e5 samples, from the series alone and with Lyapunov exponents. No label may be wrong
(a periodic label needs the right period) and at most 5 % may be ``unresolved``. bench/classify.py prints the
confusion table of the same cases."""

import pytest

from meanfield.analysis import classify

from .textbook import CASES, exponents, is_correct, series


# 65 attractors x 2 classifications: CI, not the fast loop (test_classify.py covers classify there)
@pytest.mark.slow
@pytest.mark.parametrize("n", [20_000, 200_000])
def test_benchmark_has_no_wrong_label_and_few_unresolved(n):
    wrong, unresolved, total = [], [], 0
    for case in CASES:
        y = series(case, n)
        lam, se = exponents(case, n)
        for with_exp in (False, True):
            out = classify(y, lam if with_exp else None, se if with_exp else None)
            total += 1
            if out.label == "unresolved":
                unresolved.append(f"{case.name} ({'with' if with_exp else 'without'} exponents): {out.reason}")
            elif not is_correct(case, out.label, out.period, with_exp):
                wrong.append(f"{case.name} ({'with' if with_exp else 'without'} exponents): {out.label} "
                             f"{out.period}: {out.reason}")
    assert len(CASES) >= 40
    assert not wrong, "\n".join(wrong)
    assert len(unresolved) <= 0.05 * total, "\n".join(unresolved)
