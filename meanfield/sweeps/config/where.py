"""Where a sweep computes, decided once (docs/storage.md §3): a client the caller made, a running scheduler,
SLURM jobs from the ``[cluster]`` table, or a local cluster of single-threaded processes, with the number of
workers the sweep plans for. :func:`where_to_compute` is the only place that decides whether a sweep runs on
SLURM and what the default worker count is; :mod:`meanfield.sweeps.execute` acts on the :class:`Where` it
returns.

SLURM is used when the caller says so: ``slurm=True`` (``--slurm``) or ``kind = "slurm"`` in ``[cluster]``
(:mod:`.clusterspec`).
"""
from __future__ import annotations

import os
from dataclasses import dataclass

from ...errors import ConfigError
from ...model.spec import require_int
from ...short_repr import short_repr
from .clusterspec import ClusterSpec

#: The kinds of place, in the order :func:`where_to_compute` looks for them.
KINDS = ("client", "scheduler", "slurm", "local")


@dataclass(frozen=True)
class Where:
    """Where a sweep computes: ``kind`` (one of :data:`KINDS`), the ``[cluster]`` table, and

    - ``workers``: worker processes the sweep plans for (local processes; SLURM jobs × processes per job); None
      for a client or a scheduler, whose workers are counted once connected;
    - ``jobs``: SLURM jobs kept running (None elsewhere);
    - ``client`` / ``scheduler``: the caller's ``distributed.Client`` / the address of a running scheduler;
    - ``asked_by``: what asked for SLURM (``--slurm`` or the table's ``kind``), for messages.
    """

    kind: str
    cluster: ClusterSpec
    workers: int | None = None
    jobs: int | None = None
    client: object = None
    scheduler: str | None = None
    asked_by: str = ""

    def describe(self) -> str:
        """A few words for the provenance record: ``local``, ``slurm``, ``client`` or ``scheduler ADDRESS``."""
        return f"scheduler {self.scheduler}" if self.kind == "scheduler" else self.kind


@short_repr
@dataclass(frozen=True)
class Place:
    """Where a sweep computes, as its caller says it (over the run file's ``[cluster]`` table): an existing
    ``distributed.Client`` (``client``), the address of a running scheduler (``scheduler``), SLURM jobs
    (``slurm=True``, or ``kind = "slurm"`` in the table), or a LocalCluster; ``workers`` is the number of SLURM
    jobs, or of local single-threaded worker processes (default: the table's, else one per available core).
    ``meanfield.Place()``: what the run file says."""

    client: object = None
    scheduler: str | None = None
    slurm: bool = False
    workers: int | None = None

    def __post_init__(self):
        if self.workers is not None:
            object.__setattr__(self, "workers", require_int("workers", self.workers, 1))
        if self.scheduler is not None and not isinstance(self.scheduler, str):
            raise ConfigError(f"scheduler = {self.scheduler!r} is not allowed: a scheduler's address "
                              "(tcp://host:port)")
        if not isinstance(self.slurm, bool):
            raise ConfigError(f"slurm = {self.slurm!r} is not allowed: True or False")


def where_to_compute(cluster: ClusterSpec, place: Place = Place()) -> Where:
    """The one :class:`Where` of a sweep: ``place.client`` if given, else ``place.scheduler`` if given, else SLURM
    when ``place.slurm`` or ``cluster.kind == "slurm"`` (``place.workers`` = jobs, default ``cluster.jobs``), else a
    local cluster of ``place.workers`` processes (default ``cluster.workers``, else one per available core)."""
    if not isinstance(place, Place):
        raise ConfigError(f"place = {place!r} is not allowed: must be a meanfield.Place")
    client, scheduler, slurm, workers = place.client, place.scheduler, place.slurm, place.workers
    if client is not None:
        return Where("client", cluster, client=client)
    if scheduler:
        return Where("scheduler", cluster, scheduler=scheduler)
    if slurm or cluster.kind == "slurm":
        jobs = workers or cluster.jobs
        return Where("slurm", cluster, workers=jobs * cluster.processes, jobs=jobs,
                     asked_by="--slurm" if slurm else "cluster.kind = 'slurm'")
    return Where("local", cluster, workers=workers or cluster.workers or len(os.sched_getaffinity(0)))


__all__ = ["Place", "Where", "where_to_compute", "KINDS"]
