// Where HYPRE keeps matrices and vectors, decided by the HYPRE a program is built against (its
// HYPRE_config.h), so that one source serves a CPU HYPRE and a GPU one. Used by the hypre_krylov
// demo and the HYPRE adapter test.
//
// With a GPU HYPRE (HYPRE_USING_GPU; HYPRE's CUDA build defines it) the IJ objects are assembled
// from host arrays into host memory (HYPRE_IJMatrixInitialize_v2 / HYPRE_IJVectorInitialize_v2
// with HYPRE_MEMORY_HOST), then moved to device memory (HYPRE_IJMatrixMigrate /
// HYPRE_IJVectorMigrate); the solvers and both matvecs (HYPRE's and Hola's) then run on the GPU.
// With a CPU HYPRE they are assembled in host memory, as before. read_ij_matrix: a Matrix Market
// file assembled the same way (hypre_krylov, hypre_matvec_calls).
#pragma once

#include <HYPRE.h>
#include <HYPRE_IJ_mv.h>
#include <HYPRE_parcsr_mv.h>
#include <HYPRE_utilities.h>
#include <mpi.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

#include "hola/gpu_kernels.hpp"
#include "hola/matrix_market.hpp"

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

// Whether every rank of comm can go on to HYPRE_Init: `missing` is this rank's reason why not
// (empty when it can; hypre_device_missing() for most programs). When any rank has one, rank 0
// prints "SKIPPED: <reason><note>" and the answer is false: the caller finalises MPI and exits
// with 77 (ctest's skip code), before a GPU HYPRE would initialise a device it cannot use.
inline bool hypre_ranks_ready(MPI_Comm comm, const std::string& missing, const char* note = "") {
  int rank = 0, local = missing.empty() ? 0 : 1, any = 0;
  MPI_Comm_rank(comm, &rank);
  MPI_Allreduce(&local, &any, 1, MPI_INT, MPI_MAX, comm);
  if (any && rank == 0)
    std::printf("SKIPPED: %s%s\n", missing.empty() ? "a rank has no usable GPU" : missing.c_str(),
                note);
  return any == 0;
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

// A square IJ matrix of `rows` global rows split evenly over the ranks of MPI_COMM_WORLD: this
// rank's rows [lo, hi], the global nonzero count, and the ParCSR object behind it.
struct IjMatrix {
  HYPRE_BigInt rows = 0, lo = 0, hi = -1;
  long long nnz = 0;
  HYPRE_IJMatrix ij = nullptr;
  HYPRE_ParCSRMatrix A = nullptr;
};

// Assembles this rank's rows, row r from row_entries(r, add) calling add(column, value), in one
// SetValues call from host arrays (moved to device memory with a GPU HYPRE). Throws on a HYPRE
// error.
template <class RowEntries>
IjMatrix assemble_ij_matrix(HYPRE_BigInt rows, RowEntries&& row_entries) {
  int rank = 0, nranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  IjMatrix m;
  m.rows = rows;
  const HYPRE_BigInt base = rows / nranks, extra = rows % nranks;
  m.lo = base * rank + std::min<HYPRE_BigInt>(rank, extra);
  m.hi = m.lo + base + (rank < extra ? 1 : 0) - 1;
  std::vector<HYPRE_Int> counts;
  std::vector<HYPRE_BigInt> row_ids, cols;
  std::vector<double> vals;
  for (HYPRE_BigInt r = m.lo; r <= m.hi; ++r) {
    const std::size_t before = cols.size();
    row_entries(r, [&](HYPRE_BigInt c, double v) {
      cols.push_back(c);
      vals.push_back(v);
    });
    counts.push_back(static_cast<HYPRE_Int>(cols.size() - before));
    row_ids.push_back(r);
  }
  HYPRE_Int rc = HYPRE_IJMatrixCreate(MPI_COMM_WORLD, m.lo, m.hi, m.lo, m.hi, &m.ij);
  rc |= HYPRE_IJMatrixSetObjectType(m.ij, HYPRE_PARCSR);
  if (!counts.empty()) rc |= HYPRE_IJMatrixSetRowSizes(m.ij, counts.data());
  rc |= ij_initialize(m.ij);
  if (!row_ids.empty())
    rc |= HYPRE_IJMatrixSetValues(m.ij, static_cast<HYPRE_Int>(row_ids.size()), counts.data(),
                                  row_ids.data(), cols.data(), vals.data());
  rc |= ij_assemble(m.ij);
  rc |= HYPRE_IJMatrixGetObject(m.ij, reinterpret_cast<void**>(&m.A));
  if (rc)
    throw std::runtime_error("assembling the matrix failed (HYPRE code " + std::to_string(rc) +
                             ")");
  long long local = static_cast<long long>(cols.size());
  MPI_Allreduce(&local, &m.nnz, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
  return m;
}

// A square Matrix Market file (every rank reads it whole: Hola's reader) as an IjMatrix. Throws
// when the file cannot be read or is not square.
inline IjMatrix read_ij_matrix(const std::string& path) {
  const auto file = hola::read_matrix_market<double, std::int64_t, std::int64_t>(path);
  if (file.rows != file.cols)
    throw std::runtime_error(path + " is " + std::to_string(file.rows) + " x " +
                             std::to_string(file.cols) + ": a square matrix is needed");
  return assemble_ij_matrix(static_cast<HYPRE_BigInt>(file.rows), [&](HYPRE_BigInt r, auto&& add) {
    for (std::int64_t e = file.row_ptr[r]; e < file.row_ptr[r + 1]; ++e)
      add(static_cast<HYPRE_BigInt>(file.col_idx[e]), file.values[e]);
  });
}

}  // namespace hola::demo
