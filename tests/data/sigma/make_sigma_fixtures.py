"""Make the sigma-model fixtures of this folder by running the reference implementation's own code.

Usage (in a scratch environment with the reference's requirements, numpy 1.26.1 and autograd 1.7.0)::

    python make_sigma_fixtures.py REFERENCE_CHECKOUT OUTPUT_DIR

REFERENCE_CHECKOUT is muxitox/Dynamical-MF-Self-Attention at 65804c8 (at least ``utils.py`` and ``models/``).
Its class ``HopfieldSelfAttentionNNMFInfNPESigma`` always takes its orders from
``set_orders_manually_4_duplicity_loop_4``; every other configuration is run by rebinding that name in the
class's module to the configuration's own function (or to one returning explicit orders and W). Nothing
else of the reference is changed for trajectories.

The reference's Lyapunov path cannot run as published (its semantic update calls ``np.tanh`` on autograd's
traced values). For Jacobians and exponents the module's ``np`` is bound to ``autograd.numpy`` during the
call, which leaves every forward value bit-identical (checked below) and lets autograd differentiate the
reference's own ``_step``; central finite differences of the unmodified step (h = 1e-7) are stored beside
it as an independent check. ReLU kinks (the PE term is exactly 0 for half the rows) get autograd's
balanced derivative 1/2, which is also what a central difference gives.
"""
import contextlib
import io
import sys
from pathlib import Path

import numpy as np

REFERENCE, OUT = Path(sys.argv[1]), Path(sys.argv[2])
sys.path.insert(0, str(REFERENCE))

import autograd.numpy as anp  # noqa: E402
import models.HopfieldSelfAttentionNNMFInfNPESigma as sigma_module  # noqa: E402
import models.sigma_configs as configs  # noqa: E402
from models.Embedding import Embedding  # noqa: E402

STEPS = 40
STATS = ("att", "mo", "mo_se", "mv", "mq", "mk", "m_tilde", "m_tilde_proj", "m_pos")
# name -> (configuration function, K = num_feat_patterns, M = num_feat_patterns_se)
CONFIGURATIONS = {
    "3_no_duplicity": (lambda self, ini_m_idx=None: configs.set_orders_manually_3_no_duplicity(self), 3, 3),
    "4_duplicity_loop_1": (configs.set_orders_manually_4_duplicity_loop_1, 4, 3),
    "4_duplicity_loop_2": (configs.set_orders_manually_4_duplicity_loop_2, 4, 3),
    "4_duplicity_loop_3": (configs.set_orders_manually_4_duplicity_loop_3, 4, 3),
    "4_duplicity_loop_4": (configs.set_orders_manually_4_duplicity_loop_4, 4, 3),
    "4_duplicity_loop_no_pe": (configs.set_orders_manually_4_duplicity_loop_no_pe, 4, 3),
    "4_no_duplicity": (configs.set_orders_manually_4_no_duplicity, 4, 4),
    "4_cycle_0_1_2_1": (configs.set_orders_manually_4_cycle_0_1_2_1, 4, 3),
    "6_duplicity_loop": (configs.set_orders_manually_6_duplicity_loop, 6, 4),
}
# (beta_o, gamma, epsilon_pe): the script's values, the constructor's default epsilon, milder ones
PARAMETERS = [(100.0, 100.0, 0.5), (100.0, 100.0, 0.95), (2.0, 10.0, 0.5), (5.0, 40.0, 0.2)]
EXTRA = {"4_duplicity_loop_no_pe": [(5.0, 40.0, 0.0)]}      # its authors: "set epsilon_pe to 0"


def build(orders_function, n_patterns, n_base, pe_bits, context, beta_o, gamma, epsilon, steps, saved_from=0):
    sigma_module.set_orders_manually_4_duplicity_loop_4 = orders_function
    vocab = Embedding(0, pe_bits)
    vocab.initialize_pos_encoder()
    with contextlib.redirect_stdout(io.StringIO()):
        model = sigma_module.HopfieldSelfAttentionNNMFInfNPESigma(
            beta_o, gamma, num_feat_patterns=n_patterns, num_feat_patterns_se=n_base,
            positional_embedding_bitsize=pe_bits, vocab=vocab, context_size=context, max_sim_steps=steps,
            min_saved_step=saved_from, epsilon_pe=epsilon, seed_W=0, jacobian=True)
    model.reset_data()
    return model


def run(model, start_index, steps, lyapunov=False):
    with contextlib.redirect_stdout(io.StringIO()):
        model.simulate(start_index, max_steps=steps, compute_lyapunov=lyapunov)
    return {name: np.array(model.mf_statistics[name]) for name in STATS}


@contextlib.contextmanager
def traced():
    """The module's numpy replaced by autograd's (forward values unchanged), so autograd can trace it."""
    sigma_module.np = anp
    try:
        yield
    finally:
        sigma_module.np = np


def jacobians(model, state):
    model.effective_context_size = model.context_size
    model.t = 0
    forward = model._step(state.copy())
    with traced():
        from autograd import jacobian
        again = model._step(state.copy())
        autodiff = jacobian(model._step)(state.copy())
    assert np.array_equal(forward, again), "binding autograd.numpy changed a forward value"
    h = 1e-7
    fd = np.zeros_like(autodiff)
    for i in range(state.size):
        plus, minus = state.copy(), state.copy()
        plus[i] += h
        minus[i] -= h
        fd[:, i] = (model._step(plus) - model._step(minus)) / (2 * h)
    return forward, autodiff, fd


