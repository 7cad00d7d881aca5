"""SLURM through dask-jobqueue, in its two ways: jobs submitted from a login node (:class:`SlurmJobs`) and one
allocation shared by scheduler, client and workers (:func:`slurm_runner`, ``srun -n K``).

Jobs outlive their walltime (docs/clusters.md): every worker retires after its ``lifetime`` (±
``lifetime_stagger``), strictly inside the walltime, and does not restart inside its job; its job then ends.
dask's adaptive scaling (``adapt(minimum_jobs, maximum_jobs)``) keeps the job count, but it counts a job that
ended as still planned (dask/dask-jobqueue#691 on GitHub), so :meth:`SlurmJobs.poll` asks ``squeue`` which of the
sweep's jobs are still queued or running and forgets the others; adapt then submits their replacements. Tasks
of a worker that is lost are computed again by the scheduler, so results do not depend on which job ran them.

All jobs of one sweep share a job name (``meanfield-<8 hex>``): ``squeue`` and ``scancel`` address exactly the
jobs this sweep submitted.
"""
from __future__ import annotations

import getpass
import itertools
import logging
import os
import signal
import subprocess
import sys
import threading
import time
import uuid
from contextlib import contextmanager, suppress
from functools import cached_property

from ...errors import ClusterError, ConfigError
from ..config.clusterspec import DASHBOARD, ClusterSpec

#: glibc's allocator settings for worker processes (read when a process starts): arrays up to 32 MiB come from
#: the heap, which is trimmed only above 128 MiB free. Dask's nannies otherwise start workers with
#: MALLOC_TRIM_THRESHOLD_=65536, which also fixes glibc's mmap threshold at 128 KiB: every temporary array of
#: a point is then a fresh mapping whose pages fault in again, 25-40 % of a sweep worker's CPU time spent in
#: the operating system (docs/clusters.md, "Worker processes"; bench/RESULTS.md).
ALLOCATOR_ENV = {"MALLOC_TRIM_THRESHOLD_": str(128 << 20), "MALLOC_MMAP_THRESHOLD_": str(32 << 20)}
#: Environment of worker processes: one numba/BLAS thread each, so processes x threads = cores, and
#: :data:`ALLOCATOR_ENV` (a SLURM job exports it before its workers start).
WORKER_ENV = {"NUMBA_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
              "OPENBLAS_NUM_THREADS": "1", **ALLOCATOR_ENV}
#: Seconds a worker waits for its scheduler before it exits (its job then ends): jobs of a client killed with
#: SIGKILL do not run on to their walltime.
DEATH_TIMEOUT = 60
#: Seconds between two ``squeue`` calls (schedulers dislike being polled more often).
QUEUE_POLL = 5.0
#: The dashboard link of a loopback-bound dashboard (``Client.dashboard_link`` would name the scheduler's host).
LOOPBACK_LINK = {"distributed.dashboard.link": "{scheme}://127.0.0.1:{port}/status"}
#: ``squeue`` states of a job that still waits for or holds its node; any other state (or none) means it ended.
LIVE_STATES = ("PENDING", "CONFIGURING", "RUNNING", "SUSPENDED", "REQUEUED", "REQUEUE_HOLD", "RESIZING")


def jobqueue():
    """``dask_jobqueue.slurm``, imported without the SIGINT handler it installs (it turns Ctrl-C into a silent
    ``sys.exit()``; meanfield keeps KeyboardInterrupt so an interrupted sweep reports what it stored)."""
    handler = signal.getsignal(signal.SIGINT)
    try:
        import dask_jobqueue.slurm
    except ImportError:
        raise ConfigError("SLURM needs dask-jobqueue: pip install 'meanfield[cluster]'") from None
    finally:
        if handler is not None and threading.current_thread() is threading.main_thread():
            signal.signal(signal.SIGINT, handler)
    return dask_jobqueue.slurm


def dashboard_link(spec: ClusterSpec) -> dict:
    """dask config for the client's dashboard link: on the scheduler's loopback unless the user bound it."""
    return {} if "dashboard_address" in spec.scheduler_options else LOOPBACK_LINK


def slurm_kwargs(spec: ClusterSpec, job_name: str = "meanfield") -> dict:
    """dask-jobqueue ``SLURMCluster`` arguments of a :class:`ClusterSpec`: ``processes`` single-threaded
    workers per job, each retiring after ``lifetime`` ± ``lifetime_stagger`` (no restart inside the job)."""
    kwargs = {"cores": spec.cores, "processes": spec.processes, "memory": spec.memory, "walltime": spec.slurm_walltime,
              "job_name": job_name, "job_script_prologue": [f"export {k}={v}" for k, v in WORKER_ENV.items()],
              "worker_extra_args": ["--lifetime", f"{spec.lifetime:g}s", "--lifetime-stagger",
                                    f"{spec.lifetime_stagger:g}s"],
              "job_extra_directives": list(spec.job_extra),
              "death_timeout": DEATH_TIMEOUT,
              "scheduler_options": {"dashboard_address": DASHBOARD, **spec.scheduler_options}}
    for key in ("queue", "account", "interface", "local_directory", "log_directory"):
        if getattr(spec, key) is not None:
            kwargs[key] = getattr(spec, key)
    return kwargs


