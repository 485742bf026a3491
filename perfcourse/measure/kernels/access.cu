// Coalesced against strided reads of the same n elements.
// x is read as a (rows, stride) matrix, column after column: thread (r, c) copies x[r * stride + c]
// into out[c * rows + r]. Neighbouring threads (consecutive r) read addresses `stride` elements
// apart; with stride 1 they read neighbouring addresses and a warp's 32 loads share a few
// 32-byte sectors, with stride >= 8 (float32) each load needs a sector of its own.
// Launch: blockIdx.x * blockDim.x + threadIdx.x over rows, blockIdx.y over the stride columns.

extern "C" __global__ void strided_read_f32(const float* __restrict__ x, float* __restrict__ out, long long rows,
                                             long long stride) {
    long long r = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    long long c = blockIdx.y;
    if (r < rows) out[c * rows + r] = x[r * stride + c];
}
