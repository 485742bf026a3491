// The CUDA toolkit's own occupancy calculator (cuda_occupancy.h, header only) on cases read from stdin:
// each line "major minor threads_per_sm blocks_per_sm smem_per_sm smem_per_block_optin reserved
// threads_per_block registers shared_bytes"; each answer line "blocks_per_sm".
#include <cstdio>
#include "cuda_occupancy.h"

int main() {
    int major, minor, threads_sm, blocks_sm, threads, regs;
    size_t smem_sm, smem_block, reserved, shared;
    while (std::scanf("%d %d %d %d %zu %zu %zu %d %d %zu", &major, &minor, &threads_sm, &blocks_sm, &smem_sm,
                      &smem_block, &reserved, &threads, &regs, &shared) == 10) {
        cudaOccDeviceProp prop;
        prop.computeMajor = major;
        prop.computeMinor = minor;
        prop.maxThreadsPerBlock = 1024;
        prop.maxThreadsPerMultiprocessor = threads_sm;
        prop.regsPerBlock = 65536;
        prop.regsPerMultiprocessor = 65536;
        prop.warpSize = 32;
        prop.sharedMemPerBlock = 48 * 1024;
        prop.sharedMemPerMultiprocessor = smem_sm;
        prop.numSms = 1;
        prop.sharedMemPerBlockOptin = smem_block;
        prop.reservedSharedMemPerBlock = reserved;
        cudaOccFuncAttributes attr;
        attr.maxThreadsPerBlock = 1024;
        attr.numRegs = regs;
        attr.sharedSizeBytes = 0;                    // all of it dynamic, opted in
        attr.partitionedGCConfig = PARTITIONED_GC_OFF;
        attr.shmemLimitConfig = FUNC_SHMEM_LIMIT_OPTIN;
        attr.maxDynamicSharedSizeBytes = smem_block;
        attr.numBlockBarriers = 1;
        cudaOccDeviceState state;
        cudaOccResult result;
        cudaOccError err = cudaOccMaxActiveBlocksPerMultiprocessor(&result, &prop, &attr, &state, threads, shared);
        std::printf("%d\n", err == CUDA_OCC_SUCCESS ? result.activeBlocksPerMultiprocessor : -1);
    }
    return 0;
}
