"""The ``[cluster]`` table of a run file: where a sweep computes, validated into a frozen :class:`ClusterSpec`.

A run computes on SLURM only when the user says so: ``kind = "slurm"`` in the table or ``--slurm`` on the
command line (``--runner slurm`` inside an allocation). A table with SLURM keys and no ``kind`` runs locally
and keeps its SLURM keys for ``--slurm``, so one run file serves a laptop and a login node. Durations are
``dask.utils.parse_timedelta`` strings with a unit ("90m", "1h", "45s", "2 days") or SLURM's clock forms (MM:SS,
HH:MM:SS, D-HH, D-HH:MM, D-HH:MM:SS); a bare number is refused (SLURM would read minutes, dask seconds).
Every mistake is a :class:`~meanfield.errors.ConfigError` naming the key, the value and what is allowed,
raised when the run file is loaded, before any output is touched.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from ...errors import ConfigError
from ...model.spec import require_int
from .tables import check_keys

CLUSTER_KEYS = ("kind", "workers", "jobs", "max_jobs", "cores", "processes", "memory", "walltime", "lifetime",
                "lifetime_stagger", "patience", "queue", "account", "interface", "local_directory",
                "log_directory", "job_extra", "scheduler_options")
#: Keys of ``scheduler_options`` (passed to ``distributed.Scheduler``).
SCHEDULER_KEYS = ("host", "port", "interface", "dashboard_address", "protocol")
#: The scheduler's dashboard listens on the loopback interface, on a free port (printed), unless
#: ``scheduler_options`` says otherwise (reach it with ``ssh -L PORT:127.0.0.1:PORT LOGIN-NODE``).
DASHBOARD = "127.0.0.1:0"
_SLURM_CLOCK = re.compile(r"^(?:(\d+)-)?(\d+)(?::(\d+))?(?::(\d+))?$")
DURATION_FORMS = "a duration with a unit ('90m', '1h', '45s', '2 days') or SLURM's [D-]HH:MM:SS"


def parse_duration(key: str, value) -> float:
    """Seconds of a duration: a ``dask.utils.parse_timedelta`` string with a unit or SLURM's clock forms."""
    from dask.utils import parse_timedelta
    where = f"cluster.{key} = {value!r} is not allowed: must be {DURATION_FORMS}"
    if not isinstance(value, str) or not value.strip():
        raise ConfigError(where)
    text = value.strip()
    clock = _SLURM_CLOCK.match(text)
    if clock and ("-" in text or ":" in text):
        days, *rest = clock.groups()
        numbers = [int(p) for p in rest if p is not None]
        if days is not None:                       # D-HH, D-HH:MM, D-HH:MM:SS
            numbers += [0] * (3 - len(numbers))
            seconds = int(days) * 86400 + numbers[0] * 3600 + numbers[1] * 60 + numbers[2]
        else:                                      # MM:SS or HH:MM:SS
            seconds = sum(n * 60 ** (len(numbers) - 1 - i) for i, n in enumerate(numbers))
    elif re.fullmatch(r"[\d.]+", text):
        raise ConfigError(f"{where} (a bare number is ambiguous: SLURM reads minutes, dask seconds)")
    else:
        try:
            seconds = parse_timedelta(text)
        except (ValueError, KeyError):
            raise ConfigError(where) from None
    if not seconds > 0:
        raise ConfigError(f"cluster.{key} = {value!r} is not allowed: must be longer than 0 s")
    return float(seconds)


