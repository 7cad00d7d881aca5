"""Progress bars for calls that take more than a few seconds (sweeps, large batches, analyses, comparisons), and
SIGTERM stopping long work as Ctrl-C does (:func:`sigterm_interrupts`).

The first unit of work of a fresh process includes compiling the kernels (and, for a sweep, starting the
workers), which can take longer than the work itself; a rate measured over it would make the first ETAs
wildly pessimistic. :func:`progress_bar` therefore starts measuring the rate, and so the ETA, when the first
update arrives; until then it says what it is waiting for.
"""
from __future__ import annotations

import signal
import sys
import threading
import time
from contextlib import contextmanager

from tqdm import tqdm

#: Seconds a call runs before its bar appears when ``progress`` is None (the default of most tools): work that ends
#: sooner prints nothing. ``progress=True`` draws the bar at once, ``False`` never.
PROGRESS_DELAY = 1.0


def check_progress(progress):
    """``progress`` if it is True, None or False (the one type of the option), else a ConfigError saying so."""
    if not any(progress is allowed for allowed in (True, None, False)):
        from .errors import ConfigError
        raise ConfigError(f"progress = {progress!r} is not allowed: must be True, None or False")
    return progress


def delay_of(progress) -> float:
    """The delay before the bar of ``progress`` (True, None or False: the one type of the option) appears."""
    return PROGRESS_DELAY if progress is None else 0.0


class _WarmBar(tqdm):
    """A tqdm bar whose rate, and so its ETA, is measured from the first update on (see the module docstring)."""

    warm = False

    def update(self, n=1):
        if self.warm or self.disable:
            return super().update(n)
        self.warm = True                         # the rate averages start from here; elapsed keeps counting
        self.n += n
        self.initial = self.last_print_n = self.n
        self.last_print_t = self._time()
        self.set_postfix_str("", refresh=False)
        if self.due:
            self.refresh()
        return True

    @property
    def due(self) -> bool:
        """Past the ``delay`` the bar was created with: it may be drawn."""
        return self._time() >= self.start_t + self.delay


def progress_bar(total: int, desc: str, *, enabled: bool = True, initial: int = 0, unit: str = "pt",
                 waiting: str = "compiling", delay: float = 0.0) -> tqdm:
    """A bar on stderr over ``total`` units (``initial`` already done) showing ``waiting`` until the first
    update, then the rate and an ETA measured from that update on; drawn only once ``delay`` seconds have
    passed (work that ends sooner shows nothing)."""
    bar = _WarmBar(total=total, initial=initial, desc=desc, unit=unit, disable=not enabled, smoothing=0.05,
                   file=sys.stderr, dynamic_ncols=True, delay=delay)
    if enabled and waiting:
        bar.set_postfix_str(f"{waiting}; ETA after the first {unit}", refresh=not delay)
    return bar


class StepWatch:
    """While a compiled kernel runs (it releases the GIL), writes the step it has reached — ``reached[0]``,
    written by the kernel every :data:`meanfield.model.layout.PROGRESS_STRIDE` steps — as the bar's postfix
    every ``every`` seconds, so that one long batch of a few points is not a frozen bar (and a bar created with a
    delay is drawn once it is due, even while the kernel still compiles)."""

    def __init__(self, bar: tqdm, reached, steps: int, every: float = 0.5):
        self.bar, self.reached, self.steps, self.every = bar, reached, steps, every
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._watch, daemon=True)

    def tick(self) -> None:
        """One look at the kernel's step: written as the postfix once the bar is due (a delayed bar still
        compiling, step 0, is drawn with its waiting text)."""
        step = int(self.reached[0])
        if step and self.bar.due:
            self.bar.set_postfix_str(f"step {step:,} of {self.steps:,}")
        elif self.bar.due:
            self.bar.refresh()

    def _watch(self) -> None:
        while not self.stop.wait(self.every):
            self.tick()

    def __enter__(self):
        if not self.bar.disable:
            self.thread.start()
        return self

    def __exit__(self, *exc):
        self.stop.set()
        if self.thread.is_alive():
            self.thread.join()


class Heartbeat:
    """Where a long unit of a bar has got to, so that the bar never freezes for longer than a Newton iterate.

    Called with a parameter value (every Newton iterate of a continuation, docs/bifurcations.md §2), it writes
    ``label = value`` as the bar's postfix, at most once every ``every`` seconds, drawn once the bar's delay has
    passed."""

    def __init__(self, bar: tqdm, label: str, every: float = 0.5):
        self.bar, self.label, self.every, self.shown = bar, label, every, -float("inf")

    def __call__(self, value: float) -> None:
        now = time.monotonic()
        if not self.bar.disable and now - self.shown >= self.every:
            self.shown = now
            self.bar.set_postfix_str(f"{self.label} = {value:.10g}", refresh=self.bar.due)   # not before its delay


class SpanBar:
    """A bar in percent of ``interval`` covered by a continuation: called with every parameter value it reaches
    (every Newton iterate), it advances to the share of the interval between the smallest and largest values so
    far (clipped to the interval; the start counts as reached)."""

    def __init__(self, interval, start: float, desc: str, *, enabled: bool = True, delay: float = 0.0):
        self.lo, self.hi = min(interval), max(interval)
        self.low = self.high = min(max(float(start), self.lo), self.hi)
        self.bar = progress_bar(100, desc, enabled=enabled, unit="%", waiting="", delay=delay)
        self.beat = Heartbeat(self.bar, desc)

    def __call__(self, value: float) -> None:
        value = min(max(float(value), self.lo), self.hi)
        self.low, self.high = min(self.low, value), max(self.high, value)
        done = int(100 * (self.high - self.low) / (self.hi - self.lo))
        if done > self.bar.n:
            self.bar.update(done - self.bar.n)
        self.beat(value)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.bar.close()


@contextmanager
def sigterm_interrupts():
    """SIGTERM raises KeyboardInterrupt inside the block (main thread only), as Ctrl-C does, so that long work (a
    sweep's cluster, a study's journal) stops where Ctrl-C would stop it: a cluster closed and every SLURM job
    cancelled, a study resumable."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGTERM, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


__all__ = ["Heartbeat", "SpanBar", "StepWatch", "progress_bar", "sigterm_interrupts"]