def _run(command: list) -> str | None:
    """stdout of a SLURM command; None when it fails (the controller busy or down, the command missing)."""
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout if done.returncode == 0 else None


def nodes(queue: str | None = None) -> list:
    """(CPUs, memory in MB) of every node of ``queue`` (all partitions when None), from ``sinfo``."""
    out = _run(["sinfo", "-h", "-N", "-o", "%c %m"] + (["-p", queue] if queue else [])) or ""
    return [tuple(int(float(x.rstrip("+"))) for x in line.split()) for line in out.splitlines() if line.strip()]


class SlurmJobs:
    """A dask-jobqueue SLURMCluster kept at ``jobs`` to ``max_jobs`` jobs (see the module docstring)."""

    def __init__(self, spec: ClusterSpec, jobs: int):
        slurm = jobqueue()
        self.spec = spec
        self.name = f"meanfield-{uuid.uuid4().hex[:8]}"
        self.jobs = jobs
        self.errors = []                   # sbatch's refusals, newest last
        self.queue = {}                    # job id -> (state, reason) of the live jobs
        self.ended = set()                 # ids of jobs that ran or waited and are gone
        self._polled = -float("inf")
        self.cluster = _elastic_cluster(slurm, self.errors)(**slurm_kwargs(spec, self.name))
        self.cluster.adapt(minimum_jobs=self.jobs, maximum_jobs=max(spec.max_jobs, self.jobs))

    def poll(self) -> dict:
        """The live jobs {id: (state, reason)}, from ``squeue`` at most every :data:`QUEUE_POLL` seconds;
        jobs that ended (lifetime, walltime, ``scancel``) or whose submission failed are forgotten, so that
        adapt submits their replacements."""
        now = time.monotonic()
        if now - self._polled < QUEUE_POLL:
            return self.queue
        self._polled = now
        submitted = self.cluster.sync(_job_ids, self.cluster)     # before squeue: newer jobs are not judged
        out = _run(["squeue", "-h", "-u", getpass.getuser(), "-n", self.name, "-o", "%i|%T|%r"])
        if out is None:
            return self.queue                  # no answer: keep the last one rather than forget live jobs
        rows = (line.split("|") for line in out.splitlines() if line.count("|") == 2)
        self.queue = {job: (state, reason) for job, state, reason in rows if state in LIVE_STATES}
        gone = {name: job for name, job in submitted.items() if job not in self.queue}
        if gone:
            self.ended.update(job for job in gone.values() if job)
            self.cluster.sync(_forget, self.cluster, gone)
        return self.queue

    @cached_property
    def _nodes(self) -> list:
        return nodes(self.spec.queue)

    def never_starts(self) -> str | None:
        """Why SLURM can never start the sweep's jobs: sbatch calls the request invalid (account, partition,
        QOS, time limit), or a pending or refused job asks for more than every node has; None otherwise."""
        if self.errors and "invalid" in self.errors[-1].lower():
            return f"sbatch refuses this sweep's jobs: {self.errors[-1]} (check the [cluster] table)"
        pending = [job for job, (state, _) in self.queue.items() if state == "PENDING"]
        if not pending and not self.errors:
            return None
        from dask.utils import parse_bytes
        memory = -(-parse_bytes(self.spec.memory) // 2 ** 20)
        sizes = self._nodes
        if not sizes or any(cpus >= self.spec.cores and mb >= memory for cpus, mb in sizes):
            return None
        where = f"partition {self.spec.queue}" if self.spec.queue else "the cluster"
        largest = f"{max(c for c, _ in sizes)} CPUs and {max(m for _, m in sizes)} MB"
        what = f"job {pending[0]} (pending: {self.queue[pending[0]][1]})" if pending else "the job sbatch refused"
        return (f"SLURM can never start this sweep's jobs: {what} asks for cluster.cores = {self.spec.cores} CPUs "
                f"and cluster.memory = {self.spec.memory!r} ({memory} MB) but the largest node of {where} has "
                f"{largest}")

    def describe(self) -> str:
        """The jobs in a few words: ``jobs 1 running, 2 pending (Priority)``, sbatch's last refusal."""
        running = sum(state != "PENDING" for state, _ in self.queue.values())
        text = f"jobs {running} running"
        pending = len(self.queue) - running
        if pending:
            reasons = sorted({reason for state, reason in self.queue.values() if state == "PENDING"} - {"None"})
            text += f", {pending} pending" + (f" ({', '.join(reasons)})" if reasons else "")
        if self.errors:
            text += f"; sbatch: {self.errors[-1]}"
        return text

    def hint(self) -> str:
        """Where to look when jobs ended without a worker connecting."""
        if not self.ended:
            return ""
        logs = self.spec.log_directory or "the jobs' working directory (set cluster.log_directory)"
        return f"; {len(self.ended)} job(s) ended, see their logs in {logs}"

    def cancel(self) -> None:
        """``scancel`` every job of this sweep, queued or running (also those being submitted right now)."""
        _run(["scancel", "-u", getpass.getuser(), "-n", self.name])

    def close(self) -> None:
        self.cancel()
        self.cluster.close()
        self.cancel()


async def _job_ids(cluster) -> dict:
    """{name: SLURM job id} of the cluster's submitted jobs (None: the submission failed)."""
    return {name: job.job_id for name, job in cluster.workers.items()}


async def _forget(cluster, gone: dict) -> None:
    """Drop ended jobs from the cluster's plan, so that adapt replaces them."""
    from distributed.core import Status
    for name, job_id in gone.items():
        if name in cluster.workers and cluster.workers[name].job_id == job_id:
            cluster.workers.pop(name).status = Status.closed
            cluster.worker_spec.pop(name, None)


def _elastic_cluster(slurm, errors: list):
    """dask-jobqueue's SLURMCluster with two changes for jobs that come and go:

    * a refused submission is recorded (sbatch's error line in ``errors``) instead of raised in the cluster's
      event loop: the job counts as one that ended at once, so :meth:`SlurmJobs.poll` forgets it and adapt
      submits again, until the watchdog gives up;
    * job names never repeat (dask reuses the lowest free number, and its delayed clean-up of a lost
      worker's job would then cancel the replacement that took the name).
    """
    from distributed.core import Status

    class Job(slurm.SLURMJob):
        async def start(self):
            try:
                await super().start()
            except RuntimeError as exc:
                lines = [line.split("error:", 1)[-1].strip() for line in str(exc).splitlines() if "error:" in line]
                errors.append(lines[-1] if lines else str(exc).splitlines()[0])
                self.status = Status.running       # started as far as dask is concerned; job_id stays None

        async def close(self):
            await super().close()
            self.status = Status.closed

    class Cluster(slurm.SLURMCluster):
        job_cls = Job
        serial = itertools.count()

        def _new_worker_name(self, worker_number):
            return f"{self._name}-{next(self.serial)}"
    return Cluster


@contextmanager
def slurm_runner(spec: ClusterSpec):
    """Inside one allocation (``srun -n K meanfield sweep RUN.toml --runner slurm``): rank 0 runs the scheduler,
    ranks 2.. the workers (one thread each) and return when the client is done; rank 1 gets here and yields
    (client, workers). The scheduler file goes to ``log_directory`` (default: the working directory)."""
    slurm = jobqueue()
    os.environ.update(WORKER_ENV)
    if "numba" in sys.modules:                   # imported by the run file's validation: read the new settings
        import numba
        numba.config.reload_config()
    directory = spec.log_directory or "."
    os.makedirs(directory, exist_ok=True)
    previous = signal.getsignal(signal.SIGINT)
    signal.signal(signal.SIGINT, lambda *_: sys.exit())   # scheduler and workers stop themselves with SIGINT
    quiet = logging.getLogger("distributed")
    level = quiet.level
    quiet.setLevel(logging.CRITICAL)             # a worker's shutdown is not an error worth a traceback
    try:
        runner = slurm.SLURMRunner(
            scheduler_file=os.path.join(directory, "meanfield-scheduler-{job_id}.json"),
            scheduler_options={"dashboard_address": DASHBOARD, **spec.scheduler_options},
            worker_options={"nthreads": 1, **({"interface": spec.interface} if spec.interface else {}),
                            **({"local_directory": spec.local_directory} if spec.local_directory else {})})
    finally:
        signal.signal(signal.SIGINT, previous)
        quiet.setLevel(level)
    import dask
    from dask.distributed import Client
    with runner, Client(runner) as client, dask.config.set(dashboard_link(spec)):
        try:
            client.wait_for_workers(runner.n_workers, timeout=spec.patience)
        except TimeoutError:
            have = len(client.scheduler_info()["workers"])
            raise ClusterError(f"only {have} of {runner.n_workers} workers connected within cluster.patience = "
                               f"{spec.patience:g} s") from None
        try:
            yield client, runner.n_workers
        finally:
            with suppress(FileNotFoundError):
                os.remove(runner.scheduler_file)


__all__ = ["SlurmJobs", "slurm_runner", "slurm_kwargs", "jobqueue", "nodes", "WORKER_ENV", "ALLOCATOR_ENV",
           "QUEUE_POLL"]
