"""The classification benchmark (tests/analysis/textbook.py): textbook attractors with labels from the
literature, at 2e4 and 2e5 samples, from the series alone and with Lyapunov exponents, and the same attractors
under affine changes of the observable (offsets and scales). No label may be wrong (a periodic label needs the
right period), at most 5 % may be ``unresolved``, and an offset or a scale changes no label.
bench/classify.py prints the confusion table of the same cases."""

import pytest

from meanfield.analysis import classify

from .textbook import CASES, SCALED_CASES, exponents, is_correct, series


def _labels(cases, n):
    out = {}
    for case in cases:
        y = series(case, n)
        lam, se = exponents(case, n)
        for with_exp in (False, True):
            out[case.name, with_exp] = classify(y, lam if with_exp else None, se if with_exp else None)
    return out


# ~300 attractors x 2 classifications per length: CI, not the fast loop (test_classify.py covers classify there)
@pytest.mark.slow
@pytest.mark.parametrize("n", [20_000, 200_000])
def test_benchmark_has_no_wrong_label_few_unresolved_and_no_change_under_offset_or_scale(n):
    cases = CASES + SCALED_CASES
    labels = _labels(cases, n)
    wrong, unresolved = [], []
    for case in cases:
        for with_exp in (False, True):
            out = labels[case.name, with_exp]
            where = f"{case.name} ({'with' if with_exp else 'without'} exponents)"
            if out.label == "unresolved":
                unresolved.append(f"{where}: {out.reason}")
            elif not is_correct(case, out.label, out.period, with_exp):
                wrong.append(f"{where}: {out.label} {out.period}: {out.reason}")
    def unchanged(case, w):
        base = labels[case.name.split(" [x -> ")[0], w]
        return (labels[case.name, w].label, labels[case.name, w].period) == (base.label, base.period)
    changed = [f"{case.name} ({w}): {labels[case.name, w].label}" for case in SCALED_CASES for w in (False, True)
               if not unchanged(case, w)]
    assert len(CASES) >= 70 and len(SCALED_CASES) >= 3 * 60
    assert not wrong, "\n".join(wrong)
    assert len(unresolved) <= 0.05 * len(labels), "\n".join(unresolved)
    assert not changed, "\n".join(changed)
