"""The ``meanfield`` command: a thin layer over the API. Each subcommand lives in its own module of this
package and provides ``register(subparsers)``; user errors print one clear line and exit with status 2."""
from __future__ import annotations

import argparse
import importlib
import sys

from ..errors import MeanfieldError

#: Subcommand modules, in the order ``meanfield --help`` lists them.
COMMANDS = ("simulate", "sweep", "analyze", "plot", "compare", "info")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="meanfield", description=(
        "Dynamical mean-field theory of self-attention with 1-bit tokens (arXiv 2406.07247)."))
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in COMMANDS:
        importlib.import_module(f"{__name__}.{name}").register(sub)
    return parser


def main(argv=None) -> int:
    args = build_parser().parse_args(_join_negative_values(sys.argv[1:] if argv is None else list(argv)))
    try:
        return args.run(args) or 0
    except MeanfieldError as exc:
        print(f"meanfield {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"meanfield {args.command}: interrupted", file=sys.stderr)
        return 130


def parse_value(text: str):
    """A ``--set`` value as a run file would hold it: an integer, a number, true/false, else the text."""
    text = text.strip()
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return {"true": True, "false": False}.get(text.lower(), text)


def _join_negative_values(argv: list) -> list:
    """``--beta -inf`` -> ``--beta=-inf``: argparse takes a value that starts with ``-`` for an option unless it
    looks like a plain negative number, so ``-inf``, ``-nan`` or ``-1e-3`` after an option are joined to it
    (the value is then checked like any other)."""
    out = []
    for token in argv:
        if out and out[-1].startswith("--") and "=" not in out[-1] and token.startswith("-") and _number(token):
            out[-1] = f"{out[-1]}={token}"
        else:
            out.append(token)
    return out


def _number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def parse_overrides(pairs) -> dict:
    """``--set key=value`` pairs -> dict of typed values (:func:`parse_value`; keys and types are checked by
    the consumer, e.g. the preset)."""
    from ..errors import ConfigError
    out = {}
    for pair in pairs or ():
        key, sep, value = pair.partition("=")
        if not sep:
            raise ConfigError(f"--set {pair!r} is not allowed: use key=value, e.g. --set beta_att=2.2")
        out[key.strip()] = parse_value(value)
    return out
