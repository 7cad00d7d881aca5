#!/usr/bin/env bash
# One-shot check of the CUDA backend on a fresh GPU machine (NVIDIA H100/H200), in at most ~8 minutes:
#
#   1. install as docs/clusters.md says (pip install ".[gpu]" into a fresh venv); nvidia-smi and the versions
#   2. meanfield info --devices
#   3. the CUDA tests (tests/cuda) on the device, not the simulator
#   4. correctness: tests/data's first 25 steps cuda vs cpu (<= 1e-12); the quick Figure 3's labels and lambda1,
#      cuda vs cpu (within one standard error); float32 vs float64 (precision_check)
#   5. timings: bench/gpu.py (steps/s, 1e3..1e6 points, float64/float32, 0/12 exponents); the full Figure 3 and
#      twice (the second with this machine's kernel caches warm: what compiling costs); the census runs on
#      the CPU by design
#   6. a summary: device, driver, every number, the crossover batch against the project's 2-core CPU
#
# Usage (repository root or anywhere):
#   bash bench/gpu_check.sh                   # on the GPU machine
#   bash bench/gpu_check.sh --smoke           # rehearsal without a GPU: numba's CUDA simulator, tiny sizes,
#                                             # the current python (no venv, no pip)
#   options: --python PY (use PY, skip the venv and pip), --output FILE (the results file)
#   environment: OUT (results go to $OUT/gpu_check.txt), GPU_CHECK_SMOKE=1 (= --smoke), GPU_CHECK_BUDGET
#   (seconds for sections 1-5, default 450), GPU_CHECK_WORK (scratch folder: venv, sweep files, logs),
#   GPU_CHECK_WHEELS (a folder of wheels installed with --no-index --no-deps into a --target folder on
#   PYTHONPATH when the fresh venv is not used: --python, or the index unreachable),
#   GPU_CHECK_INSTALL=1 (with --smoke: still make the venv and pip install, to rehearse section 1)
#
# Every part runs under its own `timeout`: its cap, or less when the budget left must keep a minimum for the
# parts after it. A failing part is recorded and the script goes on. One results file holds every part's
# output, its status and its time, and the closing summary; the exit status is 0 unless the results file
# cannot be written.
# shellcheck disable=SC2317  # the parts' functions run through fpart (bash -c), which shellcheck cannot follow
set -u
set -o pipefail

usage() { awk 'NR > 1 && /^#/ && !/shellcheck/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "${BASH_SOURCE[0]}"; }

SMOKE=${GPU_CHECK_SMOKE:-0}
PY_ARG=""
RESULTS=""
while (( $# )); do
    case $1 in
        --smoke) SMOKE=1 ;;
        --python) PY_ARG=${2:?--python needs a path}; shift ;;
        --output) RESULTS=${2:?--output needs a file}; shift ;;
        -h|--help) usage; exit 0 ;;
        *) echo "gpu_check.sh: unknown argument $1 (--help)" >&2; exit 2 ;;
    esac
    shift
done

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$REPO" || exit 2
START=$(date +%s)
BUDGET=${GPU_CHECK_BUDGET:-450}     # + at most ~15 s for a last kill and the summary: under 8 minutes
WORK=${GPU_CHECK_WORK:-$(mktemp -d /tmp/gpu_check.XXXXXX)}
mkdir -p "$WORK" || exit 2
if [[ -z $RESULTS ]]; then
    if [[ -n ${OUT:-} ]]; then RESULTS=$OUT/gpu_check.txt; else RESULTS=$REPO/bench/gpu_check_results.txt; fi
fi
if ! { mkdir -p "$(dirname "$RESULTS")" && : > "$RESULTS"; }; then echo "cannot write $RESULTS" >&2; exit 2; fi
KV=$WORK/results.kv
: > "$KV"
export PYTHONUNBUFFERED=1 REPO WORK

# --- output helpers -----------------------------------------------------------------------------------------------

say() { printf '%s\n' "$*" | tee -a "$RESULTS"; }
kv() { printf '%s %s\n' "$1" "$2" >> "$KV"; }
header() { say ""; say "################ $* ################"; }

# Minimum seconds kept for the parts still to come (their "floor"); each part subtracts its own when it starts.
FLOORS_LEFT=0

