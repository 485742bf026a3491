// A grid-stride loop: however many blocks are launched, together they cover all n elements.
// Thread g of G = gridDim.x * blockDim.x handles elements g, g + G, g + 2G, ...
// Each element gets `steps` dependent multiply-adds, so the work per element is adjustable.

template <typename T>
__device__ void affine_body(const T* __restrict__ x, T* __restrict__ y, T a, T b, int steps, long long n) {
    long long stride = (long long)gridDim.x * blockDim.x;
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += stride) {
        T v = x[i];
        for (int s = 0; s < steps; ++s) v = a * v + b;
        y[i] = v;
    }
}

extern "C" {
__global__ void grid_stride_f32(const float* x, float* y, float a, float b, int steps, long long n) {
    affine_body(x, y, a, b, steps, n);
}
__global__ void grid_stride_f64(const double* x, double* y, double a, double b, int steps, long long n) {
    affine_body(x, y, a, b, steps, n);
}
}
