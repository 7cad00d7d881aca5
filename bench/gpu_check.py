"""Python parts of bench/gpu_check.sh, the one-shot check of the CUDA backend on a GPU machine.

    python bench/gpu_check.py versions                 # python, numpy, numba, numba-cuda, cupy, meanfield
    python bench/gpu_check.py fixtures                 # tests/data's first 25 steps: backend cuda against cpu
    python bench/gpu_check.py compare-sweeps CPU.h5 CUDA.h5   # labels and lambda1 of two sweeps of one run
    python bench/gpu_check.py precision [--smoke]      # float32 against float64 (precision_check)
    python bench/gpu_check.py summary --kv KV --gpu-py GPU_PY_OUTPUT   # the closing summary (stdlib only)

It is also a pytest plugin (``python -m pytest -p bench.gpu_check tests/cuda``): outside the simulator
(NUMBA_ENABLE_CUDASIM unset) it lifts the simulator-only gating of the ``cudasim`` tests (their ``cudasim``
marker, which tests/cuda/conftest.py deselects, and their ``skipif(not SIMULATOR)``), so that they run on the
real device. In the simulator it changes nothing.

Results are printed as ``RESULT key value`` lines, which gpu_check.sh collects for the summary.
"""
from __future__ import annotations

import argparse
import os
import re
import sys
import time

try:  # the pytest plugin's hook must run before tests/cuda/conftest.py deselects the cudasim tests
    import pytest
    _tryfirst = pytest.hookimpl(tryfirst=True)
except ImportError:  # a plain script run without pytest installed
    pytest = None
    _tryfirst = (lambda f: f)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA = os.path.join(ROOT, "tests", "data")
#: Tolerance of the CUDA backend against the CPU one (docs/model.md §3.3, tests/cuda/test_kernel.py).
TOL = 1e-12
#: The CPU peer on the project's 2-core VM: bench/RESULTS.md, "Kernel throughput", re-run 2026-11-25 21:11 UTC,
#: idle fresh VM, lane kernel, 4096 points, both cores (steps/s).
CPU_2CORE = {0: 8.93e7, 12: 8.60e6}
CPU_2CORE_SOURCE = "bench/RESULTS.md, Kernel throughput, 2026-11-25 idle 2-core VM (lane kernel, 4096 points)"
#: End-to-end walls on the same VM (bench/RESULTS.md): `meanfield sweep` from a fresh local cluster.
CPU_2CORE_SWEEPS = {"fig3_quick": "4.0-4.4 s (cold CLI)", "fig3": "49.9 s (fresh cluster; 41.9-48.5 s warm)"}


def result(key, value):
    """One line gpu_check.sh collects for the summary."""
    print(f"RESULT {key} {value}", flush=True)


# --- pytest plugin ---------------------------------------------------------------------------------------------

def _simulator_only(mark) -> bool:
    if mark.name == "cudasim":
        return True
    return mark.name == "skipif" and "NUMBA_ENABLE_CUDASIM" in str(mark.kwargs.get("reason", ""))


@_tryfirst
def pytest_collection_modifyitems(config, items):
    """On the device: drop the marks that keep the cudasim tests in the simulator (module, class and function
    marks all live in ``own_markers`` of a node of the item's chain)."""
    if os.environ.get("NUMBA_ENABLE_CUDASIM") == "1":
        return
    config.stash[_LIFTED] = sum(any(_simulator_only(m) for m in item.iter_markers()) for item in items)
    for item in items:
        for node in item.listchain():
            node.own_markers[:] = [m for m in node.own_markers if not _simulator_only(m)]


def pytest_report_header(config):
    if os.environ.get("NUMBA_ENABLE_CUDASIM") == "1":
        return "gpu_check plugin: NUMBA_ENABLE_CUDASIM=1, the cudasim tests run in the simulator (unchanged)"
    return "gpu_check plugin: NUMBA_ENABLE_CUDASIM unset, the cudasim tests run on the CUDA device"


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    if _LIFTED is not None and _LIFTED in config.stash:
        terminalreporter.write_line(f"gpu_check plugin: {config.stash[_LIFTED]} tests marked cudasim (simulator "
                                    "only) were collected for the device")


_LIFTED = pytest.StashKey[int]() if pytest is not None else None


# --- versions ---------------------------------------------------------------------------------------------------

