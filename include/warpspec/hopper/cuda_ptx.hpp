#pragma once
// CCCL's cuda::ptx wrappers of the instructions this library uses. <cuda/ptx> includes
// every instruction's header (tcgen05, multimem, ld/st variants...: ~23k of a kernel unit's
// ~123k preprocessed lines, 19%), which cudafe++, the host compiler and cicc parse in every
// CUDA unit; the ones used here come one by one (each is self-contained), or, where a CCCL
// lays its headers out otherwise, the whole <cuda/ptx> (bench/NOTES.md, stop 54: build time).
#if __has_include(<cuda/__ptx/instructions/mbarrier_wait.h>) && __has_include(<cuda/__ptx/instructions/prmt.h>) && \
    __has_include(<cuda/__ptx/instructions/cp_async_bulk.h>)
#include <cuda/__ptx/instructions/barrier_cluster.h>
#include <cuda/__ptx/instructions/cp_async_bulk.h>
#include <cuda/__ptx/instructions/cp_async_bulk_commit_group.h>
#include <cuda/__ptx/instructions/cp_async_bulk_tensor.h>
#include <cuda/__ptx/instructions/cp_async_bulk_wait_group.h>
#include <cuda/__ptx/instructions/fence.h>
#include <cuda/__ptx/instructions/get_sreg.h>
#include <cuda/__ptx/instructions/mbarrier_arrive.h>
#include <cuda/__ptx/instructions/mbarrier_expect_tx.h>
#include <cuda/__ptx/instructions/mbarrier_init.h>
#include <cuda/__ptx/instructions/mbarrier_wait.h>
#include <cuda/__ptx/instructions/prmt.h>
#else
#include <cuda/ptx>
#endif
