// Busy but useless: every thread spins on the GPU's nanosecond timer until `ns` nanoseconds
// have passed, then writes its own index. A monitor sees the GPU "100% utilized" for the whole
// time, although the kernel computes nothing anyone needs.

__device__ unsigned long long global_ns() {
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

extern "C" __global__ void spin(float* out, long long ns, long long n) {
    long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    unsigned long long start = global_ns();
    while (global_ns() - start < (unsigned long long)ns) {
    }
    if (i < n) out[i] = (float)i;
}

// An empty kernel: what one launch costs when there is nothing to do.
extern "C" __global__ void noop() {}