def cmd_versions(args):
    import importlib
    import platform
    result("python", platform.python_version() + " " + sys.executable)
    for name, dist in (("numpy", "numpy"), ("numba", "numba"), ("numba.cuda", "numba-cuda"), ("cupy", "cupy"),
                       ("llvmlite", "llvmlite"), ("dask", "dask"), ("distributed", "distributed"),
                       ("h5py", "h5py"), ("h5netcdf", "h5netcdf"), ("xarray", "xarray"), ("pytest", "pytest"),
                       ("xdist", "pytest-xdist"), ("meanfield", "meanfield")):
        try:
            mod = importlib.import_module(name)
        except Exception as exc:  # noqa: BLE001 - report any failure, keep going
            result(dist, f"MISSING ({type(exc).__name__}: {exc})")
            continue
        version = getattr(mod, "__version__", None)
        if version is None or name == "numba.cuda":
            try:
                from importlib.metadata import PackageNotFoundError, distribution
                names = [dist] if name != "cupy" else ["cupy-cuda12x", "cupy-cuda13x", "cupy"]
                for n in names:
                    try:
                        version = distribution(n).version + ("" if n == dist else f" ({n})")
                        break
                    except PackageNotFoundError:
                        continue
            except ImportError:
                pass
        where = os.path.dirname(getattr(mod, "__file__", "") or "")
        result(dist, f"{version or '?'} {where}")
    try:
        import cupy
        result("cupy_cuda_runtime", cupy.cuda.runtime.runtimeGetVersion())
        result("cupy_devices", cupy.cuda.runtime.getDeviceCount())
    except Exception as exc:  # noqa: BLE001
        result("cupy_cuda_runtime", f"unavailable ({type(exc).__name__}: {str(exc)[:200]})")
    try:
        from numba import cuda
        result("numba_cuda_available", cuda.is_available())
        if cuda.is_available():
            dev = cuda.get_current_device()
            name = getattr(dev, "name", "CUDA simulator")
            name = name.decode() if isinstance(name, bytes) else name
            result("numba_cuda_device", f"{name} cc {'.'.join(map(str, dev.compute_capability))}")
            try:
                from numba.cuda.cudadrv import runtime
                result("numba_cuda_runtime", ".".join(map(str, runtime.runtime.get_version())))
            except Exception as exc:  # noqa: BLE001
                result("numba_cuda_runtime", f"? ({type(exc).__name__})")
    except Exception as exc:  # noqa: BLE001
        result("numba_cuda_available", f"error ({type(exc).__name__}: {str(exc)[:200]})")
    result("NUMBA_ENABLE_CUDASIM", os.environ.get("NUMBA_ENABLE_CUDASIM", "unset"))
    return 0


# --- fixtures ---------------------------------------------------------------------------------------------------

def _maxdiff(a, b) -> float:
    import numpy as np
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    if a.shape != b.shape:
        return float("inf")
    same = (a == b) | (np.isnan(a) & np.isnan(b))
    return float(np.max(np.where(same, 0.0, np.abs(a - b)), initial=0.0))


def _compare_batches(label, cpu, gpu, reference=None, ref_tol=1e-10):
    """Max |cuda - cpu| over every recorded observable and the final window; against the fixture when given."""
    import meanfield as mf
    worst, worst_ref = 0.0, 0.0
    for name in mf.OBSERVABLES:
        d = _maxdiff(gpu.records[name], cpu.records[name])
        worst = max(worst, d)
        line = f"  {label:<28} {name:<6} max|cuda-cpu| = {d:.3g}"
        if reference is not None:
            r = _maxdiff(gpu.records[name], reference(name))
            worst_ref = max(worst_ref, r)
            line += f"   max|cuda-fixture| = {r:.3g}"
        print(line)
    d = _maxdiff(gpu.final_att, cpu.final_att)
    worst = max(worst, d)
    print(f"  {label:<28} final window max|cuda-cpu| = {d:.3g}")
    ok = worst <= TOL and (reference is None or worst_ref <= ref_tol)
    return worst, worst_ref, ok


