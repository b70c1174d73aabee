// Where HYPRE keeps matrices and vectors, decided by the HYPRE a program is built against (its
// HYPRE_config.h), so that one source serves a CPU HYPRE and a GPU one. Used by the hypre_krylov
// demo and the HYPRE adapter test.
//
// With a GPU HYPRE (HYPRE_USING_GPU; HYPRE's CUDA build defines it) the IJ objects are assembled
// from host arrays into host memory (HYPRE_IJMatrixInitialize_v2 / HYPRE_IJVectorInitialize_v2
// with HYPRE_MEMORY_HOST), then moved to device memory (HYPRE_IJMatrixMigrate /
// HYPRE_IJVectorMigrate); the solvers and both matvecs (HYPRE's and Hola's) then run on the GPU.
// With a CPU HYPRE they are assembled in host memory, as before.
#pragma once

#include <HYPRE.h>
#include <HYPRE_IJ_mv.h>
#include <HYPRE_utilities.h>

#include <string>

#include "hola/gpu_kernels.hpp"

namespace hola::demo {

#if defined(HYPRE_USING_GPU)
inline constexpr bool kHypreOnDevice = true;
#else
inline constexpr bool kHypreOnDevice = false;
#endif

// "device" or "host": where the IJ matrices and vectors made here live.
inline const char* hypre_memory_name() { return kHypreOnDevice ? "device" : "host"; }

// Why this process cannot run HYPRE on the GPU (empty when it can, or when HYPRE is CPU only).
// Checked before HYPRE_Init: a GPU HYPRE initialises the device there.
inline std::string hypre_device_missing() {
  if (!kHypreOnDevice) return {};
#if !defined(HOLA_ENABLE_CUDA)
  return "HYPRE was built for GPUs but Hola without CUDA (no device kernels)";
#else
  if (!hola::gpu::gpu_available())
    return "HYPRE was built for GPUs but no usable CUDA device was found";
  return {};
#endif
}

// After HYPRE_Init: device memory and execution by default (a CUDA build of HYPRE 3.x has these
// defaults already; set here so that nothing depends on it), and BoomerAMG's PMIS coarsening with
// random numbers drawn on the host. HYPRE's curand generator is seeded once and continues from
// one setup to the next, so two setups of the same matrix could coarsen differently; the host
// generator is seeded again at every setup, so a solve with HYPRE's matvec and one with Hola's
// get the same hierarchy.
inline void hypre_use_memory() {
#if defined(HYPRE_USING_GPU)
  HYPRE_SetMemoryLocation(HYPRE_MEMORY_DEVICE);
  HYPRE_SetExecutionPolicy(HYPRE_EXEC_DEVICE);
  HYPRE_SetUseGpuRand(0);
#endif
}

// ij_initialize: ready for HYPRE_IJMatrixSetValues / HYPRE_IJVectorSetValues with host arrays.
// ij_assemble: assembles, then moves the object to device memory with a GPU HYPRE. The IJ
// object's own memory location stays host: set no more values through it afterwards (the arrays
// are on the device).
#if defined(HYPRE_USING_GPU)
inline HYPRE_Int ij_initialize(HYPRE_IJMatrix A) {
  return HYPRE_IJMatrixInitialize_v2(A, HYPRE_MEMORY_HOST);
}
inline HYPRE_Int ij_initialize(HYPRE_IJVector x) {
  return HYPRE_IJVectorInitialize_v2(x, HYPRE_MEMORY_HOST);
}
inline HYPRE_Int ij_assemble(HYPRE_IJMatrix A) {
  const HYPRE_Int rc = HYPRE_IJMatrixAssemble(A);
  return rc | HYPRE_IJMatrixMigrate(A, HYPRE_MEMORY_DEVICE);
}
inline HYPRE_Int ij_assemble(HYPRE_IJVector x) {
  const HYPRE_Int rc = HYPRE_IJVectorAssemble(x);
  return rc | HYPRE_IJVectorMigrate(x, HYPRE_MEMORY_DEVICE);
}
#else
inline HYPRE_Int ij_initialize(HYPRE_IJMatrix A) { return HYPRE_IJMatrixInitialize(A); }
inline HYPRE_Int ij_initialize(HYPRE_IJVector x) { return HYPRE_IJVectorInitialize(x); }
inline HYPRE_Int ij_assemble(HYPRE_IJMatrix A) { return HYPRE_IJMatrixAssemble(A); }
inline HYPRE_Int ij_assemble(HYPRE_IJVector x) { return HYPRE_IJVectorAssemble(x); }
#endif

}  // namespace hola::demo
