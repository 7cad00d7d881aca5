"""The sweep's watchdog: no silent hang on a cluster meanfield does not control (SLURM, a running scheduler).

Every second or so the client loop asks :meth:`Watchdog.check` for a status (workers alive, SLURM jobs
running and pending with SLURM's reason) to show next to the progress bar. The watchdog raises a
:class:`~meanfield.errors.ClusterError` with one line saying why nothing progresses

* at once when SLURM can never start the sweep's jobs (they ask for more CPUs or memory than every node has);
* after ``cluster.patience`` without a finished chunk: no worker connected (with the jobs' states, SLURM's
  reasons, sbatch's refusal, where the logs of jobs that ended are), or workers alive that finish nothing
  (a chunk longer than the workers' lifetime).
"""
from __future__ import annotations

import time

from ...errors import ClusterError

#: Seconds between two looks at the scheduler's workers.
WATCH_POLL = 1.0


class Watchdog:
    """Watch a Dask client (and, for SLURM, the sweep's :class:`~meanfield.sweeps.execute.slurm.SlurmJobs`)."""

    def __init__(self, client, patience: float, jobs=None, lifetime: float | None = None):
        self.client, self.patience, self.jobs, self.lifetime = client, patience, jobs, lifetime
        self.last_progress = self.last_worker = self._looked = time.monotonic()
        self.workers = 0
        self.status = ""

    def progressed(self) -> None:
        """A chunk finished."""
        self.last_progress = time.monotonic()

    def check(self) -> str:
        """The status line (workers alive, jobs); raises ClusterError when the sweep cannot progress."""
        now = time.monotonic()
        if now - self._looked < WATCH_POLL:
            return self.status
        self._looked = now
        self.workers = len(self.client.scheduler_info()["workers"])
        if self.workers:
            self.last_worker = now
        self.status = f"workers {self.workers}"
        if self.jobs is not None:
            self.jobs.poll()
            never = self.jobs.never_starts()
            if never:
                raise ClusterError(never)
            self.status += f", {self.jobs.describe()}"
        idle = now - self.last_progress
        if idle > self.patience:
            raise ClusterError(f"no chunk finished for {idle:.0f} s (cluster.patience = {self.patience:g} s): "
                               + self._why(now))
        return self.status

    def _why(self, now: float) -> str:
        if not self.workers:
            why = f"no Dask worker connected for {now - self.last_worker:.0f} s"
            if self.jobs is not None:
                why += f"; {self.jobs.describe()}{self.jobs.hint()}"
            return why
        why = f"{self.workers} worker(s) alive but none finished a chunk"
        if self.lifetime is not None:
            why += (f"; a chunk may take longer than the workers' lifetime ({self.lifetime:g} s): lower chunk or "
                    "raise cluster.lifetime and walltime")
        return why


__all__ = ["Watchdog", "WATCH_POLL"]
