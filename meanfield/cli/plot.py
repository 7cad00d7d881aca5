"""``meanfield plot KIND RUN.h5``: figures of a sweep file (PNG, PDF or SVG by the output's extension)."""
from __future__ import annotations

KINDS = ("bifurcation", "density", "classes", "lyapunov", "phase", "attractors", "basins", "curves")


def register(sub, parents):
    p = sub.add_parser("plot", parents=parents, help="figures of a sweep file",
                       description="bifurcation: the diagram in both forms, orbit density over the "
                                   "class-coloured form, with the Lyapunov exponents below when the sweep has "
                                   "them; density: orbit histogram only (log colour scale); classes: "
                                   "class-coloured only (periodic orbits plus Poincaré band points coloured by "
                                   "the automatic class); lyapunov: exponents vs the swept parameter with class "
                                   "bands; phase: class map of a 2-D sweep; attractors: every attractor of a census "
                                   "sweep ([attractors] table) in its own colour over the stacked basin "
                                   "fractions, the backward continuation in black; basins: the basin map of a "
                                   "[basins] sweep, each start coloured by its attractor; curves: the curves of a "
                                   "[curves] sweep, over its tori's rotation numbers when its grid spans the curves' "
                                   "two parameters. Trajectory files are drawn "
                                   "by `meanfield simulate --plot`.")
    p.add_argument("kind", choices=KINDS)
    p.add_argument("path", help="sweep file written by `meanfield sweep`")
    p.add_argument("-o", "--output", help="output file (.png, .pdf or .svg; default: next to the sweep file, "
                                          "RUN_KIND.png)")
    p.add_argument("--feature", type=int, default=0, help="feature of the observable (0-based, default 0)")
    p.add_argument("-k", type=int, default=3, help="exponents to draw (lyapunov, default 3)")
    p.set_defaults(run=run)


def run(args):
    import os

    from ..plots.style import check_figure_path
    from ..sweeps.store import read_sweep
    from . import report
    read_sweep(args.path)                            # StoreError unless it is a readable sweep file
    output = args.output or os.path.splitext(args.path)[0] + f"_{args.kind}.png"
    check_figure_path(output)
    if args.kind == "density":
        from ..plots.bifurcation import plot_density_bifurcation
        fig = plot_density_bifurcation(args.path, feature=args.feature)
    elif args.kind == "attractors":
        fig = _attractors(args.path, args.feature)
    elif args.kind == "basins":
        fig = _basins(args.path)
    elif args.kind == "curves":
        fig = _curves(args.path)
    else:
        fig = _classified(args)
    if os.path.dirname(output):
        os.makedirs(os.path.dirname(output), exist_ok=True)
    fig.savefig(output, dpi=200)
    report(args, f"wrote {output}")


def _classified(args):
    """The figures of a sweep's labels, drawn from :func:`~meanfield.sweeps.results.dataset.sweep_results`."""
    from ..plots import sweep as figures
    from ..sweeps.results.dataset import sweep_results
    results = sweep_results(args.path)
    if args.kind == "bifurcation":
        return figures.bifurcation_figure(results, feature=args.feature)
    if args.kind == "classes":
        return figures.class_bifurcation(results, feature=args.feature)
    if args.kind == "lyapunov":
        return figures.lyapunov_vs_parameter(results, k=args.k)
    return figures.class_map(results)


def _basins(path: str):
    """The basin map of a sweep file (docs/basins.md §7)."""
    from ..errors import ConfigError
    from ..plots.basins import basins_figure
    from ..sweeps.store.basins import open_basins
    try:
        ds = open_basins(path)
    except KeyError as exc:
        raise ConfigError(exc.args[0]) from None
    if not ds.attrs.get("complete", False):
        raise ConfigError(f"plot basins: the basin map of {path!r} is not complete: run `meanfield sweep` on it again")
    return basins_figure(ds, title=_basins_caption(path, ds))


def _curves(path: str):
    """The curves of a sweep file's ``[curves]`` table (docs/bifurcations.md §12), over the sweep's tori's
    rotation numbers when the grid's two axes are the curves' parameters."""
    from ..errors import ConfigError
    from ..plots.curves import study_figure
    from ..plots.data import model_caption
    from ..sweeps.results.dataset import sweep_results
    from ..sweeps.store.curves import open_curves
    try:
        curves = open_curves(path)
    except KeyError as exc:
        raise ConfigError(exc.args[0]) from None
    sweep = sweep_results(path)
    parameters = curves.parameter.values.tolist()
    background = sweep if sorted(d for d in sweep["rotation"].dims) == sorted(parameters) else None
    return study_figure(curves, background, model_caption(sweep.attrs["model"], parameters))


def _basins_caption(path: str, ds) -> str:
    """The basin figure's title: the run, its model and the grid point the map was drawn at."""
    from ..plots.data import model_caption, sweep_axes, sweep_run
    from ..plots.style import AXIS_SYMBOLS
    from ..sweeps.store import open_run
    run = open_run(path)
    axes = sweep_axes(run)
    point = ", ".join(f"{AXIS_SYMBOLS.get(a, a)} = {float(run[a].values[0]):g}" for a in axes)
    return (f"{sweep_run(run)['name']} — {model_caption(run.attrs['model'], axes)}\n"
            f"{point}: {ds.sizes['u']} × {ds.sizes['v']} starts")


def _attractors(path: str, feature: int):
    """The census figure of a sweep file's chained censuses (docs/attractors.md §6)."""
    from ..errors import ConfigError
    from ..plots.attractors import attractors_figure
    from ..sweeps.store.census import open_attractors
    try:
        up = open_attractors(path, "up")
    except KeyError as exc:
        raise ConfigError(exc.args[0]) from None
    if up["fraction"].ndim != 2:
        raise ConfigError(f"plot attractors: {path!r} holds a 2-D census; select a line with xarray "
                          "(meanfield.sweeps.store.census.open_attractors) and draw it with "
                          "meanfield.plots.attractors.attractors_figure")
    try:
        down = open_attractors(path, "down")
    except KeyError:
        down = None
    if not 0 <= feature < up.sizes["feature"]:
        raise ConfigError(f"--feature = {feature} is not allowed: the census has {up.sizes['feature']} features")
    from ..plots.data import model_caption
    from ..plots.style import AXIS_SYMBOLS
    from ..sweeps.store import read_sweep
    sweep = read_sweep(path)
    axis = up["fraction"].dims[0]
    title = (f"{sweep.run['name']} — {model_caption(sweep.attrs['model'], list(sweep.axes))}\n"
             f"{sweep.run['attractors']['starts']} starts per value, steps {sweep.run['transient']}.."
             f"{sweep.run['steps'] - 1} fingerprinted")
    return attractors_figure(up, backward=down, feature=feature, parameter=AXIS_SYMBOLS.get(axis, axis), title=title)