# part ID CAP FLOOR CMD [ARGS...]: run CMD under `timeout` (CAP seconds, or what the budget leaves after the
# floors of the parts to come), its output into the results file and $WORK/ID.log, its RESULT lines into the
# summary's key-value file, its status and seconds recorded.
part() {
    local id=$1 cap=$2 floor=$3
    shift 3
    FLOORS_LEFT=$(( FLOORS_LEFT - floor ))
    local now left limit t0 t1 rc status
    now=$(date +%s)
    left=$(( START + BUDGET - now - FLOORS_LEFT ))
    limit=$(( cap < left ? cap : left ))
    say ""
    say "--- [$id] $(date -u +%H:%M:%S) (t+$(( now - START )) s), timeout ${limit} s: $*"
    kv "part.$id.limit" "$limit"
    if (( limit < 10 )); then
        say "--- [$id] SKIPPED: the time budget is spent"
        kv "part.$id.status" "SKIPPED(budget)"; kv "part.$id.seconds" 0
        return 1
    fi
    t0=$(date +%s)
    timeout -k 10 "$limit" "$@" < /dev/null 2>&1 | tee -a "$RESULTS" "$WORK/$id.log"
    rc=${PIPESTATUS[0]}
    t1=$(date +%s)
    case $rc in
        0) status=ok ;;
        124) status="TIMEOUT(${limit}s)" ;;
        137) status="KILLED(timeout+10s)" ;;
        *) status="FAILED(rc=$rc)" ;;
    esac
    say "--- [$id] $status in $(( t1 - t0 )) s"
    kv "part.$id.status" "$status"; kv "part.$id.seconds" "$(( t1 - t0 ))"
    grep '^RESULT ' "$WORK/$id.log" | cut -d' ' -f2- >> "$KV"
    return "$rc"
}

# fpart ID CAP FLOOR FUNCTION [ARGS...]: part() for a shell function of this script (exported, run by bash -c).
fpart() {
    local id=$1 cap=$2 floor=$3 fn=$4
    shift 4
    # shellcheck disable=SC2163  # exports the function named by $fn
    export -f "$fn"
    part "$id" "$cap" "$floor" bash -c "$fn \"\$@\"" "$fn" "$@"
}

# --- the parts' shell functions (run in a child bash by fpart: they see only exported variables) -------------------

# The first python >= 3.11 (setup.cfg's python_requires) on PATH.
pick_python() {
    local c
    for c in python3 python3.13 python3.12 python3.11 python; do
        if command -v "$c" > /dev/null && "$c" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2> /dev/null
        then command -v "$c"; return 0; fi
    done
    return 1
}
export -f pick_python      # used by install_venv in fpart's child bash

# Section 1: the install of docs/clusters.md, `pip install ".[gpu]"`, into a fresh venv (plus the test runner).
install_venv() {
    local base
    base=$(pick_python) || { echo "no python >= 3.11 on PATH"; return 1; }
    echo "base python: $base ($("$base" --version 2>&1))"
    echo "+ pip index versions cupy-cuda12x   (is the package index reachable? else no install, at once)"
    local probe
    if ! probe=$(timeout 30 "$base" -m pip index versions cupy-cuda12x --disable-pip-version-check --retries 0 \
                 --timeout 10 2>&1); then
        grep -v '^WARNING' <<< "$probe"
        if ! grep -q 'unknown command' <<< "$probe"; then    # an old pip without `pip index`: try the install
            echo "THE PACKAGE INDEX IS UNREACHABLE (or has no cupy-cuda12x): no install"
            return 1
        fi
    fi
    grep -v '^WARNING' <<< "$probe" | head -3
    rm -rf "$VENV"
    "$base" -m venv "$VENV" || { echo "python -m venv failed"; return 1; }
    echo "+ pip install \".[gpu]\" pytest pytest-xdist  (into $VENV)"
    "$VENV/bin/python" -m pip install --disable-pip-version-check --progress-bar off --retries 1 --timeout 20 \
        ".[gpu]" pytest pytest-xdist || { echo "PIP INSTALL FAILED (rc=$?)"; return 1; }
    "$VENV/bin/python" -c 'import meanfield, numba.cuda; print("import meanfield, numba.cuda: ok")'
}

