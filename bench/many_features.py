"""Models of many features: the kernel over the sign classes a model's columns carry (K rows), against the same
model with all 2^(M-1) rows (the tables before, M <= 16) and the numpy peer (bench/numpy_peer.py), in one run.

Usage: python bench/many_features.py [--points 256] [--seconds 2] [--skip-first-step] [--scaling]

Besides the rates: the first step at a new M (a fresh process per M, the kernels' disk cache warm, the time of
the one call that runs a step, the import excluded) and the leading 8 exponents at M = 64 and 128. ``--scaling`` adds
three one-factor series, the other two sizes held at M = 64, L = 16, N_se = 128: M from 8 to 256, L from 4 to
256, N_se from 128 to 4 096 (K = N_se there, up to 2^(M-1)).

A step is one point advanced one iteration, without exponents; the kernel's rate is marginal (between runs of s
and 4s steps, the best of three each), after a warm-up call whose time, compilation included, is printed as
"first call"; the ratio is the kernel's rate over the peer's. The load average is printed before and after.
"""
import argparse
import os
import subprocess
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from numpy_peer import VectorisedPeer  # noqa: E402

import meanfield as mf  # noqa: E402
from meanfield.model import weights as W  # noqa: E402
from meanfield.simulation import simulate_batch  # noqa: E402


def full_tables(model):
    """The same model with all 2^(M-1) rows (zeros where no column carries the pattern)."""
    full = W.sign_patterns(model.n_features)
    index = {tuple(p): j for j, p in enumerate(full)}
    rows = [index[tuple(p)] for p in model.patterns]
    coefficients = {}
    for alpha in W.FEATURES:
        table = np.zeros((len(full), model.n_features))
        table[rows] = model.coefficients[alpha]
        coefficients[alpha] = table
    return mf.ModelSpec(coefficients=coefficients, pe_weights=model.pe_weights, context=model.context,
                        beta_o=model.beta_o, name="full tables")


def starts(model, n, seed=0):
    rng = np.random.default_rng(seed)
    return [mf.State(att=rng.uniform(-0.8, 0.8, (model.context, model.n_features)),
                     pe=rng.choice([-1.0, 1.0], (model.context, model.pe_bits))) for _ in range(n)]


def kernel_rate(model, n_points, seconds, exponents=False):
    """(first call seconds, steps/s): simulate_batch of n_points β_o values, nothing recorded but the end; the
    rate is the marginal one between runs of s and 4s steps (best of three each), so that the start-up (the
    mean fields of the L start rows, as costly as L steps) cancels."""
    betas = np.linspace(0.5, 3.0, n_points)
    start = starts(model, n_points)

    def call(steps):
        t0 = time.perf_counter()
        simulate_batch(model, steps, steps - 1 if not exponents else 0, parameters={"beta_o": betas}, start=start,
                       record=("att",), lyapunov=exponents, compute=mf.Compute(progress=False))
        return time.perf_counter() - t0

    first = call(2)
    steps = 2
    while call(4 * steps) - call(steps) < seconds / 4 and steps < 10 ** 7:
        steps *= 4
    short, long = min(call(steps) for _ in range(3)), min(call(4 * steps) for _ in range(3))
    return first, n_points * 3 * steps / (long - short)


def peer_rate(model, n_points, seconds):
    peer = VectorisedPeer(model, np.linspace(0.5, 3.0, n_points))
    start = starts(model, n_points)
    att = np.stack([s.att for s in start])
    pe = start[0].pe
    steps = 1
    while True:
        t0 = time.perf_counter()
        peer.run(att, pe, steps)
        elapsed = time.perf_counter() - t0
        if elapsed >= seconds / 4 or steps >= 10 ** 6:
            return n_points * steps / elapsed
        steps *= 4


FIRST_STEP = """
import sys, time
import numpy as np
import meanfield as mf
from meanfield.simulation import simulate_batch
model = mf.presets.random(seed=3, n_features=int(sys.argv[1]), semantic_bits=128, context=8, pe_bits=3)
start = mf.State(att=np.full((8, model.n_features), 0.1), pe=np.ones((8, 3)))
t0 = time.perf_counter()
simulate_batch(model, 1, parameters={"beta_o": np.array([1.0])}, start=[start], record=("att",))
print(time.perf_counter() - t0)
"""


