#!/usr/bin/env bash
# One run on a GPU machine: the GPU check, then every lesson notebook on the GPU backend.
#
#   scripts/gpu_run.sh OUTDIR
#
# Needs only the machine's own python3 with CuPy, NumPy, matplotlib, pytest, tqdm and SciPy:
# the project is put on PYTHONPATH (nothing is installed) and the notebooks run without
# Jupyter (scripts/run_notebooks.py). Writes to OUTDIR: environment.txt, the gpu-check JSON
# report and logs, notebooks/ (executed copies, transcripts, figures, summary.json) and
# summary.txt. Stays under 8 minutes: the check gets at most 5, the notebooks what is left.
set -u
root="$(cd "$(dirname "$0")/.." && pwd)"
out="${1:?usage: scripts/gpu_run.sh OUTDIR}"
mkdir -p "$out"
out="$(cd "$out" && pwd)"
py="${PYTHON:-python3}"
export PYTHONPATH="$root${PYTHONPATH:+:$PYTHONPATH}"
export PERFCOURSE_BACKEND="${PERFCOURSE_BACKEND:-cupy}" MPLBACKEND=Agg PYTHONUNBUFFERED=1
total=470
start=$(date +%s)
elapsed() { echo $(( $(date +%s) - start )); }

{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "commit: $(git -C "$root" rev-parse HEAD 2>/dev/null || echo unknown)"
  "$py" -c "import sys, numpy, cupy; print('python', sys.version.split()[0]); print('numpy', numpy.__version__); print('cupy', cupy.__version__)"
  nvidia-smi 2>&1 || echo "nvidia-smi not available"
} > "$out/environment.txt" 2>&1

cd "$root"
timeout 300 "$py" -m perfcourse gpu-check --out "$out" 2>&1 | tee "$out/gpu-check.console.log"
check_rc=${PIPESTATUS[0]}
echo "gpu-check finished with exit code $check_rc after $(elapsed) s"

left=$(( total - $(elapsed) ))
if [ "$left" -gt 30 ]; then
  timeout "$left" "$py" "$root/scripts/run_notebooks.py" "$out/notebooks" --timeout 150 --budget $(( left - 15 )) \
    2>&1 | tee "$out/notebooks.console.log"
  nb_rc=${PIPESTATUS[0]}
else
  echo "no time left for the notebooks" | tee "$out/notebooks.console.log"
  nb_rc=1
fi

echo "gpu-check exit $check_rc; notebooks exit $nb_rc; $(elapsed) s in all" | tee "$out/summary.txt"
[ "$check_rc" -eq 0 ] && [ "$nb_rc" -eq 0 ]