def slurm_time(seconds: float) -> str:
    """SLURM's D-HH:MM:SS for a walltime (SLURM counts whole minutes and rounds up)."""
    minutes = -(-int(round(seconds)) // 60)
    days, minutes = divmod(minutes, 1440)
    return f"{days}-{minutes // 60:02d}:{minutes % 60:02d}:00"


def _text(key: str, value, allowed: str = "a string") -> str:
    if not isinstance(value, str) or not value:
        raise ConfigError(f"cluster.{key} = {value!r} is not allowed: must be {allowed}")
    return value


@dataclass(frozen=True)
class ClusterSpec:
    """Where a sweep computes (see the module docstring). Durations in seconds; SLURM sizes are per job."""

    kind: str = "local"
    workers: int | None = None          # local worker processes (default: one per core)
    jobs: int = 1                       # SLURM jobs kept running (resubmitted when one ends)
    max_jobs: int = 1                   # more jobs while many chunks wait (dask's adaptive scaling)
    cores: int = 1
    processes: int = 1                  # single-threaded worker processes per job
    memory: str = "4GB"
    walltime: float = 3600.0
    lifetime: float = 3180.0            # a worker retires after lifetime ± lifetime_stagger
    lifetime_stagger: float = 120.0
    patience: float = 3600.0            # the watchdog stops a sweep after this long without a finished chunk
    queue: str | None = None
    account: str | None = None
    interface: str | None = None
    local_directory: str | None = None
    log_directory: str | None = None
    job_extra: tuple = ()
    scheduler_options: dict = field(default_factory=dict)

    @property
    def slurm_walltime(self) -> str:
        return slurm_time(self.walltime)


def default_lifetime(walltime: float) -> tuple[float, float]:
    """(lifetime, stagger) of a worker for a walltime: stagger = walltime/20 (at most 2 min), and the latest
    retirement, lifetime + stagger, a fifth of the walltime (at most 5 min) before SLURM's limit, which
    leaves the job's start-up (imports, numba's cache) inside the walltime."""
    stagger = min(120.0, walltime / 20)
    return walltime - stagger - min(300.0, walltime / 5), stagger


def parse_cluster(table) -> ClusterSpec:
    """Validate a ``[cluster]`` table (see the module docstring) into a :class:`ClusterSpec`."""
    from dask.utils import parse_bytes
    check_keys(table, CLUSTER_KEYS, "cluster")
    kind = table.get("kind", ClusterSpec.kind)
    if kind not in ("local", "slurm"):
        raise ConfigError(f"cluster.kind = {kind!r} is not allowed: choose 'local' or 'slurm'")
    if kind == "slurm" and "workers" in table:
        raise ConfigError(f"cluster.workers = {table['workers']!r} is not allowed with kind = 'slurm': set jobs "
                          "(SLURM jobs kept running) and processes (worker processes per job)")
    workers = None if "workers" not in table else require_int("cluster.workers", table["workers"], 1)
    jobs = require_int("cluster.jobs", table.get("jobs", ClusterSpec.jobs), 1)
    max_jobs = require_int("cluster.max_jobs", table.get("max_jobs", jobs), jobs)
    cores = require_int("cluster.cores", table.get("cores", ClusterSpec.cores), 1)
    processes = require_int("cluster.processes", table.get("processes", cores), 1, cores)
    if cores % processes:
        raise ConfigError(f"cluster.processes = {processes} is not allowed: must divide cores = {cores} (each "
                          "worker process gets cores / processes threads)")
    memory = _text("memory", table.get("memory", ClusterSpec.memory), "a size such as '4GB' (per job)")
    try:
        parse_bytes(memory)
    except ValueError:
        raise ConfigError(f"cluster.memory = {memory!r} is not allowed: must be a size such as '4GB' (per job)") \
            from None
    walltime = parse_duration("walltime", table["walltime"]) if "walltime" in table else ClusterSpec.walltime
    lifetime, stagger = default_lifetime(walltime)
    if "lifetime" in table:
        lifetime = parse_duration("lifetime", table["lifetime"])
    if "lifetime_stagger" in table:
        stagger = parse_duration("lifetime_stagger", table["lifetime_stagger"])
    if not stagger < lifetime or not lifetime + stagger < walltime:
        key = "lifetime" if "lifetime" in table else "lifetime_stagger"
        raise ConfigError(f"cluster.{key} = {table[key]!r} is not allowed with lifetime = {lifetime:g} s, "
                          f"lifetime_stagger = {stagger:g} s, walltime = {walltime:g} s: need lifetime - stagger > 0 "
                          "and lifetime + stagger < walltime (workers retire before SLURM ends their job)")
    job_extra = table.get("job_extra", [])
    if not isinstance(job_extra, list) or not all(isinstance(d, str) and d.startswith("-") for d in job_extra):
        raise ConfigError(f"cluster.job_extra = {job_extra!r} is not allowed: must be a list of sbatch options "
                          "such as ['--gres=gpu:1', '--constraint=cpu']")
    options = check_keys(table.get("scheduler_options", {}), SCHEDULER_KEYS, "cluster.scheduler_options")
    for key, value in options.items():
        if key == "port":
            require_int("cluster.scheduler_options.port", value, 0, 65535)
        else:
            _text(f"scheduler_options.{key}", value)
    return ClusterSpec(
        kind=kind, workers=workers, jobs=jobs, max_jobs=max_jobs, cores=cores, processes=processes, memory=memory,
        walltime=walltime, lifetime=lifetime, lifetime_stagger=stagger,
        patience=parse_duration("patience", table["patience"]) if "patience" in table else ClusterSpec.patience,
        job_extra=tuple(job_extra), scheduler_options=dict(options),
        **{key: _text(key, table[key]) for key in ("queue", "account", "interface", "local_directory",
                                                    "log_directory") if key in table})


__all__ = ["ClusterSpec", "parse_cluster", "parse_duration", "slurm_time", "default_lifetime", "CLUSTER_KEYS",
           "DASHBOARD"]
