"""Lesson 05, the roofline: self-test questions (reference answers computed by perfcourse)."""

from ...models import counts, datasheets, roofline
from ..question import Question


def _triad_ms():
    triad = counts.get("triad")
    return 1e3 * roofline.roofline_time(triad.flops(2**27), triad.bytes_moved(2**27, dtype="float32"),
                                        datasheets.datasheet("H200").fp32, 4.0e12)


def _useful_fraction(stride=3, lanes=32, sector=32):
    """Bytes a warp's float64 reads use over the bytes of the whole sectors they touch."""
    element = counts.itemsize("float64")
    touched = {lane * stride * element // sector for lane in range(lanes)}
    return lanes * element / (len(touched) * sector)


def _chains_gain(fmas=4096, latency=4, chains=8):
    """Cycles for one chain (each FMA waits `latency`) over cycles for `chains` chains (one issue per cycle)."""
    one = counts.dependent_steps(fmas, 1) * latency
    many = counts.dependent_steps(fmas, chains) * max(latency, chains)
    return one / many


QUESTIONS = [
    Question("l05-ridge", 5,
             "A new accelerator's datasheet gives 2.0 TB/s of memory bandwidth and 450 TFLOP/s of dense bf16. "
             "Where is its ridge point, in FLOP/byte?",
             "ridge = peak FLOP/s / bandwidth = 450e12 / 2.0e12 = 225 FLOP/byte: a bf16 kernel needs about 225 "
             "FLOPs per byte it moves before compute, not memory, limits it. A dense layer at batch 1 does about "
             "1 FLOP per byte: far left of the ridge, memory-bound.",
             reference=lambda: roofline.ridge_point(450e12, 2.0e12), unit="FLOP/byte"),
    Question("l05-triad-time", 5,
             "A triad a = b + q*c runs over n = 2^27 float32 elements on a GPU whose measured bandwidth is 4.0 TB/s "
             "(fp32 peak 67 TFLOP/s). What is the shortest time it can take, in milliseconds?",
             "Triad moves 3 arrays x 2^27 x 4 bytes = 1.61 GB and does only 2 FLOPs per 12 bytes, so the "
             "memory term wins: 1.61e9 B / 4.0e12 B/s = 0.403 ms.",
             reference=_triad_ms, rtol=0.02, unit="ms"),
    Question("l05-dense-bound", 5,
             "One dense layer X[512, 8192] @ W[8192, 8192] in bf16 on an H200 (ridge about 206 FLOP/byte). What "
             "limits it?",
             "FLOPs 2 x 512 x 8192^2 over bytes 2 x (8192^2 + 2 x 512 x 8192): about 455 FLOP/byte, right of "
             "the ridge. The tensor cores set the time; reading the weights is hidden under the arithmetic.",
             choices=("The tensor cores' peak FLOP rate", "Memory bandwidth: reading the weights",
                      "Kernel launch latency, whatever the size", "The PCIe link to the host"),
             correct="a"),
    Question("l05-utilization", 5,
             "nvidia-smi reports 100% GPU utilization while a kernel runs a single block on 1 of the GPU's 132 "
             "SMs for the whole sampling window. At most what fraction of the GPU's arithmetic peak can that "
             "kernel reach?",
             "NVML's utilization is the share of time at least one kernel was running, so it reads 100% here; "
             "the work ran on 1 SM of 132, which can reach at most 1 / 132 = 0.0076 of the peak. Utilization "
             "says busy, not useful, efficient or fast enough.",
             reference=lambda: 1 / 132, rtol=0.02),
    Question("l05-strided-useful", 5,
             "A warp of 32 threads reads float64 elements 3 apart (thread t reads element 3t); the GPU moves memory "
             "in whole 32-byte sectors. What fraction of the bytes fetched for this read does the kernel use?",
             "A sector holds 4 float64. The 32 reads span 96 elements, 24 sectors (768 bytes), of which 32 x 8 = 256 "
             "bytes are used: 1/3. The device is as busy as ever; the useful bandwidth is a third.",
             reference=_useful_fraction, rtol=0.02, unit="(fraction)"),
    Question("l05-fma-chains", 5,
             "A thread does 4096 FMAs as one dependency chain, each FMA waiting about 4 cycles for the previous "
             "result, and its SM has no other warps to switch to. Split into 8 independent chains, how many times "
             "faster can it issue them at best (the unit can start one FMA per cycle)?",
             "One chain issues one FMA every 4 cycles; with 4 or more independent chains an FMA can start every "
             "cycle, so the gain stops at 4x: dependency, not the FLOP count, set the rate.",
             reference=_chains_gain, unit="x"),
]
