// Three ways to add n numbers. Sums are accumulated in double.
//
// sum_serial: one thread walks the whole array: n dependent adds, span n.
// sum_blocks + sum_partials: a tree. Each thread first adds a grid-stride slice of the input
// (Brent's schedule: the work shared out over P threads), then each block halves its partial
// sums in shared memory, log2(blockDim) levels; a second launch reduces the per-block results.

template <typename T>
__device__ void serial_body(const T* __restrict__ x, double* out, long long n) {
    double acc = 0.0;
    for (long long i = 0; i < n; ++i) acc += (double)x[i];
    out[0] = acc;
}

// blockDim.x must be a power of two; the launch gives blockDim.x doubles of shared memory.
template <typename T>
__device__ void tree_body(const T* __restrict__ x, double* partial, long long n) {
    extern __shared__ double level[];
    double acc = 0.0;
    long long stride = (long long)gridDim.x * blockDim.x;
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += stride) acc += (double)x[i];
    level[threadIdx.x] = acc;
    __syncthreads();
    for (unsigned half = blockDim.x / 2; half > 0; half /= 2) {
        if (threadIdx.x < half) level[threadIdx.x] += level[threadIdx.x + half];
        __syncthreads();
    }
    if (threadIdx.x == 0) partial[blockIdx.x] = level[0];
}

extern "C" {
__global__ void sum_serial_f32(const float* x, double* out, long long n) { serial_body(x, out, n); }
__global__ void sum_serial_f64(const double* x, double* out, long long n) { serial_body(x, out, n); }
__global__ void sum_blocks_f32(const float* x, double* partial, long long n) { tree_body(x, partial, n); }
__global__ void sum_blocks_f64(const double* x, double* partial, long long n) { tree_body(x, partial, n); }
__global__ void sum_partials(const double* partial, double* out, long long n) { tree_body(partial, out, n); }
}
