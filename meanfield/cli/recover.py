"""``meanfield recover FILE``: rebuild a damaged sweep file from its journal without computing
(docs/storage.md §8)."""
from __future__ import annotations


def register(sub, parents):
    p = sub.add_parser("recover", parents=parents, help="rebuild a damaged sweep file from its journal",
                       description="Rebuild a sweep file that is damaged (truncated, emptied, overwritten) from its "
                                   "journal FILE.journal, without computing: every point the journal holds intact is "
                                   "kept; `meanfield sweep` with the same run file then computes the rest.")
    p.add_argument("path", help="the sweep file (its journal is PATH.journal)")
    p.set_defaults(run=run)


def run(args):
    from ..sweeps.store.recover import recover
    from . import report
    result = recover(args.path)
    missing = result["total"] - result["points"]
    what = "rebuilt from its journal" if result["rebuilt"] else "intact (its checksums hold): nothing to recover"
    dropped = f", {result['dropped']} damaged journal record(s) dropped" if result["dropped"] else ""
    report(args, f"{args.path}: {what}; {result['points']}/{result['total']} points recovered, {missing} to "
                 f"recompute{dropped}" + ("" if not missing else " (run `meanfield sweep` again)"))