def trajectories(name, orders_function, n_patterns, n_base):
    out = {}
    cases = [(p, idx) for p in PARAMETERS + EXTRA.get(name, []) for idx in (0, 1)]
    for i, ((beta_o, gamma, epsilon), start_index) in enumerate(cases):
        model = build(orders_function, n_patterns, n_base, 2, 4, beta_o, gamma, epsilon, STEPS)
        stats = run(model, start_index, STEPS)
        out[f"run{i}_parameters"] = np.array([beta_o, gamma, epsilon, start_index])
        out[f"run{i}_orders_B"] = model.orders_B
        out[f"run{i}_W"] = model.W
        out[f"run{i}_orders_P"] = np.einsum("ckm,m->ck", model.P_alpha, np.arange(n_base))
        for stat in STATS:
            out[f"run{i}_{stat}"] = stats[stat]
        if i in (0, 4):    # (100, 100, 0.5) and (2, 10, 0.5) from index 0: Jacobians at the final (full) window
            #              # and at a random window with the same PE rows
            state = model.next_input.copy()
            rng = np.random.default_rng(i)
            random_state = state.copy()
            random_state[:4 * n_patterns] = rng.uniform(-1, 1, 4 * n_patterns)
            for tag, x in (("end", state), ("random", random_state)):
                forward, autodiff, fd = jacobians(model, x)
                out[f"run{i}_jac_{tag}_state"] = x
                out[f"run{i}_jac_{tag}_next"] = forward
                out[f"run{i}_jac_{tag}_J"] = autodiff
                out[f"run{i}_jac_{tag}_J_fd"] = fd
                print(f"  {name} run{i} {tag}: |J_ad - J_fd| = {np.abs(autodiff - fd).max():.2e}")
    out["n_runs"] = np.array(len(cases))
    return out


def explicit_orders():
    """A configuration given as data (orders_B, orders_P, W) rather than by name."""
    orders_B = np.array([[0, 1, 2, 3], [0, 1, 2, 3], [2, 3, 0, 1], [1, 0, 2, 3]])
    orders_P = np.array([[0, 1, 2, 1], [0, 1, 1, 2], [0, 1, 2, 1], [0, 2, 2, 1]])
    W = np.array([[[1, -1], [-1, 1], [1, 1], [-1, -1]], [[-1, 1], [1, 1], [1, -1], [-1, -1]],
                  [[1, 1], [-1, -1], [-1, 1], [1, -1]], [[1, -1], [1, 1], [-1, -1], [-1, 1]]], dtype=float)
    return orders_B, orders_P, W


def lyapunov(orders_function, n_patterns, n_base, beta_o, gamma, epsilon, transient, saved):
    model = build(orders_function, n_patterns, n_base, 2, 4, beta_o, gamma, epsilon, transient + saved, transient)
    with traced():
        stats = run(model, 0, transient + saved, lyapunov=True)
    return {"parameters": np.array([beta_o, gamma, epsilon, 0, transient, saved]), "S": np.array(model.S),
            "S_inf_flag": np.array(model.S_inf_flag), "att": stats["att"]}


def main():
    OUT.mkdir(parents=True, exist_ok=True)
    for name, (function, n_patterns, n_base) in CONFIGURATIONS.items():
        print(name)
        np.savez_compressed(OUT / f"sigma_{name}.npz", **trajectories(name, function, n_patterns, n_base))
    orders_B, orders_P, W = explicit_orders()
    data = trajectories("explicit", lambda self, ini_m_idx=None: (orders_B, orders_P, W), 4, 3)
    np.savez_compressed(OUT / "sigma_explicit.npz", given_orders_B=orders_B, given_orders_P=orders_P, given_W=W,
                        **data)
    # sizes other than the script's: P = 3 (L = 8), and L = 2 < 2^P
    sizes = {}
    for tag, pe_bits, context in (("pe3", 3, 8), ("context2", 2, 2)):
        model = build(configs.set_orders_manually_4_duplicity_loop_4, 4, 3, pe_bits, context, 5.0, 40.0, 0.5, STEPS)
        stats = run(model, 1, STEPS)
        sizes[f"{tag}_parameters"] = np.array([5.0, 40.0, 0.5, 1, pe_bits, context])
        sizes.update({f"{tag}_{stat}": stats[stat] for stat in STATS})
    np.savez_compressed(OUT / "sigma_sizes.npz", **sizes)
    lyap = {}
    for tag, name, parameters in (("loop4", "4_duplicity_loop_4", (3.0, 20.0, 0.5)),
                                  ("nodup", "4_no_duplicity", (4.0, 30.0, 0.3))):
        function, n_patterns, n_base = CONFIGURATIONS[name]
        result = lyapunov(function, n_patterns, n_base, *parameters, transient=200, saved=2000)
        lyap.update({f"{tag}_{key}": value for key, value in result.items()})
        lyap[f"{tag}_configuration"] = np.array(name)
        print(tag, np.sort(result["S"])[::-1])
    np.savez_compressed(OUT / "sigma_lyapunov.npz", **lyap)


if __name__ == "__main__":
    main()
