"""Attractor classification against textbook ground truth, and its cost per point.

Usage: python bench/classify.py [--lengths 20000 200000] [--no-fig3] [--peer COMMIT]

1. The benchmark of tests/analysis/textbook.py (maps with known attractors, each label from the literature):
   every case at every length, from the series alone and with its Lyapunov exponents. Prints the confusion
   table (truth × label; a periodic label with the wrong period counts as wrong), then the same for every
   bounded case under the affine changes x -> a + b x of textbook.TRANSFORMS with the labels that changed,
   the wrong and the unresolved cases, and the unresolved fraction.
2. Evidence cost: seconds per point of the measurement a sweep's workers run (meanfield.analysis.evidence.measure) at
   2e4 and 1e5 samples, on a chaotic, a quasi-periodic and a periodic series, with and without exponents; with
   --peer, the same for the analysis package of another commit, in the same run (ratios: the machine is shared).
3. The quick Figure 3 sweep (runs/paper_fig3_quick.toml: 401 β_o on [0, 3], 20 000 steps, 10 000 transient,
   12 exponents, from the checkpoint) simulated here in one batch and classified: the class fractions.
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from collections import Counter

import numpy as np

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
sys.path.insert(0, ROOT)
from meanfield.analysis import LABELS, classify  # noqa: E402
from meanfield.analysis.classify import Classification  # noqa: E402
from meanfield.errors import AnalysisError  # noqa: E402
from tests.analysis import textbook  # noqa: E402


def run_benchmark(lengths, cases):
    rows = []
    for n in lengths:
        for case in cases:
            y = textbook.series(case, n)
            lam, se = textbook.exponents(case, n)
            for with_exp in (False, True):
                start = time.perf_counter()
                try:
                    out = classify(y, lam if with_exp else None, se if with_exp else None)
                except AnalysisError as exc:  # finite or divergent input must get a label: counted as wrong
                    out = Classification("raised", None, str(exc), {})
                rows.append((case, n, with_exp, out, time.perf_counter() - start))
    return rows


def confusion(rows):
    truths = [t for t in LABELS if any(r[0].truth == t for r in rows)]
    columns = LABELS + ("raised",)
    counts = Counter((r[0].truth, r[3].label) for r in rows)
    width = max(len(t) for t in LABELS) + 2
    lines = ["truth \\ label".ljust(width) + "".join(label[:10].rjust(11) for label in columns)]
    for t in truths:
        lines.append(t.ljust(width) + "".join(str(counts[(t, label)] or ".").rjust(11) for label in columns))
    return "\n".join(lines)


def peer_analysis(commit: str):
    """The ``meanfield.analysis`` package of another commit, importable side by side as ``peer_analysis`` (its
    absolute imports renamed), for timing the evidence of the classifier before a change in the same run."""
    import importlib
    import subprocess
    import tempfile
    target = os.path.join(tempfile.mkdtemp(), "peer_analysis")
    os.makedirs(target)
    files = subprocess.run(["git", "ls-tree", "--name-only", f"{commit}:meanfield/analysis"], cwd=ROOT,
                           capture_output=True, text=True, check=True).stdout.split()
    for name in (f for f in files if f.endswith(".py")):
        text = subprocess.run(["git", "show", f"{commit}:meanfield/analysis/{name}"], cwd=ROOT, capture_output=True,
                              text=True, check=True).stdout
        with open(os.path.join(target, name), "w") as out:
            out.write(text.replace("meanfield.analysis", "peer_analysis"))
    sys.path.insert(0, os.path.dirname(target))
    return importlib.import_module("peer_analysis.classify")


def evidence_cost(lengths=(20_000, 100_000), repeats=3, peer=None):
    """Best-of-3 seconds of measure() per point (what a sweep's worker spends on one point's evidence), and of
    the ``peer`` classifier's measure() (another commit's, :func:`peer_analysis`) on the same series."""
    from meanfield.analysis import Thresholds
    from meanfield.analysis.evidence import measure
    names = {"chaotic (henon a=1.4)": "henon a=1.4 chaos",
             "quasi-periodic (circle K=0.5)": "circle K=0.5 golden rotation",
             "periodic (logistic r=3.83)": "logistic r=3.83 period 3"}
    cases = {c.name: c for c in textbook.CASES}
    out = []
    for n in lengths:
        for kind, name in names.items():
            y = np.ascontiguousarray(textbook.series(cases[name], n))
            lam, se = textbook.exponents(cases[name], n)
            for with_exp in (False, True):
                args = (y, lam if with_exp else None, se if with_exp else None, 0, 1 % y.shape[1])
                timings = []
                for fn, th in ((measure, Thresholds()),) + (((peer.measure, peer.Thresholds()),) if peer else ()):
                    best = np.inf
                    for _ in range(repeats):
                        start = time.perf_counter()
                        fn(*args, th)
                        best = min(best, time.perf_counter() - start)
                    timings.append(best)
                out.append((n, kind, with_exp, timings))
    return out


def fig3_quick():
    from meanfield.presets import paper
    from meanfield.simulation import simulate_batch
    betas = np.linspace(0.0, 3.0, 401)
    res = simulate_batch(paper(), 20_000, 10_000, parameters={"beta_o": betas}, lyapunov=True, record=("mo_se",))
    # the positional encoding (period L = 4) forces the map: forcing_period=4 (docs/classification.md §2)
    labels = [classify(res.records["mo_se"][i], res.lyapunov[i], res.lyapunov_stderr[i], forcing_period=4).label
              for i in range(betas.size)]
    return betas, labels


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--lengths", type=int, nargs="+", default=[20_000, 200_000])
    parser.add_argument("--no-fig3", action="store_true")
    parser.add_argument("--peer", metavar="COMMIT", help="also time the evidence of meanfield.analysis at COMMIT "
                        "(e.g. the commit before the classifier changed) on the same series")
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.2f} ({os.cpu_count()} cores)")
    rows = run_benchmark(args.lengths, textbook.CASES)
    print(f"\n{len(textbook.CASES)} cases x {len(args.lengths)} lengths x (series alone, with exponents) = "
          f"{len(rows)} classifications\n")
    print(confusion(rows))
    scaled = run_benchmark(args.lengths, textbook.SCALED_CASES)
    base = {(r[0].name, r[1], r[2]): (r[3].label, r[3].period) for r in rows}
    changed = [r for r in scaled if (r[3].label, r[3].period) != base[r[0].name.split(" [x -> ")[0], r[1], r[2]]]
    print(f"\nthe bounded cases under x -> a + b x, (a, b) in {textbook.TRANSFORMS}: {len(scaled)} "
          f"classifications, {len(changed)} labels changed")
    for case, n, with_exp, out, _ in changed:
        print(f"  {case.name:60s} n={n:<7d} {'exp' if with_exp else 'ser'}  {out.label}: {out.reason}")
    print(confusion(scaled))
    rows += scaled
    wrong = [r for r in rows if r[3].label != "unresolved"
             and not textbook.is_correct(r[0], r[3].label, r[3].period, r[2])]
    unresolved = [r for r in rows if r[3].label == "unresolved"]
    for title, group in (("wrong", wrong), ("unresolved", unresolved)):
        print(f"\n{title}: {len(group)}")
        for case, n, with_exp, out, _ in group:
            print(f"  {case.name:45s} n={n:<7d} {'exp' if with_exp else 'ser'}  {out.label}"
                  f"{'' if out.period is None else f'({out.period})'}: {out.reason}")
    for n in args.lengths:
        sub = [r for r in rows if r[1] == n]
        print(f"n = {n}: wrong {sum(r in wrong for r in sub)}, unresolved "
              f"{sum(r in unresolved for r in sub) / len(sub):.1%}, "
              f"classify {np.mean([r[4] for r in sub]) * 1e3:.1f} ms/case")
    print(f"total: wrong {len(wrong)} / {len(rows)}, unresolved fraction {len(unresolved) / len(rows):.1%}")
    peer = peer_analysis(args.peer) if args.peer else None
    peer_note = f"; peer = meanfield.analysis at {args.peer}" if peer else ""
    print(f"\nevidence cost per point (measure(), best of 3){peer_note}:")
    for n, kind, with_exp, timings in evidence_cost(peer=peer):
        line = f"  n = {n:<7d} {kind:32s} {'with' if with_exp else 'without':7s} exponents {timings[0] * 1e3:8.1f} ms"
        if peer:
            line += f"   peer {timings[1] * 1e3:8.1f} ms   ratio {timings[0] / timings[1]:5.2f}"
        print(line)
    if not args.no_fig3:
        betas, labels = fig3_quick()
        counts = Counter(labels)
        print("\nquick Figure 3 (401 beta_o, 20000 steps, 10000 transient, 12 exponents): "
              + ", ".join(f"{k} {v / len(labels):.1%}" for k, v in counts.most_common()))


if __name__ == "__main__":
    main()