def cmd_fixtures(args):
    """tests/data's reference runs (tests/simulate/test_reference.py) on backend cuda and cpu: the first 25 steps
    from the checkpoint (beta_o 0.5, 2.5) and from the token x0 = W^o[0] (beta_o 1.266), and the 7 single steps;
    cuda against cpu to <= 1e-12, and against the fixture to its documented 1e-10 (1e-12 for single steps)."""
    import numpy as np

    import meanfield as mf
    from meanfield.simulation import simulate_batch
    steps = args.steps
    load = (lambda name: np.load(os.path.join(DATA, name)))
    worst_all, ok_all = 0.0, True
    t0 = time.perf_counter()

    def both(label, model, n_steps, reference=None, ref_tol=1e-10, **kw):
        nonlocal worst_all, ok_all
        cpu = simulate_batch(model, n_steps, **kw, compute=mf.Compute(backend="cpu"))
        t = time.perf_counter()
        gpu = simulate_batch(model, n_steps, **kw, compute=mf.Compute(backend="cuda"))
        print(f"  {label}: cuda batch {time.perf_counter() - t:.2f} s")
        worst, worst_ref, ok = _compare_batches(label, cpu, gpu, reference, ref_tol)
        worst_all, ok_all = max(worst_all, worst), ok_all and ok
        print(f"  {label}: {'PASS' if ok else 'FAIL'} (max |cuda-cpu| {worst:.3g}"
              + (f", max |cuda-fixture| {worst_ref:.3g}" if reference is not None else "") + ")")

    betas = (0.5, 2.5)
    refs = [load(f"traj_beta_{b}.npz") for b in betas]
    both(f"checkpoint beta_o={betas}, {steps} steps", mf.presets.paper(), steps,
         reference=lambda name: np.stack([r[name][:steps] for r in refs]),
         parameters={"beta_o": np.array(betas)})
    tok = load("from_token_Wo0_beta_1.266.npz")
    model = mf.presets.paper(beta_o=1.266)
    both(f"token W^o[0] beta_o=1.266, {steps} steps", model, steps,
         reference=lambda name: tok[name][None, :steps], start=mf.State.from_token(model, tok["x0"]))
    cases = load("onestep_cases.npz")
    n_cases = int(cases["num_cases"])
    starts = [mf.State(cases[f"case{c}_A"], cases[f"case{c}_Pi"]) for c in range(n_cases)]
    beta = np.array([float(cases[f"case{c}_beta"]) for c in range(n_cases)])
    both(f"{n_cases} single-step cases", mf.presets.paper(), 1,
         reference=lambda name: np.stack([cases[f"case{c}_rec_{name}"][None] for c in range(n_cases)]),
         ref_tol=1e-12, parameters={"beta_o": beta}, start=starts)
    result("fixtures_max_abs_diff", f"{worst_all:.3g}")
    result("fixtures", "PASS" if ok_all else "FAIL")
    print(f"fixtures: {'PASS' if ok_all else 'FAIL'} in {time.perf_counter() - t0:.1f} s (tolerance {TOL:g} "
          "cuda-cpu; 1e-10 against the multi-step fixtures)")
    return 0 if ok_all else 1


# --- quick Figure 3: labels and lambda1 of two sweeps --------------------------------------------------------------

