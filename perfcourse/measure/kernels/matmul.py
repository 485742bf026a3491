"""Matrix multiply over dtypes, and the dense layer ``Y = X[b, d] @ W[d, d]`` built on it.

Here the library is the kernel: cuBLAS on the GPU, the BLAS behind NumPy on the CPU. An
(m, k) by (k, n) product does 2 m n k FLOPs and, at best, reads both inputs and writes the
output once. bfloat16 has no NumPy dtype, so the course stores it as uint16 bit patterns
(the top half of a float32) and multiplies it on the GPU with ``cublasGemmEx``.

Examples
--------
>>> matmul.flops(4096, 4096, 4096) / 1e9
137.438953472
>>> dense.flops(1, 4096), dense.bytes_moved(1, 4096, dtype="float32") / 2**20
(33554432.0, 64.03125)
>>> hex(int(to_bfloat16(1.0))), float(from_bfloat16(to_bfloat16(3.140625)))
('0x3f80', 3.140625)
"""

from __future__ import annotations

import numpy as np

from ._base import Kernel, uniform
from .bf16 import from_bfloat16, to_bfloat16

__all__ = ["matmul", "dense", "to_bfloat16", "from_bfloat16", "DTYPES"]

DTYPES = ("float16", "bfloat16", "float32", "float64")

# cuBLAS / CUDA enum values (cublas_api.h, library_types.h)
_OP_N, _CUDA_R_32F, _CUDA_R_16BF, _COMPUTE_32F, _GEMM_DEFAULT, _POINTER_HOST = 0, 0, 14, 68, -1, 0


def _as_float64(a):
    a = np.asarray(a)
    return from_bfloat16(a).astype(np.float64) if a.dtype == np.uint16 else a.astype(np.float64)


def _matmul_cpu(A, B):
    if A.dtype == np.uint16:
        raise ValueError("bfloat16 matmul needs the GPU backend: NumPy has no bfloat16")
    return np.matmul(A, B)


def _matmul_gpu(A, B):
    if A.dtype.name == "uint16":
        return _gemm_bfloat16(A, B)
    return A @ B


def _gemm_bfloat16(A, B):
    """Row-major C = A @ B in bfloat16 with float32 accumulation, through cublasGemmEx.

    cuBLAS is column-major: a row-major (m, k) matrix is its (k, m) transpose to cuBLAS, so
    C^T = B^T A^T is computed, which stores C row-major.
    """
    import cupy
    from cupy.cuda import cublas

    (m, k), (k2, n) = A.shape, B.shape
    if k != k2:
        raise ValueError(f"matmul: A is {A.shape} and B is {B.shape}; inner sizes differ")
    A, B = cupy.ascontiguousarray(A), cupy.ascontiguousarray(B)
    C = cupy.empty((m, n), dtype=cupy.uint16)
    one, zero = np.ones(1, np.float32), np.zeros(1, np.float32)
    handle = cupy.cuda.device.get_cublas_handle()
    mode = cublas.getPointerMode(handle)
    cublas.setPointerMode(handle, _POINTER_HOST)
    try:
        cublas.gemmEx(handle, _OP_N, _OP_N, n, m, k, one.ctypes.data, B.data.ptr, _CUDA_R_16BF, n,
                      A.data.ptr, _CUDA_R_16BF, k, zero.ctypes.data, C.data.ptr, _CUDA_R_16BF, n,
                      _COMPUTE_32F, _GEMM_DEFAULT)
    finally:
        cublas.setPointerMode(handle, mode)
    return C


def _reference(A, B):
    return _as_float64(A) @ _as_float64(B)


def _matmul_inputs(m, k, n, *, dtype, xp, rng):
    return uniform(xp, rng, (m, k), dtype), uniform(xp, rng, (k, n), dtype)


def _dense_inputs(b, d, *, dtype, xp, rng):
    return uniform(xp, rng, (b, d), dtype), uniform(xp, rng, (d, d), dtype, low=-0.5, high=0.5)


matmul = Kernel(
    "matmul", "C[m, n] = A[m, k] @ B[k, n] (BLAS)",
    inputs_fn=_matmul_inputs, cpu=_matmul_cpu, gpu=_matmul_gpu, reference=_reference,
    dtypes=DTYPES, gpu_only_dtypes=("bfloat16",))

dense = Kernel(
    "dense", "Y[b, d] = X[b, d] @ W[d, d], one dense layer",
    inputs_fn=_dense_inputs, cpu=_matmul_cpu, gpu=_matmul_gpu, reference=_reference,
    dtypes=DTYPES, gpu_only_dtypes=("bfloat16",))
