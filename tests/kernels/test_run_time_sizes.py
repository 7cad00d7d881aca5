"""Kernels with run-time sizes (meanfield.kernels.cpu, "Sizes"): models of many features against an independent
column-form step (docs/model.md §1.1, §3), the same bits as the kernels compiled for one shape, and one build for
every shape."""
import numpy as np
import pytest

import meanfield as mf
from meanfield.kernels import cpu

from .test_tiles import OUTPUTS, batches


def column_form_run(model, att, pe, steps):
    """``steps`` steps of the map from the window ``att`` (D, M), D ≤ L rows, with PE codes ``pe`` (L, P), written
    from the equations over the model's weight columns: every window row's mean fields
    m^α_a = w <W^α_{i,a} tanh(β W^o_i·A)>_i + ε W^α_PE[a]·π / P (docs/model.md §1.1), scores γ m^q_0·m^k_d,
    softmax, a = Σ_d p_d m^v_d as the newest row, the PE codes turning with the window (§3). Returns the outputs a
    and the new token's m^o and m^{o,se} (each (steps, M))."""
    n_se = model.weights["o"].shape[1] - pe.shape[1]
    semantic_o = model.weights["o"][:, :n_se]
    w, eps = 1.0 - model.epsilon, model.epsilon
    beta, gamma = model.beta_o * model.scaling_o, model.beta_att * model.scaling_att / np.sqrt(model.n_features)
    outputs = {"att": [], "mo": [], "mo_se": []}
    for _ in range(steps):
        h = np.tanh(beta * att @ semantic_o)                                     # (L, N_se)
        fields = {alpha: w * h @ model.weights[alpha][:, :n_se].T / n_se
                  + eps * pe[:len(att)] @ model.weights[alpha][:, n_se:].T / pe.shape[1] for alpha in "oqkv"}
        scores = gamma * fields["k"] @ fields["q"][0]
        p = np.exp(scores - scores.max())
        new = (p / p.sum()) @ fields["v"]
        outputs["att"].append(new)
        outputs["mo"].append(fields["o"][0])
        outputs["mo_se"].append(w * h[0] @ semantic_o.T / n_se)
        att, pe = np.vstack([new, att[:len(pe) - 1]]), np.roll(pe, 1, axis=0)      # the window grows to L rows
    return {name: np.array(rows) for name, rows in outputs.items()}


@pytest.mark.parametrize(("n_features", "context"), [(16, 8), (32, 8), (64, 16), (128, 16)])
def test_many_features_follow_the_column_form_equations(n_features, context):
    """25 steps at M = 16 … 128 (N_se = 128, K = 128 sign classes of 2^(M-1)) equal the column-form step within
    1e-12, the outputs and the tokens' m^o and m^{o,se}: the two sum the same terms in other orders (~1e-16 each)
    and β_o = 0.4 keeps the map contracting, so rounding is not amplified over the run. Recording m^o or not
    leaves the outputs' bits alone (the kernel computes it only when it is recorded). Both from a random full
    window and from the token start (one row, the window growing to L)."""
    model = mf.presets.random(seed=n_features, n_features=n_features, semantic_bits=128, context=context,
                              pe_bits=int(np.log2(context)), beta_o=0.4)
    rng = np.random.default_rng(1)
    token = mf.State.from_pattern(model, 0, "o", True)
    random_window = mf.State(rng.uniform(-1, 1, (context, n_features)),
                             rng.choice([-1.0, 1.0], (context, model.pe_bits)))
    for start in (random_window, token):
        traj = mf.simulate(model, 25, start=start, record=("att", "mo", "mo_se"), compute=mf.Compute(progress=False))
        expected = column_form_run(model, np.asarray(start.att), np.asarray(start.pe, dtype=float), 25)
        for name in ("att", "mo", "mo_se"):
            np.testing.assert_allclose(getattr(traj, name), expected[name], rtol=0, atol=1e-12, err_msg=name)
        alone = mf.simulate(model, 25, start=start, record=("att",), compute=mf.Compute(progress=False))
        assert alone.att.tobytes() == traj.att.tobytes()


def test_run_time_sizes_give_the_bits_of_one_shape(monkeypatch):
    """The paper model's spectrum and PID batches and an M = 4 model with partial windows, run by the kernels
    compiled for their shape and by the run-time-size build: every output bitwise equal."""
    for name, batch in batches().items():
        fixed = cpu.run_batch(batch)
        with monkeypatch.context() as patch:
            patch.setattr(cpu, "SPECIALIZED_WINDOW", 0)
            anywhere = cpu.run_batch(batch)
        for field in OUTPUTS:
            assert getattr(fixed, field).tobytes() == getattr(anywhere, field).tobytes(), (name, field)


def test_every_large_shape_runs_on_one_compiled_kernel():
    """Models of M = 20 (L = 8) and M = 24 (L = 4) with their own sign-class counts, with and without exponents:
    the run-time-size kernel has a single type signature afterwards (a new shape or table would add one)."""
    for n_features, context in ((20, 8), (24, 4)):
        model = mf.presets.random(seed=2, n_features=n_features, semantic_bits=64, context=context,
                                  pe_bits=int(np.log2(context)))
        start = mf.State(np.full((context, n_features), 0.1), np.ones((context, model.pe_bits)))
        for exponents in (False, 3):
            mf.simulate_batch(model, 4, parameters={"beta_o": np.array([0.5, 1.5])}, start=start, lyapunov=exponents,
                              compute=mf.Compute(progress=False))
    assert len(cpu.tile_kernels(64, 64, 1).run_tiles.signatures) == 1
