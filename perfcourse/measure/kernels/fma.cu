// The same number of fused multiply-adds per thread, split over C independent dependency chains.
// One chain: every FMA waits for the previous result (about 4 cycles of latency each).
// C chains: C FMAs are independent at every step, so a warp can issue them back to back.
// Each chain c starts from x[i] + c and runs `steps` = fmas / C times v = a * v + b.

template <int C>
__device__ void chains_body(const float* __restrict__ x, float* __restrict__ out, float a, float b,
                            int steps, long long n) {
    long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v[C];
#pragma unroll
    for (int c = 0; c < C; ++c) v[c] = x[i] + (float)c;
#pragma unroll 4
    for (int s = 0; s < steps; ++s) {
#pragma unroll
        for (int c = 0; c < C; ++c) v[c] = fmaf(a, v[c], b);
    }
    float total = 0.0f;
#pragma unroll
    for (int c = 0; c < C; ++c) total += v[c];
    out[i] = total;
}

extern "C" {
__global__ void fma_chains_1(const float* x, float* out, float a, float b, int steps, long long n) {
    chains_body<1>(x, out, a, b, steps, n);
}
__global__ void fma_chains_2(const float* x, float* out, float a, float b, int steps, long long n) {
    chains_body<2>(x, out, a, b, steps, n);
}
__global__ void fma_chains_4(const float* x, float* out, float a, float b, int steps, long long n) {
    chains_body<4>(x, out, a, b, steps, n);
}
__global__ void fma_chains_8(const float* x, float* out, float a, float b, int steps, long long n) {
    chains_body<8>(x, out, a, b, steps, n);
}
}
