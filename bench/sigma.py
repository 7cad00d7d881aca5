"""Steps per second of the sigma model (docs/model.md §10): the kernels against the reference's own
``HopfieldSelfAttentionNNMFInfNPESigma`` in the same run, interleaved.

The reference runs in its own environment (numpy 1.26.1, autograd 1.7.0) as a child process of this script
(``--peer`` mode, which imports only the reference). Its exponents need autograd to differentiate its step,
which fails as published (docs/model.md §10.3); the peer binds the module's numpy to autograd's for that, as
the fixtures do (tests/data/sigma/make_sigma_fixtures.py).

Run: python bench/sigma.py --reference REFERENCE_CHECKOUT --reference-python PYTHON
"""
import argparse
import contextlib
import io
import json
import os
import subprocess
import sys
import time

PARAMETERS = dict(beta_o=2.0, gamma=10.0, epsilon=0.5)       # a mild point of the default configuration
REFERENCE_STEPS = {False: 4000, True: 300}


def reference_peer(checkout, with_exponents):
    """Seconds per step of the reference's simulate (one β), printed as JSON."""
    sys.path.insert(0, checkout)
    import autograd.numpy as anp
    import models.HopfieldSelfAttentionNNMFInfNPESigma as sigma_module
    from models.Embedding import Embedding
    vocab = Embedding(0, 2)
    vocab.initialize_pos_encoder()
    steps = REFERENCE_STEPS[with_exponents]
    transient = 10 if with_exponents else 0
    with contextlib.redirect_stdout(io.StringIO()):
        model = sigma_module.HopfieldSelfAttentionNNMFInfNPESigma(
            PARAMETERS["beta_o"], PARAMETERS["gamma"], num_feat_patterns=4, num_feat_patterns_se=3,
            positional_embedding_bitsize=2, vocab=vocab, context_size=4, max_sim_steps=steps,
            min_saved_step=transient, epsilon_pe=PARAMETERS["epsilon"])
        model.reset_data()
        if with_exponents:
            sigma_module.np = anp
        start = time.process_time()
        model.simulate(0, max_steps=steps, compute_lyapunov=with_exponents)
        elapsed = time.process_time() - start
    print(json.dumps({"seconds_per_step": elapsed / steps}))


def ours(points, steps, exponents):
    """Steps per CPU-second of the kernels over ``points`` β values (``exponents`` leading exponents)."""
    import numpy as np

    import meanfield as mf
    model = mf.presets.sigma(**PARAMETERS)
    betas = np.linspace(1.0, 3.0, points)
    kw = dict(parameters={"beta_o": betas}, lyapunov=exponents or False, record=("mo_se",),
              compute=mf.Compute(progress=False))
    start_state = mf.simulate(model, 8).final_state            # a full window, as exponents need
    mf.simulate_batch(model, 20, 10, start=start_state, **kw)  # compile
    start = time.process_time()
    mf.simulate_batch(model, steps, steps // 2, start=start_state, **kw)
    return points * steps / (time.process_time() - start)


def peer(args, with_exponents):
    command = [args.reference_python, os.path.abspath(__file__), "--peer", "--reference", args.reference]
    if with_exponents:
        command.append("--exponents")
    done = subprocess.run(command, capture_output=True, text=True, check=True)
    return 1.0 / json.loads(done.stdout.strip().splitlines()[-1])["seconds_per_step"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reference", required=True, help="checkout of muxitox/Dynamical-MF-Self-Attention")
    parser.add_argument("--reference-python", default=sys.executable)
    parser.add_argument("--peer", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--exponents", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    if args.peer:
        return reference_peer(args.reference, args.exponents)
    print(f"load average before: {os.getloadavg()}")
    rows = []
    for repeat in range(args.repeats):
        for exponents in (0, 16):
            ref = peer(args, exponents > 0)
            one = ours(1, 20000 if exponents else 200000, exponents)
            batch = ours(1024, 2000 if exponents else 20000, exponents)
            rows.append((repeat, exponents, ref, one, batch))
            print(f"repeat {repeat} exponents {exponents:2d}: reference {ref:9.3g} steps/s, kernel 1 point "
                  f"{one:9.3g} ({one / ref:7.3g}x), 1024 points {batch:9.3g} ({batch / ref:7.3g}x) per CPU-s",
                  flush=True)
    print(f"load average after: {os.getloadavg()}")


if __name__ == "__main__":
    main()
