"""HDF5 storage (h5py), the schema of docs/storage.md: one file per run, named dimensions readable by
``xarray.open_dataset(path, engine="h5netcdf")``, the model/run spec and provenance in attributes.

The only package that imports h5py, the one owner of result files (sweeps and the trajectory files of
``meanfield simulate``): every other module reads and writes them through the functions here — :mod:`.files`
(primitives, atomic creation, trajectory files), :mod:`.sweep` (a sweep file's layout, creation, refinement
groups), :mod:`.points` (points, the ``analysis`` group, whole-file readers), :mod:`.schema` (long names, units,
flags), :mod:`.provenance` (versions, command, hosts), :mod:`.lock` (one writer at a time) and :mod:`.output`
(which file a sweep writes, replaced atomically).
"""
from .files import (
                    PART_SUFFIX,
                    WRITE_ERRORS,
                    append_provenance,
                    atomic_file,
                    check_output,
                    read_attrs,
                    reading,
                    reason,
                    reserve,
                    update_provenance,
                    write_trajectory,
)
from .points import (
                    SweepData,
                    datasets,
                    done_flags,
                    mark_finished,
                    open_run,
                    read_points,
                    read_sweep,
                    sweep_summary,
                    write_analysis,
                    write_packed,
                    write_points,
)
from .sweep import (
                    REFINE_GROUP,
                    SWEEP_KIND,
                    SYSTEM_DATASETS,
                    create_sweep,
                    differences,
                    open_refinement,
                    open_sweep,
                    raw_nbytes,
                    read_refinements,
                    require_same_run,
                    require_sweep,
                    stored_model,
                    sweep_layout,
                    sweep_nbytes,
                    sweep_state,
)

__all__ = ["PART_SUFFIX", "WRITE_ERRORS", "append_provenance", "atomic_file", "check_output", "read_attrs", "reading",
           "reason", "reserve", "update_provenance", "write_trajectory", "SweepData", "datasets", "done_flags",
           "mark_finished", "open_run", "read_points", "read_sweep", "sweep_summary", "write_analysis",
           "write_packed", "write_points", "REFINE_GROUP", "SWEEP_KIND", "SYSTEM_DATASETS", "create_sweep",
           "differences", "open_refinement", "open_sweep", "raw_nbytes", "read_refinements", "require_same_run",
           "require_sweep",
           "stored_model", "sweep_layout", "sweep_nbytes", "sweep_state"]