# Section 1 without the fresh venv: the wheels of GPU_CHECK_WHEELS (no index, no dependencies) into $WORK/site.
install_wheels() {
    [[ -d $GPU_CHECK_WHEELS ]] || { echo "GPU_CHECK_WHEELS=$GPU_CHECK_WHEELS is no folder"; return 1; }
    echo "+ pip install --no-index --no-deps --target $WORK/site $GPU_CHECK_WHEELS/*.whl"
    "$PY" -m pip install --disable-pip-version-check --no-index --no-deps --no-compile --upgrade \
        --target "$WORK/site" "$GPU_CHECK_WHEELS"/*.whl
}

# Section 1: the device, the driver and the versions.
versions() {
    echo "+ nvidia-smi"
    if command -v nvidia-smi > /dev/null; then
        nvidia-smi
        local q
        q=$(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | head -1)
        echo "RESULT gpu_name $(cut -d, -f1 <<< "$q" | xargs)"
        echo "RESULT driver $(cut -d, -f2 <<< "$q" | xargs)"
        echo "RESULT gpu_memory $(cut -d, -f3 <<< "$q" | xargs)"
        echo "RESULT cuda_driver_version $(nvidia-smi | grep -o 'CUDA Version: [0-9.]*' | head -1 | cut -d' ' -f3)"
    else
        echo "nvidia-smi: not found (no NVIDIA driver on this machine)"
        echo "RESULT gpu_name none (no nvidia-smi)"
    fi
    echo "RESULT host $(hostname) $(uname -m)"
    echo "RESULT cores $(nproc)"
    echo "+ $PY bench/gpu_check.py versions"
    "$PY" bench/gpu_check.py versions
    echo "+ pip list (CUDA-related)"
    "$PY" -m pip list --disable-pip-version-check 2> /dev/null | grep -i -E 'numba|cupy|cuda|nvidia|llvmlite|numpy'
    return 0
}

# Section 2: meanfield info --devices (after checking that the subcommand has the flag).
info_devices() {
    echo "+ meanfield info --help"
    "${MF[@]}" info --help | grep -q -- '--devices' || { echo "meanfield info has no --devices flag"; return 1; }
    echo "meanfield info --help: --devices is there"
    echo "+ meanfield info --devices"
    local out
    out=$("${MF[@]}" info --devices 2>&1)
    local rc=$?
    echo "$out"
    echo "RESULT info_devices $(grep '^cuda' <<< "$out" | paste -sd';')"
    return "$rc"
}

# ----------------------------------------------------------------------------------------------------------------

say "bench/gpu_check.sh: $(date -u '+%Y-%m-%d %H:%M:%S UTC') on $(hostname), repo $REPO"
say "results: $RESULTS; scratch: $WORK; budget ${BUDGET} s for sections 1-5"
kv started "$(date -u '+%Y-%m-%dT%H:%M:%SZ')"
if (( SMOKE )); then
    say "MODE: SMOKE (NUMBA_ENABLE_CUDASIM=1: numba's CUDA simulator; tiny sizes; the current python; numbers"
    say "      are meaningless: this only exercises every command, path, flag and snippet)"
    export NUMBA_ENABLE_CUDASIM=1
    kv mode smoke
else
    say "MODE: DEVICE (NUMBA_ENABLE_CUDASIM unset: the real GPU)"
    unset NUMBA_ENABLE_CUDASIM
    kv mode device
fi

# The floors of the parts (the seconds each keeps when earlier parts overrun), in order: install 0, versions 20,
# info 10, test_no_gpu 10, device tests 40, fixtures 30, quick Figure 3 cpu 20 / cuda 30 / compare 10,
# precision 30, gpu.py 45, Figure 3 45, Figure 3 again 30 (the optional parts have 0). 320 s: the install gets <= 130 s.
FLOORS_LEFT=$(( 0 + 20 + 10 + 10 + 40 + 30 + 20 + 30 + 10 + 30 + 45 + 45 + 30 ))

# --- 1. install and versions ------------------------------------------------------------------------------------
header "1. install (pip install \".[gpu]\" into a fresh venv) and versions"
VENV=$WORK/venv
export VENV
if [[ -n $PY_ARG ]] || (( SMOKE && ! ${GPU_CHECK_INSTALL:-0} )); then
    PY=${PY_ARG:-$(command -v python3 || command -v python)}
    say "no venv, no pip: using $PY (--smoke or --python)"
    kv install "skipped ($( (( SMOKE )) && echo smoke || echo --python): $PY)"
    kv part.1a_install.status "skipped(no venv)"; kv part.1a_install.seconds 0; kv part.1a_install.limit 0
elif fpart 1a_install 150 0 install_venv; then
    PY=$VENV/bin/python
    kv install "ok: fresh venv, pip install .[gpu] pytest pytest-xdist"
else
    PY=$(pick_python || command -v python3)
    say "INSTALL FAILED: going on with $PY and PYTHONPATH=$REPO (the packages this machine already has)"
    kv install "FAILED: fell back to $PY with PYTHONPATH=repo"
fi
if [[ $PY != "$VENV/bin/python" && -n ${GPU_CHECK_WHEELS:-} ]]; then     # what this python lacks, carried as wheels
    export PY GPU_CHECK_WHEELS
    fpart 1a_wheels 60 0 install_wheels && export PYTHONPATH=$WORK/site${PYTHONPATH:+:$PYTHONPATH}
fi
if [[ $PY == "$VENV/bin/python" ]]; then
    [[ -n ${PYTHONPATH:-} ]] && say "unsetting PYTHONPATH=$PYTHONPATH (the fresh venv stands alone)"
    unset PYTHONPATH
else
    export PYTHONPATH=$REPO${PYTHONPATH:+:$PYTHONPATH}     # the checkout, whatever this python has installed
fi
if [[ -x $(dirname "$PY")/meanfield && $PY == "$VENV/bin/python" ]]; then
    MF=("$(dirname "$PY")/meanfield")
else
    MF=("$PY" -m meanfield)
fi
export PY
say "python: $PY; meanfield command: ${MF[*]}; PYTHONPATH=${PYTHONPATH:-}"
fpart 1b_versions 60 20 versions

# --- 2. meanfield info --devices --------------------------------------------------------------------------------
header "2. meanfield info --devices"
export -f info_devices
part 2_info 45 10 bash -c "MF=(${MF[*]@Q}); info_devices"

# --- 3. the CUDA tests on the device ----------------------------------------------------------------------------
header "3. CUDA tests (tests/cuda) on the device"
# tests/cuda's kernel tests are marked cudasim and skipped unless NUMBA_ENABLE_CUDASIM=1 (tests/cuda/conftest.py
# deselects them otherwise); the plugin bench/gpu_check.py lifts that gating when the variable is unset, so
# they run on the GPU. test_no_gpu.py runs first, alone and without the plugin, as in the normal suite (one of
# its tests asserts that its process compiled no kernel). Left out: test_simulator_suite.py (it runs the
# simulator in a child process) and test_ptx.py (offline PTX compilation, superseded by the real kernels here).
PYTEST=(-m pytest -p no:cacheprovider -v -rfEs)
DEVICE_TESTS=(tests/cuda -p bench.gpu_check --durations=8 --ignore=tests/cuda/test_no_gpu.py
              --ignore=tests/cuda/test_simulator_suite.py --ignore=tests/cuda/test_ptx.py)
if "$PY" -c 'import xdist' 2> /dev/null; then
    DEVICE_TESTS+=(-n "$(( $(nproc) < 16 ? $(nproc) : 16 ))")    # each worker compiles its own kernels: in parallel
fi
part 3a_main_process_tests 60 10 env -u NUMBA_ENABLE_CUDASIM "$PY" "${PYTEST[@]}" tests/cuda/test_no_gpu.py
if (( SMOKE )); then
    # the plugin outside the simulator: the cudasim tests must be collected, not deselected
    part 3b_plugin_check 60 0 env -u NUMBA_ENABLE_CUDASIM "$PY" "${PYTEST[@]}" "${DEVICE_TESTS[@]}" --collect-only -q
    # then two of them, in the simulator
    part 3c_device_tests 150 40 "$PY" "${PYTEST[@]}" "${DEVICE_TESTS[@]}" \
        -k "test_simulate_batch_backend_cuda_equals_cpu or test_reducing_backend_in_simulate_batch"
else
    part 3c_device_tests 240 40 env -u NUMBA_ENABLE_CUDASIM "$PY" "${PYTEST[@]}" "${DEVICE_TESTS[@]}"
fi
pytest_line() { grep -E '^=+ .*(passed|failed|error|skipped|deselected|no tests ran).* =+$' "$WORK/$1.log" 2> /dev/null \
                | tail -1 | tr -d '=' | xargs; }
kv tests_summary "test_no_gpu.py: $(pytest_line 3a_main_process_tests); device: $(pytest_line 3c_device_tests)"

# --- 4. correctness -----------------------------------------------------------------------------------------------
header "4. correctness: fixtures, quick Figure 3 cuda vs cpu, float32 vs float64"
part 4a_fixtures 90 30 "$PY" bench/gpu_check.py fixtures

# The quick Figure 3 as a user runs it, once per backend; the CUDA run in one worker and one chunk (docs/clusters.md:
# "Use big chunks (thousands of points)"); its labels come from the same evidence as the CPU's.
if (( SMOKE )); then
    FIG3Q_SET=(--set grid.beta_o.num=2 --set steps=120 --set transient=60); FIG3Q_CHUNK=2; CPU_WORKERS=(--workers 2)
else
    FIG3Q_SET=(); FIG3Q_CHUNK=401; CPU_WORKERS=()
fi
part 4b_fig3q_cpu 90 20 "${MF[@]}" sweep runs/paper_fig3_quick.toml -o "$WORK/fig3q_cpu.h5" --force --no-progress \
    --set backend=cpu "${FIG3Q_SET[@]}" "${CPU_WORKERS[@]}"
part 4b_fig3q_cuda 120 30 "${MF[@]}" sweep runs/paper_fig3_quick.toml -o "$WORK/fig3q_cuda.h5" --force \
    --no-progress --set backend=cuda --set chunk="$FIG3Q_CHUNK" --workers 1 "${FIG3Q_SET[@]}"
part 4b_compare 45 10 "$PY" bench/gpu_check.py compare-sweeps "$WORK/fig3q_cpu.h5" "$WORK/fig3q_cuda.h5"
if (( SMOKE )); then
    part 4c_precision 120 30 "$PY" bench/gpu_check.py precision --smoke
else
    part 4c_precision 120 30 "$PY" bench/gpu_check.py precision
fi

# --- 5. timings ---------------------------------------------------------------------------------------------------
header "5. timings: bench/gpu.py, the full Figure 3 with backend cuda, cold and warm"
if (( SMOKE )); then
    part 5a_gpu_py 180 45 "$PY" bench/gpu.py --smoke --no-fig3
    FIG3_SET=(--set grid.beta_o.num=2 --set steps=150 --set transient=50 --set chunk=2)
else
    # 1e3 ... 1e6 points, float64/float32, 0/12 exponents; the Figure 3 is timed below, end to end
    part 5a_gpu_py 180 45 "$PY" bench/gpu.py --no-fig3 --seconds 1
    FIG3_SET=(--set chunk=4001)
fi
part 5b_fig3_cuda 200 45 "${MF[@]}" sweep runs/paper_fig3.toml -o "$WORK/fig3_cuda.h5" --force --no-progress \
    --set backend=cuda --workers 1 "${FIG3_SET[@]}"
part 5b_fig3_cuda_warm 120 30 "${MF[@]}" sweep runs/paper_fig3.toml -o "$WORK/fig3_cuda.h5" --force \
    --no-progress --set backend=cuda --workers 1 "${FIG3_SET[@]}"
[[ -e $WORK/fig3_cuda.h5 ]] && part 5_info_fig3_cuda 20 0 "${MF[@]}" info "$WORK/fig3_cuda.h5"

# --- 6. summary -----------------------------------------------------------------------------------------------------
kv total_seconds "$(( $(date +%s) - START ))"
header "6. summary"
SUMMARY_PY=$PY
"$SUMMARY_PY" -c 'import sys' 2> /dev/null || SUMMARY_PY=$(command -v python3)
if ! timeout 30 "$SUMMARY_PY" bench/gpu_check.py summary --kv "$KV" --gpu-py "$WORK/5a_gpu_py.log" 2>&1 \
        | tee -a "$RESULTS"; then
    say "summary failed: the raw key-value file follows"
    tee -a "$RESULTS" < "$KV"
fi
say ""
say "done in $(( $(date +%s) - START )) s; results: $RESULTS; scratch (venv, sweep files, logs): $WORK"
exit 0
