// The linear recurrence x[t+1] = a[t] * x[t] + b[t], written two ways.
//
// recurrence_serial: one thread, n dependent steps (span n).
// scan_step + scan_finish: each step t is the affine map f_t(x) = a[t] x + b[t]. Composing two
// maps gives another affine map, and composition is associative, so prefixes can be built by
// log-step doubling (Hillis-Steele): after the pass with offset k, element i holds the
// composition of the maps i-2k+1 .. i. log2(n) passes, then x[t+1] = A[t] * x0 + B[t].

template <typename T>
__device__ void serial_body(const T* __restrict__ a, const T* __restrict__ b, T* __restrict__ x, T x0,
                            long long n) {
    T value = x0;
    for (long long t = 0; t < n; ++t) {
        value = a[t] * value + b[t];
        x[t] = value;
    }
}

// (A, B)[i] <- (A, B)[i] composed after (A, B)[i - k]: A[i] * (A[i-k] x + B[i-k]) + B[i].
template <typename T>
__device__ void step_body(const T* __restrict__ A, const T* __restrict__ B, T* __restrict__ A2,
                          T* __restrict__ B2, long long n, long long k) {
    long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (i >= n) return;
    if (i >= k) {
        A2[i] = A[i] * A[i - k];
        B2[i] = A[i] * B[i - k] + B[i];
    } else {
        A2[i] = A[i];
        B2[i] = B[i];
    }
}

template <typename T>
__device__ void finish_body(const T* __restrict__ A, const T* __restrict__ B, T* __restrict__ x, T x0,
                            long long n) {
    long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (i < n) x[i] = A[i] * x0 + B[i];
}

extern "C" {
__global__ void recurrence_serial_f32(const float* a, const float* b, float* x, float x0, long long n) {
    serial_body(a, b, x, x0, n);
}
__global__ void recurrence_serial_f64(const double* a, const double* b, double* x, double x0, long long n) {
    serial_body(a, b, x, x0, n);
}
__global__ void scan_step_f32(const float* A, const float* B, float* A2, float* B2, long long n, long long k) {
    step_body(A, B, A2, B2, n, k);
}
__global__ void scan_step_f64(const double* A, const double* B, double* A2, double* B2, long long n,
                              long long k) {
    step_body(A, B, A2, B2, n, k);
}
__global__ void scan_finish_f32(const float* A, const float* B, float* x, float x0, long long n) {
    finish_body(A, B, x, x0, n);
}
__global__ void scan_finish_f64(const double* A, const double* B, double* x, double x0, long long n) {
    finish_body(A, B, x, x0, n);
}
}