def cmd_compare_sweeps(args):
    """Labels (the sweep's own evidence, meanfield.sweeps.results.labels.point_labels) and lambda1 of two sweep
    files of the same run: agreement of the labels, |lambda1_cuda - lambda1_cpu| against the standard errors."""
    import numpy as np

    from meanfield.analysis import LABELS
    from meanfield.sweeps.results.labels import point_labels
    from meanfield.sweeps.store import read_sweep
    names = ("lyapunov", "lyapunov_stderr", "done")
    a, b = read_sweep(args.cpu, names), read_sweep(args.cuda, names)
    axis = a.axes[0]
    beta = np.asarray(a.coords[axis]).reshape(-1)
    done_a, done_b = a.arrays["done"].astype(bool).reshape(-1), b.arrays["done"].astype(bool).reshape(-1)
    print(f"points done: cpu {done_a.sum()} / {done_a.size}, cuda {done_b.sum()} / {done_b.size}")
    both = done_a & done_b
    codes_a = point_labels(args.cpu)[0].reshape(-1)
    codes_b = point_labels(args.cuda)[0].reshape(-1)
    name = (lambda c: LABELS[c] if 0 <= c < len(LABELS) else "missing")
    same = (codes_a == codes_b) & both
    n = int(both.sum())
    result("fig3q_points", n)
    result("fig3q_label_agreement", f"{int(same.sum())}/{n}")
    for label_code in sorted(set(codes_a[both]) | set(codes_b[both])):
        print(f"  {name(label_code):<15} cpu {int(np.sum(codes_a[both] == label_code)):>4}   "
              f"cuda {int(np.sum(codes_b[both] == label_code)):>4}")
    for i in np.flatnonzero(both & ~same)[:12]:
        print(f"  label differs at {axis} = {beta[i]:.4f}: cpu {name(codes_a[i])}, cuda {name(codes_b[i])}")
    ok = bool(same[both].all())
    if "lyapunov" in a.arrays and "lyapunov" in b.arrays:
        k = a.arrays["lyapunov"].shape[-1]
        l1a = a.arrays["lyapunov"].reshape(-1, k)[:, 0][both]
        l1b = b.arrays["lyapunov"].reshape(-1, k)[:, 0][both]
        sea = a.arrays["lyapunov_stderr"].reshape(-1, k)[:, 0][both]
        seb = b.arrays["lyapunov_stderr"].reshape(-1, k)[:, 0][both]
        with np.errstate(invalid="ignore"):
            gap = np.where(l1a == l1b, 0.0, np.abs(l1a - l1b))
            se = np.maximum(sea, seb)
            within = {m: int(np.sum(gap <= m * se)) for m in (1, 2, 3)}
        print(f"lambda1: max |cuda-cpu| = {np.nanmax(gap):.3g}, median {np.nanmedian(gap):.3g}; within 1 / 2 / 3 "
              f"standard errors (the larger of the two runs'): {within[1]} / {within[2]} / {within[3]} of {n}")
        exact = int(np.sum(gap <= 1e-9))
        print(f"lambda1: {exact} of {n} points agree to 1e-9 (non-chaotic orbits: the same trajectory to rounding)")
        order = np.argsort(-np.nan_to_num(gap / np.where(se > 0, se, np.inf), nan=np.inf))
        sub = beta[both]
        for j in order[:8]:
            if gap[j] > se[j]:
                print(f"  {axis} = {sub[j]:.4f}: lambda1 cpu {l1a[j]:.6g} +- {sea[j]:.2g}, cuda {l1b[j]:.6g} +- "
                      f"{seb[j]:.2g} ({gap[j] / se[j] if se[j] > 0 else float('inf'):.1f} SE), label cpu "
                      f"{name(codes_a[both][j])}")
        result("fig3q_lambda1_within_1se", f"{within[1]}/{n}")
        result("fig3q_lambda1_within_2se", f"{within[2]}/{n}")
        result("fig3q_lambda1_max_absdiff", f"{np.nanmax(gap):.3g}")
        ok = ok and within[1] == n
    verdict = "PASS" if ok else "CHECK (see the points listed)"
    result("fig3q", verdict.split()[0])
    print(f"quick Figure 3, cuda against cpu: {verdict}")
    return 0


# --- float32 against float64 ----------------------------------------------------------------------------------------

def cmd_precision(args):
    """meanfield.studies.precision.precision_check on the quick Figure 3's grid and length (a sample of points)."""
    import numpy as np

    import meanfield as mf
    from meanfield.studies.precision import precision_check
    if args.smoke:   # as tests/cuda/test_precision.py: with 12 float32 exponents a tangent's norm reaches 0, and
        # the simulator's math.log(0) raises where a GPU returns -inf
        steps, transient, beta, lyapunov, sample, div_max = 80, 10, (0.5, 3.0, 5), 2, 2, 60
    else:            # the quick Figure 3's grid, length and spectrum (runs/paper_fig3_quick.toml)
        steps, transient, beta, lyapunov, sample, div_max = 20000, 10000, (0.0, 3.0, 401), True, args.sample, 20000
    print(f"precision_check(paper, {steps} steps, {transient} transient, beta_o: {beta[2]} values on "
          f"[{beta[0]}, {beta[1]}], lyapunov={lyapunov}, sample={sample}, divergence_steps_max={div_max})")
    t0 = time.perf_counter()
    report = precision_check(mf.presets.paper(), steps, transient, parameters={"beta_o": np.linspace(*beta)},
                             lyapunov=lyapunov, sample=sample, divergence_steps_max=div_max)
    for key, value in report.items():
        result(key, value)
    print(f"precision_check: {time.perf_counter() - t0:.1f} s (includes compiling 4 kernels)")
    return 0


