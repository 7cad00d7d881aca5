"""Independent computations the tests compare with: the plain-numpy map of meanfield.model.equations iterated n
steps, Jacobians by central differences, and Newton on a periodic point — nothing of meanfield's compiled kernels,
orbit, continuation or bifurcation code."""
import numpy as np

from meanfield.model.equations import mean_field_step, step_tables


def n_step_map(model, pe, n):
    """x ↦ the window after n steps of the plain-numpy map from the window x (flattened) and PE window ``pe``."""
    tables = step_tables(model)
    context = model.context

    def f(x):
        att, window = x.reshape(context, -1), pe
        for _ in range(n):
            att, window, _ = mean_field_step(model, att, window, tables)
        return att.ravel()
    return f


def central_jacobian(f, x, h=1e-6):
    # h = 1e-6: the error of the paper model's leading multiplier against the analytic Jacobian is ~7e-12 (measured
    # over h = 1e-4 … 1e-7: truncation ∝ h², rounding ∝ 1/h, minimum near 1e-6)
    return np.array([(f(x + h * e) - f(x - h * e)) / (2 * h) for e in np.eye(x.size)]).T


def periodic_point(model, x, pe, n, tolerance, iterations=30):
    """A fixed point of the n-step map near ``x`` by single-shooting Newton and its multipliers: (x, μ).
    AssertionError when Newton's step does not fall below ``tolerance``."""
    f = n_step_map(model, pe, n)
    for _ in range(iterations):
        step = np.linalg.solve(central_jacobian(f, x) - np.eye(x.size), x - f(x))
        x = x + step
        if np.abs(step).max() < tolerance:
            return x, np.linalg.eigvals(central_jacobian(f, x))
    raise AssertionError(f"Newton did not converge at beta_o = {model.beta_o}")