def first_step(n_features):
    """Seconds of the first simulate_batch call (one step) in a fresh process at M = n_features."""
    done = subprocess.run([sys.executable, "-c", FIRST_STEP, str(n_features)], capture_output=True, text=True,
                          check=True)
    return float(done.stdout.strip().splitlines()[-1])


#: The one-factor series of ``--scaling``: (the factor, its values); the others stay at SCALING_BASE.
SCALING_BASE = dict(n_features=64, context=16, semantic_bits=128)
SCALING = (("n_features", (8, 16, 32, 64, 128, 256)),
           ("context", (4, 16, 64, 256)),
           ("semantic_bits", (128, 512, 1024, 4096)))


def rate_row(label, model, points, seconds):
    """Print one row: the kernel's rate and the numpy peer's (and the first call, compilation included)."""
    first, rate = kernel_rate(model, points, seconds)
    peer = peer_rate(model, points, seconds)
    print(f"{label:<44} {model.tanh_signs.shape[0]:>6} {first:>12.1f} {rate:>10.3g} {peer:>11.3g} "
          f"{rate / peer:>7.0f}x", flush=True)


def scaling(points, seconds):
    """The three one-factor series of SCALING."""
    for factor, values in SCALING:
        for value in values:
            case = dict(SCALING_BASE, **{factor: value})
            case["pe_bits"] = max(1, (case["context"] - 1).bit_length())
            model = mf.presets.random(seed=7, **case)
            label = f"{factor}: M={case['n_features']} N_se={case['semantic_bits']} L={case['context']}"
            rate_row(label, model, points, seconds)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--points", type=int, default=256)
    ap.add_argument("--seconds", type=float, default=2.0)
    ap.add_argument("--skip-first-step", action="store_true")
    ap.add_argument("--scaling", action="store_true", help="add the one-factor series in M, L and N_se")
    args = ap.parse_args(argv)
    print(f"load average before: {os.getloadavg()}")
    if not args.skip_first_step:
        first_step(20)          # loads (or compiles, once) the run-time-size kernels into the disk cache
        for n_features in (24, 40, 64, 96):
            print(f"first step at M = {n_features} (fresh process, warm cache): {first_step(n_features):.2f} s",
                  flush=True)
    print(f"{'model':<44} {'K':>6} {'first call s':>12} {'steps/s':>10} {'numpy peer':>11} {'ratio':>8}")
    cases = [dict(n_features=3, semantic_bits=128, context=4, pe_bits=2),
             dict(n_features=16, semantic_bits=128, context=8, pe_bits=3),
             dict(n_features=32, semantic_bits=128, context=8, pe_bits=3),
             dict(n_features=64, semantic_bits=128, context=16, pe_bits=4),
             dict(n_features=128, semantic_bits=128, context=16, pe_bits=4),
             dict(n_features=256, semantic_bits=1024, context=16, pe_bits=4)]
    for case in cases:
        model = mf.presets.random(seed=7, **case)
        label = f"M={case['n_features']} N_se={case['semantic_bits']} L={case['context']}"
        rate_row(label + ", sign classes", model, args.points, args.seconds)
        if case["n_features"] in (64, 128):
            first, rate = kernel_rate(model, args.points, args.seconds, exponents=8)
            print(f"{label + ', 8 exponents':<44} {model.tanh_signs.shape[0]:>6} {first:>12.1f} {rate:>10.3g}",
                  flush=True)
        if 3 < case["n_features"] <= 16:
            full = full_tables(model)
            first, rate = kernel_rate(full, args.points, args.seconds)
            print(f"{label + ', all 2^(M-1) rows':<44} {full.tanh_signs.shape[0]:>6} {first:>12.1f} {rate:>10.3g}",
                  flush=True)
    if args.scaling:
        scaling(args.points, args.seconds)
    print(f"load average after: {os.getloadavg()}")


if __name__ == "__main__":
    main()
