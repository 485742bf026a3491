// STREAM-style kernels: one element per thread, as BabelStream writes them.
// Bytes per element: copy and scale move 2 (read one, write one), add and triad move 3.

template <typename T>
__device__ void copy_body(const T* __restrict__ a, T* __restrict__ c, long long n) {
    long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i];
}

template <typename T>
__device__ void scale_body(const T* __restrict__ c, T* __restrict__ b, T q, long long n) {
    long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (i < n) b[i] = q * c[i];
}

template <typename T>
__device__ void add_body(const T* __restrict__ a, const T* __restrict__ b, T* __restrict__ c, long long n) {
    long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}

template <typename T>
__device__ void triad_body(const T* __restrict__ b, const T* __restrict__ c, T* __restrict__ a, T q,
                           long long n) {
    long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (i < n) a[i] = b[i] + q * c[i];
}

extern "C" {
__global__ void copy_f32(const float* a, float* c, long long n) { copy_body(a, c, n); }
__global__ void copy_f64(const double* a, double* c, long long n) { copy_body(a, c, n); }
__global__ void scale_f32(const float* c, float* b, float q, long long n) { scale_body(c, b, q, n); }
__global__ void scale_f64(const double* c, double* b, double q, long long n) { scale_body(c, b, q, n); }
__global__ void add_f32(const float* a, const float* b, float* c, long long n) { add_body(a, b, c, n); }
__global__ void add_f64(const double* a, const double* b, double* c, long long n) { add_body(a, b, c, n); }
__global__ void triad_f32(const float* b, const float* c, float* a, float q, long long n) {
    triad_body(b, c, a, q, n);
}
__global__ void triad_f64(const double* b, const double* c, double* a, double q, long long n) {
    triad_body(b, c, a, q, n);
}
}
