"""Progress bars for calls that take more than a few seconds (sweeps, large batches, analyses, comparisons).

The first unit of work of a fresh process includes compiling the kernels (and, for a sweep, starting the
workers), which can take longer than the work itself; a rate measured over it would make the first ETAs
wildly pessimistic. :func:`progress_bar` therefore starts measuring the rate, and so the ETA, when the first
update arrives; until then it says what it is waiting for.
"""
from __future__ import annotations

import sys

from tqdm import tqdm


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
        self.refresh()
        return True


def progress_bar(total: int, desc: str, *, enabled: bool = True, initial: int = 0, unit: str = "pt",
                 waiting: str = "compiling") -> tqdm:
    """A bar on stderr over ``total`` units (``initial`` already done) showing ``waiting`` until the first
    update, then the rate and an ETA measured from that update on."""
    bar = _WarmBar(total=total, initial=initial, desc=desc, unit=unit, disable=not enabled, smoothing=0.05,
                   file=sys.stderr, dynamic_ncols=True)
    if enabled and waiting:
        bar.set_postfix_str(f"{waiting}; ETA after the first {unit}")
    return bar


__all__ = ["progress_bar"]
