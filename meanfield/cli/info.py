"""``meanfield info FILE``: summarise a result file (trajectory or sweep)."""
from __future__ import annotations


def register(sub):
    p = sub.add_parser("info", help="summarise a result file", description="Summarise an HDF5 result file.")
    p.add_argument("path", help="HDF5 file written by meanfield")
    p.set_defaults(run=run)


def run(args):
    import h5py
    from ..store import read_attrs
    attrs = read_attrs(args.path)
    print(f"{args.path}: {attrs.get('kind', 'unknown kind')}")
    for key in ("meanfield_version", "git_commit", "host", "created", "steps", "transient", "record_every"):
        if key in attrs:
            print(f"  {key}: {attrs[key]}")
    model = attrs.get("model")
    if isinstance(model, dict):
        print("  model: " + ", ".join(f"{k}={model[k]}" for k in ("name", "beta_o", "beta_att", "gamma", "epsilon")))
    with h5py.File(args.path, "r") as f:
        for name, obj in f.items():
            if isinstance(obj, h5py.Dataset):
                print(f"  {name}: {obj.shape} {obj.dtype}")