# --- summary ---------------------------------------------------------------------------------------------------------

ROW = re.compile(r"^\s*(\d+)\s+(float64|float32)\s+(\d+)\s+(\d+)\s+([0-9.eE+-]+)\s+(\d+)x\s*$")
PEER = re.compile(r"^peer: CPU kernel, ([0-9.eE+-]+) steps/s without exponents, ([0-9.eE+-]+) with 12")


def read_kv(path) -> dict:
    kv = {}
    if path and os.path.exists(path):
        with open(path, encoding="utf-8", errors="replace") as fh:
            for line in fh:
                key, _, value = line.rstrip("\n").partition(" ")
                if key:
                    kv[key] = value
    return kv


def read_gpu_py(path):
    """bench/gpu.py's table: {(dtype, exponents): [(points, steps/s), ...]} and its 16-core CPU peer."""
    rows, peer = {}, {}
    if path and os.path.exists(path):
        with open(path, encoding="utf-8", errors="replace") as fh:
            for line in fh:
                m = ROW.match(line)
                if m:
                    rows.setdefault((m.group(2), int(m.group(3))), []).append((int(m.group(1)), float(m.group(5))))
                m = PEER.match(line.strip())
                if m:
                    peer = {0: float(m.group(1)), 12: float(m.group(2))}
    return rows, peer


def crossover(series, cpu_rate) -> str:
    """Smallest batch at which the GPU's steps/s reach ``cpu_rate``, interpolated log-log between measured
    sizes."""
    import math
    series = sorted(series)
    if not series:
        return "not measured"
    if series[0][1] >= cpu_rate:
        return f"<= {series[0][0]} points (the GPU is ahead at the smallest size measured)"
    for (n0, r0), (n1, r1) in zip(series, series[1:]):
        if r1 >= cpu_rate:
            t = (math.log(cpu_rate) - math.log(r0)) / (math.log(r1) - math.log(r0))
            n = math.exp(math.log(n0) + t * (math.log(n1) - math.log(n0)))
            return f"~{n:.3g} points (between {n0} and {n1})"
    return f"> {series[-1][0]} points (the GPU stays below at every size measured: {series[-1][1]:.3g} steps/s)"


