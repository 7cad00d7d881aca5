"""``meanfield info FILE``: summarise a result file (trajectory or sweep); ``--devices``: list devices."""
from __future__ import annotations


def register(sub, parents):
    p = sub.add_parser("info", parents=parents, help="summarise a result file, or list the compute devices",
                       description="Summarise an HDF5 result file: what it holds, how far a sweep got, and its "
                                   "provenance (code version, libraries, command lines, hosts).")
    p.add_argument("path", nargs="?", help="HDF5 file written by meanfield")
    p.add_argument("--devices", action="store_true", help="list the compute devices (CPU cores, CUDA GPUs)")
    p.add_argument("--verify", action="store_true", help="check every checksum of a sweep file (exit status 2 "
                   "naming the first damaged dataset)")
    p.set_defaults(run=run)


def run(args):
    from ..errors import ConfigError
    if args.devices:
        _devices()
        if args.path is None:
            return
    elif args.path is None:
        raise ConfigError("give a result file (meanfield info FILE.h5), or --devices")
    from ..sweeps.store import SWEEP_KIND, datasets, read_attrs
    attrs = read_attrs(args.path)
    if args.verify and attrs.get("kind") == SWEEP_KIND:
        from ..sweeps.store.verify import verify_file
        checked = verify_file(args.path)
        print(f"{args.path}: checksums verified ({checked['points']} points, {len(checked['datasets'])} datasets)")
        return
    print(f"{args.path}: {attrs.get('kind', 'unknown kind')}")
    for key in ("run_name", "created", "finished", "steps", "transient", "record_every"):
        if key in attrs:
            print(f"  {key}: {attrs[key]}")
    model = attrs.get("model")
    if isinstance(model, dict):
        values = {k: "swept" if model.get(k) is None else model[k] for k in ("name", "beta_o", "beta_att", "epsilon")}
        values["gamma"] = _gamma(args.path, attrs)
        print("  model: " + ", ".join(f"{k}={values[k]}" for k in ("name", "beta_o", "beta_att", "gamma", "epsilon")))
    if attrs.get("kind") == SWEEP_KIND:
        _sweep(args.path)
    else:
        for name, (shape, dtype) in datasets(args.path).items():
            print(f"  {name}: {shape} {dtype}")
    _provenance(attrs.get("provenance") or [])


def _gamma(path, attrs) -> str:
    """The γ the softmax uses (docs/model.md §1): ``gamma`` when the model sets it, else derived from β_att
    (:attr:`meanfield.model.spec.ModelSpec.effective_gamma`), or "swept" with the parameter it follows."""
    from ..model.spec import ModelSpec
    from ..sweeps.store import SWEEP_KIND, read_sweep
    model = attrs["model"]
    if model.get("gamma") is not None:
        return f"{model['gamma']:g}"
    swept = [k for k in ("beta_att", "scaling_att") if model.get(k) is None]
    if swept:
        return f"swept (with {swept[0]}, beta_att*scaling_att/sqrt(M))"
    spec = read_sweep(path).model() if attrs.get("kind") == SWEEP_KIND else ModelSpec.from_dict(model)
    return f"{spec.effective_gamma:.6g} (beta_att*scaling_att/sqrt(M))"


def _provenance(records) -> None:
    for n, rec in enumerate(records):
        code = rec.get("meanfield_version", "?") + (f", commit {rec['git_commit'][:12]}" if "git_commit" in rec else "")
        where = rec.get("cluster", "")
        workers = f", {rec['workers']} workers" if "workers" in rec else ""
        hosts = rec.get("computed_on") or rec.get("worker_hosts") or []
        print(f"  provenance [{n}] {rec.get('action', '?')} {rec.get('time', '?')} on {rec.get('host', '?')}: "
              f"meanfield {code}" + (f"; {where}{workers}" if where else "")
              + (f"; computed on {', '.join(hosts)}" if hosts else ""))
        if rec.get("command"):
            print(f"      command: {rec['command']}")
        versions = rec.get("versions") or {}
        if versions:
            print("      " + ", ".join(f"{k} {v}" for k, v in versions.items() if v and k != "platform"))


def _sweep(path):
    from ..sweeps.store import sweep_summary
    from ..sweeps.store.lock import holder
    summary = sweep_summary(path)
    run = summary["attrs"]["run_json"]
    busy = holder(path)
    state = (f"  ({busy.describe(path)})" if busy is not None else
             "" if summary["done"] == summary["total"] else "  (incomplete: run `meanfield sweep` again to resume)")
    print(f"  points done: {summary['done']} / {summary['total']}" + state)
    for name, (first, last, num) in summary["axes"].items():
        print(f"  axis {name}: {num} values from {first:g} to {last:g}")
    exponents = f", {run['lyapunov']} Lyapunov exponents" if run["lyapunov"] else ""
    print(f"  steps: {run['steps']}, transient: {run['transient']}{exponents}")
    red = run["reductions"]
    print(f"  reductions of {red['observable']}: {red['bins']} y-bins on {red['y_range']}, band pairs "
          f"{red['band_pairs']} (|filter| <= {red['band_tol']}, cap {red['band_cap']}), {red['levels']} levels")
    if run["continuation"]:
        print(f"  continuation: {run['continuation']}")
    for name, (shape, dtype) in summary["datasets"].items():
        print(f"  {name}: {shape} {dtype}")


def _devices():
    """Print the CPU and the CUDA devices backend = "cuda" would use, or why there are none."""
    import os

    from ..errors import BackendError
    from ..kernels.cuda import list_devices, simulator_enabled
    print(f"cpu: {os.cpu_count()} cores (backend 'cpu')")
    try:
        devices = list_devices()
    except BackendError as exc:
        print(f"cuda: none ({exc})")
        return
    suffix = " [NUMBA_ENABLE_CUDASIM=1: the CUDA simulator]" if simulator_enabled() else ""
    for d in devices:
        memory = f", {d['memory_gib']} GiB" if "memory_gib" in d else ""
        cc = ".".join(str(c) for c in d["compute_capability"])
        print(f"cuda:{d['id']}: {d['name']} (compute capability {cc or '?'}{memory}){suffix}")
