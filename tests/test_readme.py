"""Every shell and Python block of README.md and of the documentation pages that hold the manual's runnable
examples (:data:`PAGES`; and every `$ command` line of a transcript block) runs as written, page after page and
in order, in one copy of the repository and one fresh virtual environment (so `pip install .` is tested too),
and exits 0. A block repeated verbatim on a later page (the quick start and the test command, on the README and
on docs/getting_started.md) runs once, where it first appears.

The run is made small in two visible ways, nothing else is changed:

* every `meanfield sweep RUN.toml` also gets `--set` overrides (the documented way to change a run file from the
  command line) that shrink the run: at most :data:`STEPS` steps, :data:`POINTS` values per linspace axis,
  :data:`REPLICAS` finite-N replicas and census starts (the census's longest period cut to half the tail), and
  `--workers 1` unless the command says where it computes (one worker process to start instead of one per core:
  a sweep's results do not depend on its worker count, tests/sweeps/test_dask.py);
* the commands that run the test suite (which includes this test) only collect it (:data:`SUBSTITUTIONS`).

A block may opt out only with a visible line `# not run by tests/test_readme.py: needs ...` naming what this
machine cannot provide (a SLURM cluster, a GPU, a running Dask scheduler). Python blocks must be self-contained
(their own imports). New sections need nothing here: whatever blocks the README and the pages of :data:`PAGES`
hold are run; a page that receives runnable examples (a block that a later block needs runs on an earlier page,
or earlier on the same page) is added to :data:`PAGES`.

The fresh environment sees the libraries already installed for this interpreter (a .pth file), so only the
package itself is built and installed; building it fetches the build requirements (setuptools, setuptools-scm)
as pip does for any install.
"""
import os
import pathlib
import re
import shutil
import subprocess
import sys
import sysconfig
import textwrap

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
STEPS, POINTS, REPLICAS = 400, 5, 4
SUBSTITUTIONS = {"python -m pytest": "python -m pytest --collect-only -q"}
OPT_OUT = re.compile(r"#\s*not run by tests/test_readme\.py:\s*needs (.+)")
MACHINES_WE_LACK = ("SLURM", "GPU", "Dask scheduler")
#: The pages whose blocks run, in this order, after README.md: the manual's pages that hold runnable examples
#: (the README's sections moved there). A page's blocks may use what an earlier page's blocks wrote
#: (results/fig3_quick.h5 from the quick start).
PAGES = ("README.md", "docs/getting_started.md", "docs/models.md", "docs/storage.md", "docs/bifurcations.md",
         "docs/onset.md", "docs/attractors.md", "docs/basins.md", "docs/clusters.md")

pytestmark = [pytest.mark.slow, pytest.mark.system]      # fresh environments, processes


def blocks(text: str) -> list:
    """(language, code) of every fenced block of a Markdown text, in order."""
    return [(m.group(1), m.group(2)) for m in re.finditer(r"^```(\w*)\n(.*?)^```", text, re.M | re.S)]


def runnable(text: str) -> list:
    out = []
    for language, code in blocks(text):
        if not language:                      # a session transcript: its `$ command` lines are commands
            commands = [line[2:] for line in code.splitlines() if line.startswith("$ ")]
            language, code = ("bash", "\n".join(commands) + "\n") if commands else ("", code)
        if language not in ("bash", "sh", "shell", "python"):
            continue
        reason = OPT_OUT.search(code)
        if reason:
            assert any(m in reason.group(1) for m in MACHINES_WE_LACK), (
                f"a block opts out for {reason.group(1)!r}: only {MACHINES_WE_LACK} are reasons")
            continue
        out.append(("python" if language == "python" else "bash", code))
    return out


def runnable_pages(root: pathlib.Path) -> list:
    """(page, n, language, code) of every block to run, page after page in :data:`PAGES`' order; a block whose
    code an earlier one already holds verbatim is left out (it ran there)."""
    out, seen = [], set()
    for page in PAGES:
        for n, (kind, code) in enumerate(runnable((root / page).read_text(encoding="utf-8"))):
            if code.strip() not in seen:
                seen.add(code.strip())
                out.append((page, n, kind, code))
    return out


def test_the_readme_has_blocks_to_run():
    found = runnable((ROOT / "README.md").read_text(encoding="utf-8"))
    assert any(kind == "bash" and "meanfield sweep" in code for kind, code in found)
    assert any(kind == "python" for kind, _ in found)


