"""The ``meanfield`` command: a thin layer over the API. Each subcommand lives in its own module of this
package and provides ``register(subparsers)``.

Exit status: 0 done; 2 a user mistake (bad argument, run file, parameter or result file), reported as one line
on stderr before anything is computed or written; 3 a cluster that gives a sweep no progress (the watchdog's
one line, :class:`~meanfield.errors.ClusterError`); 1 an unexpected failure (one line; the traceback with
``-v`` or in ``--log-file``); 130 interrupted.
"""
from __future__ import annotations

import argparse
import importlib
import logging
import os
import sys

from ..errors import ClusterError, ConfigError, MeanfieldError

#: Subcommand modules, in the order ``meanfield --help`` lists them.
COMMANDS = ("simulate", "sweep", "runs", "analyze", "plot", "compare", "onset", "curves", "info", "recover")

log = logging.getLogger("meanfield")


class Parser(argparse.ArgumentParser):
    """An ArgumentParser whose errors are one line on stderr (exit status 2), like every other user mistake."""

    def error(self, message):
        self.exit(2, f"{self.prog}: error: {message} (see '{self.prog} --help')\n")


def _output_options() -> Parser:
    """-v / -q / --log-file, accepted before or after the subcommand."""
    common = Parser(add_help=False)
    group = common.add_argument_group("output")
    group.add_argument("-v", "--verbose", action="count", default=argparse.SUPPRESS,
                       help="more detail on stderr: where a sweep computes, timings, and the traceback of "
                            "an unexpected error (a worker's included)")
    group.add_argument("-q", "--quiet", action="store_true", default=argparse.SUPPRESS,
                       help="no progress bars and no summary lines, only errors")
    group.add_argument("--log-file", metavar="FILE", default=argparse.SUPPRESS,
                       help="append a detailed log (command line, versions, timings, tracebacks) to FILE")
    return common


def build_parser() -> Parser:
    from ..version import __version__
    common = _output_options()
    parser = Parser(prog="meanfield", parents=[common], description=(
        "Dynamical mean-field theory of self-attention with 1-bit tokens (arXiv 2406.07247)."))
    parser.add_argument("--version", action="version", version=f"meanfield {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in COMMANDS:
        importlib.import_module(f"{__name__}.{name}").register(sub, [common])
    return parser


def _setup_logging(args) -> None:
    verbose, quiet = getattr(args, "verbose", 0), getattr(args, "quiet", False)
    args.verbose, args.quiet = verbose, quiet
    log.setLevel(logging.DEBUG)
    log.propagate = False
    console = logging.StreamHandler(sys.stderr)
    console.setLevel(logging.ERROR if quiet else logging.DEBUG if verbose else logging.WARNING)
    console.setFormatter(logging.Formatter(f"meanfield {args.command}: %(message)s"))
    log.addHandler(console)
    if getattr(args, "log_file", None):
        try:
            handler = logging.FileHandler(args.log_file, encoding="utf-8")
        except OSError as exc:
            raise ConfigError(f"--log-file {args.log_file!r} cannot be opened: {exc.strerror}") from None
        handler.setLevel(logging.DEBUG)
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
        log.addHandler(handler)
    from ..sweeps.store.provenance import command_line, environment
    log.debug("command line: %s", command_line())
    log.debug("environment: %s", environment())


def main(argv=None) -> int:
    args = build_parser().parse_args(_join_negative_values(sys.argv[1:] if argv is None else list(argv)))
    prefix = f"meanfield {args.command}"
    try:
        _setup_logging(args)
        status = args.run(args) or 0
        sys.stdout.flush()                    # a closed pipe shows here, not at interpreter exit
        return status
    except MeanfieldError as exc:
        log.debug("user error", exc_info=True)
        print(f"{prefix}: error: {exc}", file=sys.stderr)
        return 3 if isinstance(exc, ClusterError) else 2
    except KeyboardInterrupt:
        print(f"{prefix}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:                   # `meanfield info FILE | head`: the reader has gone
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 141                            # 128 + SIGPIPE, what a shell reports for `cat FILE | head`
    except Exception as exc:                  # a bug or a failed worker: one line, the traceback in the log
        log.debug("unexpected error", exc_info=True)
        hint = "" if args.verbose else " (run with -v for the traceback)"
        print(f"{prefix}: failed: {type(exc).__name__}: {exc}{hint}", file=sys.stderr)
        return 1
    finally:
        for handler in list(log.handlers):
            log.removeHandler(handler)
            handler.close()


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
    """``--set key=value`` pairs -> {key: value}, the one grammar of every subcommand: the value is a TOML value
    as a run file holds it (``41``, ``2.0``, ``inf``, ``true``, ``[0.5, 1.0]``, ``"paper"``), a bare word is
    taken as a string, and a dotted key stays one key (its consumer, e.g. the run file or the preset, checks keys
    and types)."""
    import tomllib
    out = {}
    for pair in pairs or ():
        key, sep, text = (part.strip() for part in pair.partition("="))
        if not sep or not key:
            raise ConfigError(f"--set {pair!r} is not allowed: use key=value, e.g. --set beta_att=2.2")
        try:
            out[key] = tomllib.loads(f"value = {text}")["value"]
        except tomllib.TOMLDecodeError:
            if not text.replace("_", "").replace("-", "").isalnum():
                raise ConfigError(f"--set {key} = {text!r} is not allowed: must be a TOML value (a number, true, "
                                  "false, a list [..] or a quoted string)") from None
            out[key] = text
    return out


def progress_enabled(args) -> bool:
    """Progress bars unless ``-q`` (or ``--no-progress`` where a subcommand has it)."""
    return not (args.quiet or getattr(args, "no_progress", False))


def check_study_output(args) -> None:
    """A study command's ``--output`` (not replaced without ``--force``) and ``--plot`` suffix, checked before
    anything runs (ConfigError of one line)."""
    if os.path.exists(args.output) and not args.force:
        raise ConfigError(f"--output {args.output!r} is not allowed: the file exists (use --force to replace it)")
    if args.plot and os.path.splitext(args.plot)[1].lower() not in (".png", ".pdf", ".svg"):
        raise ConfigError(f"--plot {args.plot!r} is not allowed: the suffix must be .png, .pdf or .svg")


def report(args, text: str) -> None:
    """A summary line on stdout (``wrote FILE``, tables), unless ``-q``."""
    if not args.quiet:
        print(text)