def cmd_summary(args):
    kv = read_kv(args.kv)
    rows, peer = read_gpu_py(args.gpu_py)
    get = (lambda key, default="n/a": kv.get(key, default))
    out = ["=" * 100, "SUMMARY (bench/gpu_check.sh" + (", SMOKE MODE: simulator, tiny sizes, numbers "
                                                           "meaningless" if get("mode") == "smoke" else "") + ")",
           "=" * 100]
    out.append(f"device:        {get('gpu_name')}, {get('gpu_memory')}; driver {get('driver')}, "
               f"CUDA (driver) {get('cuda_driver_version')}")
    out.append(f"host:          {get('host')}, {get('cores')} cores; started {get('started')}")
    out.append(f"python:        {get('python')}")
    out.append(f"install:       {get('install')}")
    for name in ("numpy", "numba", "numba-cuda", "cupy", "cupy_cuda_runtime", "numba_cuda_runtime", "meanfield",
                 "numba_cuda_device"):
        out.append(f"  {name + ':':<20} {get(name)}")
    out.append(f"devices:       {get('info_devices')}")
    out.append(f"cuda tests:    {get('tests_summary')}")
    out.append(f"fixtures:      {get('fixtures')} (max |cuda - cpu| {get('fixtures_max_abs_diff')}, 25 steps, "
               "tolerance 1e-12)")
    out.append(f"quick Fig. 3:  {get('fig3q')}: labels agree {get('fig3q_label_agreement')}, lambda1 within 1 SE "
               f"{get('fig3q_lambda1_within_1se')} (2 SE {get('fig3q_lambda1_within_2se')}), max |d lambda1| "
               f"{get('fig3q_lambda1_max_absdiff')}")
    out.append("float32:       " + ", ".join(f"{k[len('float32_'):]} {v}" for k, v in kv.items()
                                             if k.startswith("float32_")))
    out.append("")
    out.append(f"kernel throughput (bench/gpu.py, steps/s; one step = one point advanced one iteration); the 2-core "
               f"CPU: {CPU_2CORE[0]:.3g} without exponents, {CPU_2CORE[12]:.3g} with 12 ({CPU_2CORE_SOURCE})")
    if peer:
        out.append(f"  this machine's own CPU (gpu.py's peer, all cores): {peer[0]:.3g} without, {peer[12]:.3g} with "
                   "12 exponents")
    if rows:
        sizes = sorted({n for series in rows.values() for n, _ in series})
        out.append(f"  {'dtype':>8} {'exp.':>5} " + " ".join(f"{n:>11}" for n in sizes)
                   + "   crossover vs the 2-core CPU")
        for (dtype, k), series in sorted(rows.items(), key=lambda kv_: (kv_[0][0] != "float64", kv_[0][1])):
            rate = dict(series)
            cells = " ".join(f"{rate[n]:>11.3g}" if n in rate else f"{'-':>11}" for n in sizes)
            out.append(f"  {dtype:>8} {k:>5} {cells}   {crossover(series, CPU_2CORE.get(k, float('nan')))}")
        if peer:
            out.append("  crossover vs this machine's own CPU (all its cores):")
            for (dtype, k), series in sorted(rows.items(), key=lambda kv_: (kv_[0][0] != "float64", kv_[0][1])):
                if k in peer:
                    out.append(f"  {dtype:>8} {k:>5}   {crossover(series, peer[k])}")
        best = {k: max((r for (d, kk), s in rows.items() if kk == k for _, r in s), default=None) for k in (0, 12)}
        out.append("  best against the 2-core CPU: " + ", ".join(
            f"{k} exp. {best[k]:.3g} ({best[k] / CPU_2CORE[k]:.0f}x)" for k in (0, 12) if best[k]))
    else:
        out.append("  no throughput table (bench/gpu.py did not run or failed: see its section)")
    out.append("")
    out.append("end to end (`meanfield sweep`, wall clock of the section: CLI, cluster start, compiling, file):")
    out.append(f"  quick Figure 3 cpu  ({get('cores')} workers): {get('part.4b_fig3q_cpu.seconds')} s "
               f"[{get('part.4b_fig3q_cpu.status')}]; 2-core VM: {CPU_2CORE_SWEEPS['fig3_quick']}")
    out.append(f"  quick Figure 3 cuda (1 worker, 1 chunk): {get('part.4b_fig3q_cuda.seconds')} s "
               f"[{get('part.4b_fig3q_cuda.status')}]")
    out.append(f"  full Figure 3 cuda:  {get('part.5b_fig3_cuda.seconds')} s [{get('part.5b_fig3_cuda.status')}]; "
               f"2-core VM: {CPU_2CORE_SWEEPS['fig3']}")
    out.append(f"  full Figure 3 cuda again (kernel caches warm): {get('part.5b_fig3_cuda_warm.seconds')} s "
               f"[{get('part.5b_fig3_cuda_warm.status')}]")
    out.append("")
    out.append("sections (status, seconds, timeout):")
    parts = [k[len("part."):-len(".status")] for k in kv if k.startswith("part.") and k.endswith(".status")]
    for p in parts:
        out.append(f"  {p:<22} {get(f'part.{p}.status'):<28} {get(f'part.{p}.seconds'):>5} s "
                   f"(limit {get(f'part.{p}.limit')} s)")
    out.append(f"total: {get('total_seconds')} s")
    print("\n".join(out))
    return 0


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="command", required=True)
    sub.add_parser("versions").set_defaults(run=cmd_versions)
    p = sub.add_parser("fixtures")
    p.add_argument("--steps", type=int, default=25)
    p.set_defaults(run=cmd_fixtures)
    p = sub.add_parser("compare-sweeps")
    p.add_argument("cpu")
    p.add_argument("cuda")
    p.set_defaults(run=cmd_compare_sweeps)
    p = sub.add_parser("precision")
    p.add_argument("--smoke", action="store_true")
    p.add_argument("--sample", type=int, default=64)
    p.set_defaults(run=cmd_precision)
    p = sub.add_parser("summary")
    p.add_argument("--kv")
    p.add_argument("--gpu-py")
    p.set_defaults(run=cmd_summary)
    args = ap.parse_args(argv)
    return args.run(args)


if __name__ == "__main__":
    sys.exit(main())