def test_every_page_listed_holds_blocks_to_run():
    for page in PAGES[1:]:
        text = (ROOT / page).read_text(encoding="utf-8")
        assert runnable(text) or OPT_OUT.search(text), f"{page} holds no block to run: drop it from PAGES"


#: A `meanfield` first on PATH: the installed command, with small sizes added to `meanfield sweep RUN.toml`.
SHIM = '''#!{python}
import os, sys, tomllib
args = sys.argv[1:]
if args and args[0] == "sweep":
    run_file = next((a for a in args[1:] if a.endswith(".toml")), None)
    data = tomllib.load(open(run_file, "rb")) if run_file and os.path.exists(run_file) else {{}}
    steps = min(int(data.get("steps", {steps})), {steps})
    transient = min(int(data.get("transient", 0)), steps // 2)
    small = {{"steps": steps, "transient": transient}}
    tail = data.get("record", {{}}).get("tail", 0)
    if tail:
        small["record.tail"] = min(tail, steps - transient)
    def fewer(axis):                    # integer axes (seeds) keep integer values
        if not all(isinstance(axis.get(k), int) for k in ("start", "stop")):
            return min(axis["num"], {points})
        span = axis["stop"] - axis["start"]
        return max([k for k in range(2, min(axis["num"], {points}) + 1) if span % (k - 1) == 0] or [axis["num"]])
    def axes(table, prefix):
        for key, value in table.items():
            if isinstance(value, dict) and "num" in value:
                yield prefix + key + ".num", fewer(value)
            elif isinstance(value, dict):
                yield from axes(value, prefix + key + ".")
    small.update(axes(data.get("grid", {{}}), "grid."))
    if "finite" in data:
        small["finite.replicas"] = min(data["finite"].get("replicas", 16), {replicas})
    if "attractors" in data:
        small["attractors.starts"] = min(data["attractors"].get("starts", 64), {replicas})
        small["attractors.max_period"] = min(data["attractors"].get("max_period", 256), (steps - transient) // 2)
    if "basins" in data:
        small["basins.resolution"] = {points} ** 2
    where = ("--workers", "--scheduler", "--slurm", "--runner", "--dry-run")
    one = [] if any(a.split("=")[0] in where for a in args) else ["--workers", "1"]
    args = args[:1] + [x for k, v in small.items() for x in ("--set", f"{{k}}={{v}}")] + one + args[1:]
os.execv("{python}", ["{python}", "-m", "meanfield", *args])
'''


def copy_repository(target: pathlib.Path) -> None:
    """The files git would commit (tracked and new, not ignored), without the .git folder; links stay links
    (meanfield/runs)."""
    listed = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=ROOT, capture_output=True,
                            check=True).stdout.decode().split("\0")
    for name in filter(None, listed):
        source = ROOT / name
        if not (source.is_symlink() or source.is_file()):
            continue
        (target / name).parent.mkdir(parents=True, exist_ok=True)
        if source.is_symlink():
            (target / name).symlink_to(os.readlink(source))
        else:
            shutil.copy2(source, target / name)


def fresh_environment(base: pathlib.Path) -> dict:
    venv = base / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = venv / "bin" / "python"
    site = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          capture_output=True, text=True, check=True).stdout.strip()
    parents = {sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]}
    pathlib.Path(site, "parent_libraries.pth").write_text("\n".join(sorted(parents)) + "\n")
    shims = base / "shims"
    shims.mkdir()
    shim = shims / "meanfield"
    shim.write_text(SHIM.format(python=python, steps=STEPS, points=POINTS, replicas=REPLICAS))
    shim.chmod(0o755)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}
    env.update(PATH=f"{shims}:{venv / 'bin'}:{env.get('PATH', '')}", VIRTUAL_ENV=str(venv),
               PIP_DISABLE_PIP_VERSION_CHECK="1", MPLBACKEND="Agg")
    return env


def test_every_readme_block_runs(tmp_path):
    repo = tmp_path / "repo"
    repo.mkdir()
    copy_repository(repo)
    env = fresh_environment(tmp_path)
    for page, n, kind, code in runnable_pages(repo):
        for old, new in SUBSTITUTIONS.items():
            code = code.replace(old, new)
        command = (["bash", "-euo", "pipefail", "-c", code] if kind == "bash"
                   else ["python", "-c", textwrap.dedent(code)])
        done = subprocess.run(command, cwd=repo, env=env, capture_output=True, text=True)
        assert done.returncode == 0, (f"{page} block {n} ({kind}) failed with status {done.returncode}:\n{code}\n"
                                      f"--- stdout ---\n{done.stdout[-3000:]}\n--- stderr ---\n{done.stderr[-3000:]}")
