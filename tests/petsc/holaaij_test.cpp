// A Hola matrix type against PETSc's own type it is built on: holaaij vs aij (default), or
// holaaijcusparse vs aijcusparse with -hola_test_type holaaijcusparse. Every product, KSP
// iteration counts, duplicates, new values (no new analysis), new nonzeros, MatBindToCPU (the GPU
// type hands the products back to PETSc while bound), COO assembly, LSQR on a rectangular matrix,
// and MPI matrices whose ghost (off-diagonal) blocks are empty on every rank, on some ranks, or
// hold entries in a few rows only. Outputs are filled with NaN before each product that overwrites
// them, and Hola's counters show which block products Hola ran. Run with 1 to 4 ranks; with more
// than one rank the last rank owns no rows (so ranks have ghost entries from 3 ranks on).
// Exit code 0 when every check passed, 77 (skipped) for the GPU type without a usable GPU.
#include <petscksp.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <limits>
#include <vector>

#include "grid_problems.hpp"
#include "hola/petsc.h"

#if !PETSC_VERSION_GE(3, 19, 0)
#define PETSC_SUCCESS 0
#endif

namespace {

int failures = 0;
// The type under test and PETSc's type it is built on (the reference).
const char* test_type = MATHOLAAIJ;
const char* ref_type = MATAIJ;
bool gpu_type = false;
// GPU transposes and long rows use atomics: rounding may differ run to run, so a Krylov solve may
// take one iteration more or less than PETSc's.
PetscInt its_slack = 0;

PetscErrorCode Check(bool ok, const char* what, double value) {
  PetscFunctionBegin;
  if (!ok) failures++;
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s %-44s %.3g\n", ok ? "ok  " : "FAIL", what, value));
  PetscFunctionReturn(PETSC_SUCCESS);
}

// n*n unknowns; the last rank owns none when there are several.
PetscErrorCode LocalRows(PetscInt N, PetscInt* mloc) {
  PetscMPIInt rank, size;
  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  if (size == 1)
    *mloc = N;
  else {
    const PetscInt parts = size - 1;
    *mloc = rank == size - 1 ? 0 : N / parts + (rank < N % parts ? 1 : 0);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

// An N x N matrix of the type, rows (and columns) split as LocalRows does, not yet preallocated.
PetscErrorCode CreateSquareUnallocated(MatType type, PetscInt N, Mat* A) {
  PetscInt m;
  PetscFunctionBegin;
  PetscCall(LocalRows(N, &m));
  PetscCall(MatCreate(PETSC_COMM_WORLD, A));
  PetscCall(MatSetSizes(*A, m, m, N, N));
  PetscCall(MatSetType(*A, type));
  PetscFunctionReturn(PETSC_SUCCESS);
}

// An n^2 x n^2 matrix of the type, rows split as LocalRows does, not yet preallocated.
PetscErrorCode CreateUnallocated(MatType type, PetscInt n, Mat* A) {
  PetscFunctionBegin;
  PetscCall(CreateSquareUnallocated(type, n * n, A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

// The same, preallocated for nz_diag entries per row in the diagonal block and nz_ghost in the
// ghost block (more may come: no allocation error).
PetscErrorCode CreateSquare(MatType type, PetscInt N, PetscInt nz_diag, PetscInt nz_ghost, Mat* A) {
  PetscFunctionBegin;
  PetscCall(CreateSquareUnallocated(type, N, A));
  PetscCall(MatSeqAIJSetPreallocation(*A, nz_diag, nullptr));
  PetscCall(MatMPIAIJSetPreallocation(*A, nz_diag, nullptr, nz_ghost, nullptr));
  PetscCall(MatSetOption(*A, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

// The 2D grid matrix of the tests: n^2 x n^2, 5-point.
PetscErrorCode Create(MatType type, PetscInt n, Mat* A) {
  PetscFunctionBegin;
  PetscCall(CreateSquare(type, n * n, 5, 2, A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

// Row r of the 5-point operator c on the n x n grid (solvers_demo/grid_problems.hpp).
PetscErrorCode SetRow(Mat A, PetscInt n, PetscInt r, const hola::grid::FivePoint& c) {
  PetscInt cols[5], m = 0;
  PetscScalar v[5];
  PetscFunctionBegin;
  hola::grid::five_point_row(n, r, c, [&](PetscInt col, double value) {
    cols[m] = col;
    v[m++] = value;
  });
  PetscCall(MatSetValues(A, 1, &r, m, cols, v, INSERT_VALUES));
  PetscFunctionReturn(PETSC_SUCCESS);
}

// Shifted 2D Laplacian with a small unsymmetric convection term; `extra` adds far-away entries.
PetscErrorCode Fill(Mat A, PetscInt n, PetscScalar shift, PetscBool extra) {
  PetscInt rs, re;
  PetscFunctionBegin;
  PetscCall(MatGetOwnershipRange(A, &rs, &re));
  const hola::grid::FivePoint c{4.0 + (double)PetscRealPart(shift), -1.0, -1.0, -1.1, -0.9};
  for (PetscInt r = rs; r < re; r++) {
    PetscCall(SetRow(A, n, r, c));
    if (extra) PetscCall(MatSetValue(A, r, (r + n * n / 2) % (n * n), 0.01, INSERT_VALUES));
  }
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode DestroyAll(std::initializer_list<Vec*> vecs) {
  PetscFunctionBegin;
  for (Vec* v : vecs) PetscCall(VecDestroy(v));
  PetscFunctionReturn(PETSC_SUCCESS);
}
PetscErrorCode DestroyAll(std::initializer_list<Mat*> mats) {
  PetscFunctionBegin;
  for (Mat* m : mats) PetscCall(MatDestroy(m));
  PetscFunctionReturn(PETSC_SUCCESS);
}

// Largest over the ranks; NaN on any rank gives NaN (MPI_MAX may drop a NaN).
PetscErrorCode MaxAll(PetscReal* value) {
  PetscReal local[2] = {PetscIsNanReal(*value) ? (PetscReal)1 : (PetscReal)0,
                        PetscIsNanReal(*value) ? (PetscReal)0 : *value},
            all[2];
  PetscFunctionBegin;
  PetscCallMPI(MPI_Allreduce(local, all, 2, MPIU_REAL, MPIU_MAX, PETSC_COMM_WORLD));
  *value = all[0] > 0 ? std::numeric_limits<PetscReal>::quiet_NaN() : all[1];
  PetscFunctionReturn(PETSC_SUCCESS);
}

// Relative difference ||a - ref|| / ||ref||, the largest over the ranks (sequential vectors, e.g.
// of the ghost blocks, differ per rank). NaN anywhere in a gives NaN, and fails every check.
PetscErrorCode RelDiff(Vec a, Vec ref, PetscReal* rel) {
  Vec d;
  PetscReal nd, nr;
  PetscFunctionBegin;
  PetscCall(VecDuplicate(a, &d));
  PetscCall(VecWAXPY(d, -1.0, ref, a));
  PetscCall(VecNorm(d, NORM_2, &nd));
  PetscCall(VecNorm(ref, NORM_2, &nr));
  *rel = nr > 0 ? nd / nr : nd;
  PetscCall(VecDestroy(&d));
  PetscCall(MaxAll(rel));
  PetscFunctionReturn(PETSC_SUCCESS);
}

// Fills v with NaN (on the device for a GPU vector): a product that leaves any entry of its output
// unwritten shows up as NaN.
PetscErrorCode Poison(Vec v) {
  PetscFunctionBegin;
  PetscCall(VecSet(v, std::numeric_limits<PetscReal>::quiet_NaN()));
  PetscFunctionReturn(PETSC_SUCCESS);
}

// Sum over the ranks.
PetscErrorCode SumAll(PetscInt local, PetscInt* total) {
  PetscFunctionBegin;
  PetscCallMPI(MPI_Allreduce(&local, total, 1, MPIU_INT, MPI_SUM, PETSC_COMM_WORLD));
  PetscFunctionReturn(PETSC_SUCCESS);
}

// The local blocks of A on this rank: the diagonal block and the ghost (off-diagonal) block of an
// MPI matrix, or A itself and none.
PetscErrorCode LocalBlocks(Mat A, Mat* diag, Mat* ghost) {
  PetscBool mpi;
  PetscFunctionBegin;
  *diag = A;
  *ghost = nullptr;
  PetscCall(PetscObjectBaseTypeCompare((PetscObject)A, MATMPIAIJ, &mpi));  // mpiaijcusparse too
  if (mpi) PetscCall(MatMPIAIJGetSeqAIJ(A, diag, ghost, nullptr));
  PetscFunctionReturn(PETSC_SUCCESS);
}

// Hola's counters of one local block and its stored nonzeros.
struct BlockCounts {
  PetscInt calls = 0, fallbacks = 0, nnz = 0;
};
// [0] the diagonal block, [1] the ghost block (zero when there is none).
PetscErrorCode GetBlockCounts(Mat A, BlockCounts counts[2]) {
  Mat blk[2];
  PetscFunctionBegin;
  PetscCall(LocalBlocks(A, &blk[0], &blk[1]));
  for (int b = 0; b < 2; b++) {
    counts[b] = BlockCounts{};
    if (!blk[b]) continue;
    MatInfo info;
    PetscCall(HolaPetscGetStats(blk[b], &counts[b].calls, &counts[b].fallbacks, nullptr));
    PetscCall(MatGetInfo(blk[b], MAT_LOCAL, &info));
    counts[b].nnz = (PetscInt)info.nz_used;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

enum class Expect { hola, fallback };

// Runs call() and adds the flops PETSc's log counted meanwhile to *sum (Hola must log what PETSc's
// own product logs: -log_view's MFlop/s compare like for like).
template <class Call>
PetscErrorCode CountFlops(PetscLogDouble* sum, Call&& call) {
  PetscLogDouble before, after;
  PetscFunctionBegin;
  PetscCall(PetscGetFlops(&before));
  PetscCall(call());
  PetscCall(PetscGetFlops(&after));
  *sum += after - before;
  PetscFunctionReturn(PETSC_SUCCESS);
}

// The products Compare runs on A: MatMult, MatMultAdd twice, MatMultTranspose,
// MatMultTransposeAdd twice. PETSc's MPI products call each local block once per product.
constexpr PetscInt kProducts = 6;

// All products of A against R, outputs poisoned with NaN where they are not also an input; also
// checks that Hola's kernels ran: every local block with nonzeros (the ghost block too) ran Hola
// for every product and no block fell back to PETSc, while a block without nonzeros needs no
// kernel and must not fall back either. With Expect::fallback every product went to PETSc's own
// operations instead.
PetscErrorCode Compare(const char* what, Mat A, Mat R, Expect expect = Expect::hola) {
  Vec x, y, yr, w, xt, zt, ztr, wt;
  PetscReal e;
  PetscInt before, after, fb_before, fb_after;
  BlockCounts blocks_before[2], blocks_after[2];
  char label[160];
  const PetscReal tol = 1e-12;
  PetscLogDouble flops_a = 0, flops_r = 0;  // logged by A's and R's MatMult .. MatMultTranspose

  PetscFunctionBegin;
  PetscCall(HolaPetscGetStats(A, &before, &fb_before, nullptr));
  PetscCall(GetBlockCounts(A, blocks_before));
  PetscCall(MatCreateVecs(A, &x, &y));
  PetscCall(VecDuplicate(y, &yr));
  PetscCall(VecDuplicate(y, &w));
  PetscCall(VecDuplicate(x, &xt));
  PetscCall(VecDuplicate(x, &zt));
  PetscCall(VecDuplicate(x, &ztr));
  PetscCall(VecDuplicate(x, &wt));
  PetscCall(VecSetRandom(x, nullptr));
  PetscCall(VecSetRandom(w, nullptr));
  PetscCall(VecSetRandom(wt, nullptr));

  PetscCall(Poison(y));
  PetscCall(CountFlops(&flops_a, [&] { return MatMult(A, x, y); }));
  PetscCall(CountFlops(&flops_r, [&] { return MatMult(R, x, yr); }));
  PetscCall(RelDiff(y, yr, &e));
  PetscCall(PetscSNPrintf(label, sizeof(label), "%s: MatMult", what));
  PetscCall(Check(e <= tol, label, e));

  PetscCall(Poison(y));
  PetscCall(CountFlops(&flops_a, [&] { return MatMultAdd(A, x, w, y); }));  // y = w + A x
  PetscCall(CountFlops(&flops_r, [&] { return MatMultAdd(R, x, w, yr); }));
  PetscCall(RelDiff(y, yr, &e));
  PetscCall(PetscSNPrintf(label, sizeof(label), "%s: MatMultAdd", what));
  PetscCall(Check(e <= tol, label, e));

  PetscCall(CountFlops(&flops_a, [&] { return MatMultAdd(A, x, y, y); }));  // z == y
  PetscCall(CountFlops(&flops_r, [&] { return MatMultAdd(R, x, yr, yr); }));
  PetscCall(RelDiff(y, yr, &e));
  PetscCall(PetscSNPrintf(label, sizeof(label), "%s: MatMultAdd z==y", what));
  PetscCall(Check(e <= tol, label, e));

  PetscCall(Poison(zt));
  PetscCall(CountFlops(&flops_a, [&] { return MatMultTranspose(A, w, zt); }));
  PetscCall(CountFlops(&flops_r, [&] { return MatMultTranspose(R, w, ztr); }));
  PetscCall(RelDiff(zt, ztr, &e));
  PetscCall(PetscSNPrintf(label, sizeof(label), "%s: MatMultTranspose", what));
  PetscCall(Check(e <= tol, label, e));
  if (expect == Expect::hola) {
    // Summed over the ranks: MPI products log per local block. The host types must agree
    // exactly. The GPU type logs 2 nz per product, as aijcusparse does for sequential matrices
    // and MPI diagonal blocks on PETSc 3.26; for ghost blocks aijcusparse subtracts their
    // nonempty rows when there is no y (H100, PETSc 3.26.1): reported, not checked.
    PetscLogDouble all[2], mine[2] = {flops_a, flops_r};
    PetscCallMPI(MPI_Allreduce(mine, all, 2, MPI_DOUBLE, MPI_SUM, PETSC_COMM_WORLD));
    PetscCall(PetscSNPrintf(label, sizeof(label), "%s: flops logged %.0f, native %.0f", what,
                            (double)all[0], (double)all[1]));
    if (!gpu_type)
      PetscCall(Check(all[0] == all[1], label, (double)all[0]));
    else if (all[0] != all[1])
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "note %s\n", label));
  }

  // Reference of z = y + A^T w: the native MatMultTranspose plus VecAXPY (the native
  // MatMultTransposeAdd of aijcusparse is compared too, but only reported: on the H200 with
  // PETSc 3.26.1 it disagreed with both this reference and Hola, see docs/petsc.md).
  Vec tref;
  PetscCall(VecDuplicate(x, &tref));
  PetscCall(MatMultTranspose(R, w, tref));
  PetscCall(Poison(zt));
  PetscCall(MatMultTransposeAdd(A, w, wt, zt));
  PetscCall(VecWAXPY(ztr, 1.0, tref, wt));
  PetscCall(RelDiff(zt, ztr, &e));
  PetscCall(PetscSNPrintf(label, sizeof(label), "%s: MatMultTransposeAdd", what));
  PetscCall(Check(e <= tol, label, e));
  {
    Vec native;
    PetscReal en;
    PetscCall(VecDuplicate(x, &native));
    PetscCall(MatMultTransposeAdd(R, w, wt, native));
    PetscCall(RelDiff(native, ztr, &en));
    if (en > tol)
      PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                            "note %s: the native MatMultTransposeAdd differs from "
                            "MatMultTranspose + VecAXPY by %g\n",
                            what, (double)en));
    PetscCall(VecDestroy(&native));
  }

  PetscCall(MatMultTransposeAdd(A, w, zt, zt));
  PetscCall(VecAXPY(ztr, 1.0, tref));
  PetscCall(RelDiff(zt, ztr, &e));
  PetscCall(PetscSNPrintf(label, sizeof(label), "%s: MatMultTransposeAdd z==y", what));
  PetscCall(Check(e <= tol, label, e));
  PetscCall(VecDestroy(&tref));

  PetscCall(HolaPetscGetStats(A, &after, &fb_after, nullptr));
  PetscCall(GetBlockCounts(A, blocks_after));
  PetscInt calls, fallbacks;
  PetscCall(SumAll(after - before, &calls));
  PetscCall(SumAll(fb_after - fb_before, &fallbacks));
  if (expect == Expect::hola) {
    // Per rank and block; then the ranks whose blocks were not all Hola's.
    PetscInt bad = 0, with_nnz = 0, ghosts = 0;
    Mat diag, ghost;
    PetscCall(LocalBlocks(A, &diag, &ghost));
    for (int b = 0; b < 2; b++) {
      const PetscInt c = blocks_after[b].calls - blocks_before[b].calls;
      const PetscInt f = blocks_after[b].fallbacks - blocks_before[b].fallbacks;
      const bool has_nnz = blocks_after[b].nnz > 0;
      if (f != 0 || (has_nnz && c < kProducts)) bad = 1;
      with_nnz += has_nnz ? 1 : 0;
      if (b == 1 && has_nnz) ghosts = 1;
    }
    PetscInt bad_ranks, blocks_all, ghosts_all;
    PetscCall(SumAll(bad, &bad_ranks));
    PetscCall(SumAll(with_nnz, &blocks_all));
    PetscCall(SumAll(ghosts, &ghosts_all));
    if (ghost)
      PetscCall(PetscSNPrintf(label, sizeof(label),
                              "%s: Hola ran every product of the %d blocks with nonzeros (%d "
                              "ghost), no fallback",
                              what, (int)blocks_all, (int)ghosts_all));
    else
      PetscCall(PetscSNPrintf(label, sizeof(label),
                              "%s: Hola ran every product of the %d matrices with nonzeros, no "
                              "fallback",
                              what, (int)blocks_all));
    PetscCall(Check(bad_ranks == 0 && fallbacks == 0 && (calls > 0 || blocks_all == 0), label,
                    (double)bad_ranks));
  } else {
    PetscCall(PetscSNPrintf(label, sizeof(label), "%s: PETSc's products, no Hola kernel", what));
    PetscCall(Check(calls == 0 && fallbacks > 0, label, (double)fallbacks));
  }

  PetscCall(DestroyAll({&x, &y, &yr, &w, &xt, &zt, &ztr, &wt}));
  PetscFunctionReturn(PETSC_SUCCESS);
}

// cuSPARSE's SpGEMM (CUDA 13.0, PETSc 3.26.1) hangs in cusparseSpGEMM_compute during this
// program's second GAMG setup on one rank, with aijcusparse alone (no Hola matrix in the process;
// bench/results/2026-11-26-h100-gamg-spgemm-hang/). So on one rank the GPU types' GAMG builds its
// hierarchy (PETSc's SpGEMM, not Hola's) on the CPU; the solve's products stay on the GPU.
const char* const kCpuProductOptions[] = {"-matmatmult_backend_cpu", "-matptap_backend_cpu",
                                          "-mat_product_algorithm_backend_cpu"};

PetscErrorCode Solve(Mat A, KSPType type, PCType pctype, PetscInt* its) {
  KSP ksp;
  PC pc;
  Vec b, u;
  PetscMPIInt size;
  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  const bool cpu_products = gpu_type && size == 1 && std::strcmp(pctype, PCGAMG) == 0;
  if (cpu_products)
    for (const char* o : kCpuProductOptions) PetscCall(PetscOptionsSetValue(nullptr, o, "1"));
  PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
  PetscCall(KSPSetOperators(ksp, A, A));
  PetscCall(KSPSetType(ksp, type));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCSetType(pc, pctype));
  PetscCall(KSPSetTolerances(ksp, 1e-8, PETSC_DEFAULT, PETSC_DEFAULT, 500));
  PetscCall(MatCreateVecs(A, &u, &b));
  PetscCall(VecSet(b, 1.0));
  PetscCall(KSPSolve(ksp, b, u));
  PetscCall(KSPGetIterationNumber(ksp, its));
  PetscCall(VecDestroy(&u));
  PetscCall(VecDestroy(&b));
  PetscCall(KSPDestroy(&ksp));
  if (cpu_products)
    for (const char* o : kCpuProductOptions) PetscCall(PetscOptionsClearValue(nullptr, o));
  PetscFunctionReturn(PETSC_SUCCESS);
}

// GAMG builds its hierarchy from copies of A (MatDuplicate, its graph): with PETSc 3.18 one of
// them carries A's operation table without Hola's context (GetAttachedCtx re-attaches it).
PetscErrorCode SolveBoth(const char* what, Mat A, Mat R, KSPType type, PCType pctype = PCJACOBI) {
  PetscInt ia, ir;
  char label[128];
  PetscFunctionBegin;
  PetscCall(Solve(A, type, pctype, &ia));
  PetscCall(Solve(R, type, pctype, &ir));
  PetscCall(PetscSNPrintf(label, sizeof(label), "%s: KSP %s + %s its %d == native %d", what, type,
                          pctype, (int)ia, (int)ir));
  PetscCall(Check(PetscAbsInt(ia - ir) <= its_slack && ia > 0, label, (double)ia));
  PetscFunctionReturn(PETSC_SUCCESS);
}

// ---- COO assembly ----
// Global COO triplets: rank p contributes the rows r with r % size == p (whatever rank owns them,
// so the rank without rows contributes too), each diagonal split into two duplicate entries, and
// every rank adds a further duplicate diagonal entry on every fifth row (summed across ranks).
PetscErrorCode CooPattern(PetscInt n, std::vector<PetscInt>* ci, std::vector<PetscInt>* cj) {
  PetscMPIInt rank, size;
  const PetscInt N = n * n;
  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  auto add = [&](PetscInt i, PetscInt j) {
    ci->push_back(i);
    cj->push_back(j);
  };
  for (PetscInt r = 0; r < N; r++) {
    const PetscInt i = r / n, j = r % n;
    if (r % size == rank) {
      add(r, r);
      add(r, r);  // duplicate on the same rank
      if (i > 0) add(r, r - n);
      if (i < n - 1) add(r, r + n);
      if (j > 0) add(r, r - 1);
      if (j < n - 1) add(r, r + 1);
      add(r, (r * 7 + 3) % N);  // far away (may coincide with an entry above: summed)
    }
    if (r % 5 == 0) add(r, r);  // every rank
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

// Values for the triplets; `pass` changes all of them.
void CooValues(const std::vector<PetscInt>& ci, const std::vector<PetscInt>& cj, int pass,
               std::vector<PetscScalar>* v) {
  v->resize(ci.size());
  for (size_t k = 0; k < ci.size(); k++) {
    const PetscInt i = ci[k], j = cj[k];
    const double h = (double)((i * 31 + j * 17 + (PetscInt)k * 3 + pass * 11) % 97) / 97.0;
    (*v)[k] = i == j ? 2.0 + pass + h : -0.5 * h - 0.1 * pass;
  }
}

PetscErrorCode CreateCoo(MatType type, PetscInt n, const std::vector<PetscInt>& ci,
                         const std::vector<PetscInt>& cj, Mat* A) {
  PetscFunctionBegin;
  PetscCall(CreateUnallocated(type, n, A));
  std::vector<PetscInt> i = ci, j = cj;  // PETSc may modify the index arrays
  PetscCall(MatSetPreallocationCOO(*A, (PetscCount)i.size(), i.data(), j.data()));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode RunCoo(PetscInt n) {
  Mat A, R;
  std::vector<PetscInt> ci, cj;
  std::vector<PetscScalar> v;
  PetscBool attached;
  PetscFunctionBegin;
  PetscCall(CooPattern(n, &ci, &cj));
  PetscCall(CreateCoo(test_type, n, ci, cj, &A));
  PetscCall(CreateCoo(ref_type, n, ci, cj, &R));
  PetscCall(HolaPetscIsAttached(A, &attached));
  PetscCall(Check(attached == PETSC_TRUE, "COO: the matrix carries Hola's operations", 0));
  CooValues(ci, cj, 0, &v);
  PetscCall(MatSetValuesCOO(A, v.data(), INSERT_VALUES));
  PetscCall(MatSetValuesCOO(R, v.data(), INSERT_VALUES));
  PetscCall(Compare("COO", A, R));
  PetscCall(SolveBoth("COO", A, R, KSPGMRES));
  CooValues(ci, cj, 1, &v);  // new values, same pattern
  PetscCall(MatSetValuesCOO(A, v.data(), INSERT_VALUES));
  PetscCall(MatSetValuesCOO(R, v.data(), INSERT_VALUES));
  PetscCall(Compare("COO new values", A, R));
  CooValues(ci, cj, 2, &v);  // ADD_VALUES on top
  PetscCall(MatSetValuesCOO(A, v.data(), ADD_VALUES));
  PetscCall(MatSetValuesCOO(R, v.data(), ADD_VALUES));
  PetscCall(Compare("COO ADD_VALUES", A, R));
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&R));
  PetscFunctionReturn(PETSC_SUCCESS);
}

// ---- LSQR on a tall rectangular matrix ----
// (2N) x N: the first N rows are a diagonally dominant band, the next N rows a pseudo-random band
// around row/2 plus a far-away entry. Rows and columns are split with LocalRows (the last rank
// owns neither when there are several).
PetscErrorCode CreateTall(MatType type, PetscInt N, Mat* A) {
  PetscInt m, nl, rs, re;
  const PetscInt M = 2 * N;
  PetscFunctionBegin;
  PetscCall(LocalRows(M, &m));
  PetscCall(LocalRows(N, &nl));
  PetscCall(MatCreate(PETSC_COMM_WORLD, A));
  PetscCall(MatSetSizes(*A, m, nl, M, N));
  PetscCall(MatSetType(*A, type));
  PetscCall(MatSeqAIJSetPreallocation(*A, 6, nullptr));
  PetscCall(MatMPIAIJSetPreallocation(*A, 6, nullptr, 6, nullptr));
  PetscCall(MatGetOwnershipRange(*A, &rs, &re));
  for (PetscInt r = rs; r < re; r++) {
    if (r < N) {
      PetscCall(MatSetValue(*A, r, r, 3.0, ADD_VALUES));
      if (r > 0) PetscCall(MatSetValue(*A, r, r - 1, -0.7, ADD_VALUES));
      if (r < N - 1) PetscCall(MatSetValue(*A, r, r + 1, 0.4, ADD_VALUES));
    } else {
      const PetscInt c = (r - N) / 2 + N / 4;
      for (PetscInt k = -2; k <= 2; k++) {
        const PetscInt j = c + k;
        if (j < 0 || j >= N) continue;
        const double h = (double)((r * 13 + j * 29) % 101) / 101.0 - 0.5;
        PetscCall(MatSetValue(*A, r, j, h, ADD_VALUES));
      }
      PetscCall(MatSetValue(*A, r, (r * 37) % N, 0.05, ADD_VALUES));
    }
  }
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SolveLsqr(Mat A, Vec b, Vec u, PetscInt* its) {
  KSP ksp;
  PC pc;
  PetscFunctionBegin;
  PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
  PetscCall(KSPSetOperators(ksp, A, A));
  PetscCall(KSPSetType(ksp, KSPLSQR));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCSetType(pc, PCNONE));
  PetscCall(KSPSetTolerances(ksp, 1e-13, 1e-30, PETSC_DEFAULT, 1000));
  PetscCall(KSPSolve(ksp, b, u));
  PetscCall(KSPGetIterationNumber(ksp, its));
  PetscCall(KSPDestroy(&ksp));
  PetscFunctionReturn(PETSC_SUCCESS);
}

// Hola kernel calls on this rank for one product (op: 0 MatMult, 1 MatMultTranspose).
PetscErrorCode CallsPerProduct(Mat A, int op, PetscInt* calls) {
  Vec x, y;
  PetscInt before, after;
  PetscFunctionBegin;
  PetscCall(MatCreateVecs(A, &x, &y));
  PetscCall(VecSet(x, 1.0));
  PetscCall(VecSet(y, 1.0));
  PetscCall(HolaPetscGetStats(A, &before, nullptr, nullptr));
  if (op == 0)
    PetscCall(MatMult(A, x, y));
  else
    PetscCall(MatMultTranspose(A, y, x));
  PetscCall(HolaPetscGetStats(A, &after, nullptr, nullptr));
  *calls = after - before;
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode RunLsqr(PetscInt n) {
  Mat A, R;
  Vec xt, b, u, ur;
  PetscInt ia, ir, before, after, cm, ct, re, rs;
  PetscReal e;
  char label[128];
  const PetscInt N = n * n;
  PetscFunctionBegin;
  PetscCall(CreateTall(test_type, N, &A));
  PetscCall(CreateTall(ref_type, N, &R));
  PetscCall(Compare("LSQR tall", A, R));
  PetscCall(MatCreateVecs(R, &xt, &b));
  PetscCall(VecDuplicate(xt, &u));
  PetscCall(VecDuplicate(xt, &ur));
  PetscCall(VecSetRandom(xt, nullptr));
  PetscCall(MatMult(R, xt, b));  // consistent right-hand side, same for both

  PetscCall(HolaPetscGetStats(A, &before, nullptr, nullptr));
  PetscCall(SolveLsqr(A, b, u, &ia));
  PetscCall(HolaPetscGetStats(A, &after, nullptr, nullptr));
  PetscCall(SolveLsqr(R, b, ur, &ir));
  PetscCall(PetscSNPrintf(label, sizeof(label), "LSQR: its %d == native %d", (int)ia, (int)ir));
  PetscCall(Check(PetscAbsInt(ia - ir) <= its_slack && ia > 0, label, (double)ia));
  PetscCall(RelDiff(u, ur, &e));
  PetscCall(Check(e <= 1e-10, "LSQR: solution == native", e));
  PetscCall(RelDiff(u, xt, &e));
  PetscCall(Check(e <= 1e-8, "LSQR: solution == exact", e));

  // On every rank with rows: the solve's kernel calls cover `its` products with A and `its` with
  // A^T, so Hola's transpose ran (PETSc's own transpose would leave about half of them).
  PetscCall(CallsPerProduct(A, 0, &cm));
  PetscCall(CallsPerProduct(A, 1, &ct));
  PetscCall(MatGetOwnershipRange(A, &rs, &re));
  PetscInt calls = after - before, total = 0, bad = 0, badsum = 0;
  if (re > rs && (ct <= 0 || calls < ia * (cm + ct))) bad = 1;
  PetscCallMPI(MPI_Allreduce(&calls, &total, 1, MPIU_INT, MPI_SUM, PETSC_COMM_WORLD));
  PetscCallMPI(MPI_Allreduce(&bad, &badsum, 1, MPIU_INT, MPI_SUM, PETSC_COMM_WORLD));
  PetscCall(Check(total > 0, "LSQR: Hola kernel calls during the solve", (double)total));
  PetscCall(Check(badsum == 0, "LSQR: Hola transpose ran in the solve", (double)badsum));

  PetscCall(DestroyAll({&xt, &b, &u, &ur}));
  PetscCall(DestroyAll({&A, &R}));
  PetscFunctionReturn(PETSC_SUCCESS);
}

// ---- Ghost blocks ----
// Grid problems (solvers_demo/grid_problems.hpp) whose rows keep their entries in other ranks'
// columns only as `Coupling` says: ghost blocks empty on every rank, non-empty on one rank only,
// or non-empty in a few rows (a 3D grid split into z-slabs couples only the planes next to the
// neighbouring slabs). Ghost entries exist from 3 ranks on (on 2 ranks rank 0 owns everything).
enum class Coupling {
  none,               // block diagonal across the ranks: every ghost block is empty
  rank0_reads_rank1,  // only rank 0's rows keep their entries in rank 1's columns
  all,                // the whole grid problem
};

// Sets A's rows from row(r, add), leaving out the entries in other ranks' columns that `coupling`
// drops, and assembles. *ghost_rows: the local rows that kept such an entry.
template <class Row>
PetscErrorCode FillCoupled(Mat A, Coupling coupling, Row&& row, PetscInt* ghost_rows) {
  const PetscInt* ranges;
  PetscMPIInt rank, size;
  PetscInt rs, re;
  std::vector<PetscInt> cols;
  std::vector<PetscScalar> vals;
  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCall(MatGetOwnershipRange(A, &rs, &re));
  PetscCall(MatGetOwnershipRangesColumn(A, &ranges));
  // The rank owning column c (ranks without columns have equal bounds and are skipped).
  auto owner = [&](PetscInt c) {
    return (PetscMPIInt)(std::upper_bound(ranges, ranges + size + 1, c) - ranges - 1);
  };
  *ghost_rows = 0;
  for (PetscInt r = rs; r < re; r++) {
    bool ghost = false;
    cols.clear();
    vals.clear();
    row(r, [&](PetscInt c, double value) {
      const PetscMPIInt o = owner(c);
      if (o != rank) {
        if (coupling == Coupling::none) return;
        if (coupling == Coupling::rank0_reads_rank1 && !(rank == 0 && o == 1)) return;
        ghost = true;
      }
      cols.push_back(c);
      vals.push_back(value);
    });
    if (ghost) (*ghost_rows)++;
    PetscCall(
        MatSetValues(A, 1, &r, (PetscInt)cols.size(), cols.data(), vals.data(), INSERT_VALUES));
  }
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

// The ghost blocks on their own, rank by rank: the ghost block of A (Hola's operations, attached
// by the MPI products before) against that of R (PETSc's; the same structure), through Compare:
// all four products with poisoned outputs, also those that PETSc's MPI products never ask of a
// ghost block (they multiply it in place, y == z, and its transpose writes an internal vector
// that the API cannot poison). Collective; nothing to do on one rank.
PetscErrorCode CompareGhostBlocks(const char* what, Mat A, Mat R) {
  Mat Ad, Ag, Rd, Rg;
  PetscMPIInt size;
  PetscBool attached;
  PetscInt missing;
  char label[128];
  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  if (size == 1) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(LocalBlocks(A, &Ad, &Ag));
  PetscCall(LocalBlocks(R, &Rd, &Rg));
  PetscCheck(Ag && Rg, PETSC_COMM_SELF, PETSC_ERR_PLIB, "an MPI matrix without a ghost block");
  PetscCall(HolaPetscIsAttached(Ag, &attached));
  PetscCall(SumAll(attached ? 0 : 1, &missing));
  PetscCall(PetscSNPrintf(label, sizeof(label), "%s: ghost blocks carry Hola's operations", what));
  PetscCall(Check(missing == 0, label, (double)missing));
  PetscCall(PetscSNPrintf(label, sizeof(label), "%s, ghost block", what));
  PetscCall(Compare(label, Ag, Rg));
  PetscFunctionReturn(PETSC_SUCCESS);
}

// Where a ghost-block problem put its ghost entries, over the ranks.
struct GhostLayout {
  PetscInt ranks_with_rows = 0, ranks_with_ghosts = 0;  // ghosts: a ghost block with nonzeros
  PetscReal max_ghost_row_share = 0;  // the largest share of a rank's rows with ghost entries
};

// One ghost-block problem (N x N, rows from `row`, coupled as `coupling` says) for both types:
// the MPI products, the ghost blocks on their own, a KSP solve with equal iteration counts.
template <class Row>
PetscErrorCode RunGhostCase(const char* what, PetscInt N, PetscInt nz_diag, PetscInt nz_ghost,
                            Coupling coupling, Row&& row, KSPType ksp, GhostLayout* layout) {
  Mat A, R;
  PetscInt ghost_rows, ghost_rows_ref, rs, re;
  BlockCounts counts[2];
  PetscFunctionBegin;
  PetscCall(CreateSquare(test_type, N, nz_diag, nz_ghost, &A));
  PetscCall(CreateSquare(ref_type, N, nz_diag, nz_ghost, &R));
  PetscCall(FillCoupled(A, coupling, row, &ghost_rows));
  PetscCall(FillCoupled(R, coupling, row, &ghost_rows_ref));
  PetscCall(Compare(what, A, R));
  PetscCall(CompareGhostBlocks(what, A, R));
  PetscCall(SolveBoth(what, A, R, ksp));
  // Large enough for GAMG to coarsen (aggressive coarsening copies the graph, see SolveBoth).
  if (ksp == std::string(KSPCG) && N >= 4096) PetscCall(SolveBoth(what, A, R, ksp, PCGAMG));

  PetscCall(GetBlockCounts(A, counts));
  PetscCall(MatGetOwnershipRange(A, &rs, &re));
  PetscCall(SumAll(re > rs ? 1 : 0, &layout->ranks_with_rows));
  PetscCall(SumAll(counts[1].nnz > 0 ? 1 : 0, &layout->ranks_with_ghosts));
  layout->max_ghost_row_share = re > rs ? (PetscReal)ghost_rows / (PetscReal)(re - rs) : 0;
  PetscCall(MaxAll(&layout->max_ghost_row_share));
  PetscCall(DestroyAll({&A, &R}));
  PetscFunctionReturn(PETSC_SUCCESS);
}

// Ghost blocks empty on every rank (block diagonal across the ranks), non-empty on rank 0 only,
// and non-empty in few rows (3D Poisson on n3^3 split into z-slabs, then with 3 unknowns a node
// on (n3 / 2)^3 nodes); the first three also check that the problem has the layout it is meant
// to have.
PetscErrorCode RunGhostBlocks(PetscInt n, PetscInt n3) {
  PetscMPIInt size;
  GhostLayout l;
  const hola::grid::FivePoint spd{}, unsym{4.0, -1.0, -1.0, -1.1, -0.9};
  auto five_point = [n](const hola::grid::FivePoint& c) {
    return [n, c](PetscInt r, auto&& add) { hola::grid::five_point_row(n, r, c, add); };
  };
  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));

  PetscCall(
      RunGhostCase("block-diagonal", n * n, 5, 2, Coupling::none, five_point(spd), KSPCG, &l));
  PetscCall(Check(l.ranks_with_ghosts == 0, "block-diagonal: no rank has ghost entries",
                  (double)l.ranks_with_ghosts));

  PetscCall(RunGhostCase("rank 0 reads rank 1", n * n, 5, 2, Coupling::rank0_reads_rank1,
                         five_point(unsym), KSPGMRES, &l));
  if (size >= 3)
    PetscCall(Check(l.ranks_with_ghosts == 1 && l.ranks_with_rows > l.ranks_with_ghosts,
                    "rank 0 reads rank 1: ghost entries on rank 0 only",
                    (double)l.ranks_with_ghosts));

  PetscCall(RunGhostCase(
      "3D slabs", n3 * n3 * n3, 7, 3, Coupling::all,
      [n3](PetscInt r, auto&& add) { hola::grid::poisson3d_row(n3, r, add); }, KSPCG, &l));
  if (size >= 3)
    PetscCall(Check(l.ranks_with_ghosts == l.ranks_with_rows && l.max_ghost_row_share <= 0.25,
                    "3D slabs: ghost entries on every rank, in <= 25% of its rows",
                    (double)l.max_ghost_row_share));

  // Three unknowns a grid node, coupled within the node (a DMDA with 3 fields): the rows of a
  // node share their columns, which the GPU type's `auto` takes to the `inode` kernel.
  const PetscInt nb = n3 / 2, dof = 3;
  PetscCall(RunGhostCase(
      "3D slabs, 3 unknowns a node", nb * nb * nb * dof, 7 * dof, 2 * dof, Coupling::all,
      [nb](PetscInt r, auto&& add) { hola::grid::poisson3d_block_row(nb, dof, r, add); }, KSPCG,
      &l));
  PetscFunctionReturn(PETSC_SUCCESS);
}

// Analyses (structure changes seen) summed over the ranks.
PetscErrorCode Analyses(Mat A, PetscInt* total) {
  PetscInt local;
  PetscFunctionBegin;
  PetscCall(HolaPetscGetStats(A, nullptr, nullptr, &local));
  PetscCall(SumAll(local, total));
  PetscFunctionReturn(PETSC_SUCCESS);
}

// The matrix keeps the type name of PETSc's type it is built on (seqaij, mpiaijcusparse, ...).
PetscErrorCode CheckTypeName(Mat A) {
  MatType type;
  PetscMPIInt size;
  char expected[64], label[128];
  PetscFunctionBegin;
  PetscCall(MatGetType(A, &type));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCall(PetscSNPrintf(expected, sizeof(expected), "%s%s", size == 1 ? "seq" : "mpi",
                          gpu_type ? "aijcusparse" : "aij"));
  PetscCall(PetscSNPrintf(label, sizeof(label), "type name %s == %s", type, expected));
  PetscCall(Check(std::strcmp(type, expected) == 0, label, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode Run() {
  Mat A, R, S, RS, D;
  PetscInt n = 16;
  PetscBool attached;

  PetscFunctionBegin;
  PetscCall(PetscOptionsGetInt(nullptr, nullptr, "-n", &n, nullptr));
  PetscCall(Create(test_type, n, &A));
  PetscCall(Create(ref_type, n, &R));
  PetscCall(Fill(A, n, 0.0, PETSC_FALSE));
  PetscCall(Fill(R, n, 0.0, PETSC_FALSE));
  PetscCall(HolaPetscIsAttached(A, &attached));
  PetscCall(Check(attached == PETSC_TRUE, "the matrix carries Hola's operations", 0));
  PetscCall(CheckTypeName(A));
  PetscCall(Compare("assembled", A, R));

  // Symmetric positive definite copy for CG (no convection term).
  PetscCall(Create(test_type, n, &S));
  PetscCall(Create(ref_type, n, &RS));
  for (Mat M : {S, RS}) {
    PetscCall(MatZeroEntries(M));
    PetscInt rs, re;
    PetscCall(MatGetOwnershipRange(M, &rs, &re));
    for (PetscInt r = rs; r < re; r++) PetscCall(SetRow(M, n, r, hola::grid::FivePoint{}));
    PetscCall(MatAssemblyBegin(M, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(M, MAT_FINAL_ASSEMBLY));
  }
  PetscCall(SolveBoth("SPD", S, RS, KSPCG));
  PetscCall(SolveBoth("unsym", A, R, KSPGMRES));
  PetscCall(SolveBoth("unsym", A, R, KSPBCGS));

  {
    // A matrix of PETSc's own type whose operation table was copied from a Hola matrix without
    // the composed context (seen in GAMG's graph setup with PETSc 3.18): its products attach
    // Hola afresh and stay right, and so does a duplicate of it.
    Mat C, CD;
    const MatOperation ops[] = {
        MATOP_MULT,      MATOP_MULT_ADD, MATOP_MULT_TRANSPOSE, MATOP_MULT_TRANSPOSE_ADD,
        MATOP_DUPLICATE, MATOP_COPY,     MATOP_BIND_TO_CPU};
    PetscCall(Create(ref_type, n, &C));
    PetscCall(Fill(C, n, 0.0, PETSC_FALSE));
    for (MatOperation op : ops) {
      void (*f)(void) = nullptr;
      PetscCall(MatGetOperation(A, op, &f));
      PetscCall(MatSetOperation(C, op, f));
    }
    PetscCall(Compare("operation table copied without context", C, R));
    PetscCall(MatDuplicate(C, MAT_COPY_VALUES, &CD));
    PetscCall(Compare("duplicate of that matrix", CD, R));
    PetscCall(DestroyAll({&C, &CD}));
  }

  PetscCall(MatDuplicate(A, MAT_COPY_VALUES, &D));
  PetscCall(HolaPetscIsAttached(D, &attached));
  PetscCall(Check(attached == PETSC_TRUE, "MatDuplicate keeps Hola", 0));
  PetscCall(Compare("MatDuplicate", D, R));
  // The duplicate took over A's decision (same pattern) instead of computing features again.
  PetscInt taken, taken_all;
  PetscCall(HolaPetscGetDecisionsTakenOver(D, &taken));
  PetscCall(SumAll(taken, &taken_all));
  PetscCall(Check(taken_all > 0, "MatDuplicate takes over the decision", (double)taken_all));
  PetscCall(MatDestroy(&D));
  {
    // MatCopy with SAME_NONZERO_PATTERN into a matrix not yet multiplied: the same.
    Mat C;
    PetscCall(Create(test_type, n, &C));
    PetscCall(Fill(C, n, 5.0, PETSC_FALSE));  // A's pattern, other values
    PetscCall(MatCopy(A, C, SAME_NONZERO_PATTERN));
    PetscCall(Compare("MatCopy", C, R));
    PetscCall(HolaPetscGetDecisionsTakenOver(C, &taken));
    PetscCall(SumAll(taken, &taken_all));
    PetscCall(Check(taken_all > 0, "MatCopy takes over the decision", (double)taken_all));
    PetscCall(MatDestroy(&C));
  }

  PetscInt an0, an1, an2;
  PetscCall(Analyses(A, &an0));
  PetscCall(Fill(A, n, 1.0, PETSC_FALSE));  // same pattern, new values
  PetscCall(Fill(R, n, 1.0, PETSC_FALSE));
  PetscCall(Compare("new values", A, R));
  PetscCall(Analyses(A, &an1));
  PetscCall(Check(an1 == an0, "new values: no new analysis", (double)(an1 - an0)));
  // Values changed in place, not through MatSetValues: each change must reach the products (the
  // device type keeps PETSc's arrays while the matrix's states hold), without a new analysis.
  for (Mat M : {A, R}) PetscCall(MatScale(M, 2.0));
  PetscCall(Compare("MatScale", A, R));
  for (Mat M : {A, R}) PetscCall(MatShift(M, 0.5));
  PetscCall(Compare("MatShift", A, R));
  PetscCall(Analyses(A, &an1));
  PetscCall(Check(an1 == an0, "in-place values: no new analysis", (double)(an1 - an0)));
  PetscCall(Fill(A, n, 1.0, PETSC_TRUE));  // new nonzeros after assembly
  PetscCall(Fill(R, n, 1.0, PETSC_TRUE));
  PetscCall(Compare("new nonzeros", A, R));
  PetscCall(Analyses(A, &an2));
  PetscMPIInt size;
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  // In parallel PETSc may replace the blocks instead (new blocks, new counters).
  if (size == 1) PetscCall(Check(an2 > an1, "new nonzeros: new analysis", (double)(an2 - an1)));
  PetscCall(SolveBoth("new nonzeros", A, R, KSPGMRES));

  PetscCall(MatBindToCPU(A, PETSC_TRUE));
  // The GPU type leaves a bound matrix to PETSc; MatBindToCPU is a no-op on CPU types.
  PetscCall(Compare("MatBindToCPU(true)", A, R, gpu_type ? Expect::fallback : Expect::hola));
  PetscCall(MatBindToCPU(A, PETSC_FALSE));
  PetscCall(Compare("MatBindToCPU(false)", A, R));

  PetscCall(DestroyAll({&A, &R, &S, &RS}));

  PetscCall(RunCoo(n));
  PetscCall(RunLsqr(n));
  PetscInt n3 = 2 * n;  // 3D slabs: n3^3 rows
  PetscCall(PetscOptionsGetInt(nullptr, nullptr, "-n3", &n3, nullptr));
  PetscCall(RunGhostBlocks(n, n3));
  PetscFunctionReturn(PETSC_SUCCESS);
}

}  // namespace

// Reads -hola_test_type; *skip when the GPU type cannot run here (on any rank).
PetscErrorCode SelectType(bool* skip) {
  static char name[64] = MATHOLAAIJ;
  PetscFunctionBegin;
  *skip = false;
  PetscCall(
      PetscOptionsGetString(nullptr, nullptr, "-hola_test_type", name, sizeof(name), nullptr));
  if (std::strcmp(name, MATHOLAAIJ) == 0) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCheck(std::strcmp(name, MATHOLAAIJCUSPARSE) == 0, PETSC_COMM_WORLD, PETSC_ERR_ARG_WRONG,
             "-hola_test_type must be %s or %s, not %s", MATHOLAAIJ, MATHOLAAIJCUSPARSE, name);
  PetscBool here;
  PetscMPIInt local, all;
  PetscCall(HolaPetscDeviceAvailable(&here));
  local = here ? 1 : 0;
  PetscCallMPI(MPI_Allreduce(&local, &all, 1, MPI_INT, MPI_MIN, PETSC_COMM_WORLD));
  if (!all) {
    PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                          "SKIPPED: %s needs a CUDA GPU and a PETSc built with CUDA\n", name));
    *skip = true;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  test_type = MATHOLAAIJCUSPARSE;
  ref_type = MATAIJCUSPARSE;
  gpu_type = true;
  its_slack = 1;
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char** argv) {
  bool skip;
  PetscCall(PetscInitialize(&argc, &argv, nullptr, nullptr));
  PetscCall(HolaPetscRegister());
  PetscCall(SelectType(&skip));
  if (skip) {
    PetscCall(PetscFinalize());
    return 77;
  }
  PetscCall(Run());
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s: %d failure(s)\n", failures ? "FAILED" : "PASSED",
                        failures));
  PetscCall(PetscFinalize());
  return failures ? 1 : 0;
}
