// Kernel choice for "auto": decision trees learned from hola-bench runs (bench/selector/,
// docs/kernels.md), on matrix features computed once per structure on the GPU; a hand rule
// where no tree applies.
#pragma once

#include <string>
#include <vector>

#include "hola/csr_view.hpp"
#include "hola/features.hpp"
#include "hola/types.hpp"

namespace hola {

struct KernelSelection {
  std::string name;    // registry name
  std::string reason;  // human-readable, shown by -mat_hola_view and hola-bench
  // Kernels that the Operator times against `name` before it settles (the tree's runner-up,
  // cuSPARSE ALG1, and what the rules below add); empty: `name` is final.
  std::vector<std::string> alternatives;
};

// The learned choice on the matrix features (tested on the CPU): the generated tree for
// (precision, op), or select_device_kernel_by_rule when there is none. A tree's cuSPARSE pick
// becomes the rule's choice when `vendor_available` is false. A tree's choice comes with
// alternatives to time at setup: the leaf's runner-up and, when available, cuSPARSE ALG1 (the
// trees are trained for exactly this: the best of the three is what "auto" delivers).
// `vendor_available`: cuSPARSE can take these index types (column index type == offset type).
KernelSelection select_device_kernel(Op op, bool single_precision, bool vendor_available,
                                     const MatrixFeatures& features);

// The trees were trained on matrices with 32-bit row offsets. With 64-bit offsets (Tpetra's
// size_t, --index int64) the scalar kernel measured 0.32-0.91x cuSPARSE on every anchor matrix
// above kWideOffsetScalarMaxNnz nonzeros, where hola kept 0.88-1.13x (H200,
// bench/results/2026-11-26-h200-anchors-int64-513e833.txt; Tpetra 200^3: scalar 403 us, hola
// 268 us): for op N on such a matrix a scalar pick becomes hola. Anything else is returned as
// it is.
constexpr std::int64_t kWideOffsetScalarMaxNnz = std::int64_t(1) << 21;
KernelSelection adjust_for_offset_width(KernelSelection chosen, Op op, bool wide_offsets,
                                        std::int64_t nnz);

// Op T on matrices whose rows are all short (at most kShortRowsTransposeMaxRow entries) and too
// large for the one-launch gather (at least kShortRowsTransposeMinNnz nonzeros): scalar, whose
// atomics from one thread per row hit consecutive columns of y. On the H100 corpus at 7a56694
// (bench/selector/data/2026-11-27-h100-80gb-hbm3.json.gz: 56 such matrices, double and float)
// scalar was within 6 % of the best kernel in 104 of 112 cases (worst 0.81, on a random
// rectangle) and 1.02-1.67x cuSPARSE on the 5- and 7-point stencils in their grid order
// (0.87-1.23x renumbered at random), where the retrained classifier, which lumps them with the
// 27-point and block matrices, picks hola (about 1.0x).
// Only with 32-bit row offsets (the data's); anything else is returned as it is.
constexpr std::int64_t kShortRowsTransposeMaxRow = 8;
constexpr std::int64_t kShortRowsTransposeMinNnz = std::int64_t(1) << 18;
KernelSelection adjust_transpose_for_short_rows(KernelSelection chosen, Op op, bool wide_offsets,
                                                const RowLengthStats& stats);

// Block rows: where at least kRowGroupsMinSameFraction of the nonzeros repeat the column of the
// row above at the same position (StructureStats::neighbor_same: the unknowns of one mesh node
// in FEM matrices with several unknowns per node), `inode` takes op N, and op T from
// kRowGroupsTransposeMinNnz nonzeros on (below it the tree's one-launch column gathers beat a
// zeroing pass and a scatter). The trees were trained before `inode` existed. On 3D elasticity
// (3 unknowns a node, 16^3 to 64^3 nodes) it ran 1.42-1.89x (N) and 1.33-1.98x (T) cuSPARSE
// (H200, bench/results/2026-11-28-session13/, run B), where the trees' picks had run 1.08-1.76x
// and 0.99-1.06x (run C of bench/results/2026-11-28-session12/); only op N on 16^3 was faster
// with the tree's pick (1.65 / 1.76 against 1.44 / 1.67, double / float). Op N asks for more,
// kRowGroupsMinSameFractionN, which leaves out nodes of 2 unknowns (a half of the nonzeros
// repeat): there `vector-adaptive` was faster for op N in 3 of 4 cases (H200, session 14 run D
// and session 13 run B: 1.15-1.25x cuSPARSE against inode's 0.99-1.16x; 1.12 against 1.26 in
// the fourth), while inode's op T stayed ahead (1.24-1.88x against 0.84-1.27x). The tree's pick
// and its alternatives become the runners-up, which auto's check times against inode: with
// inode forced for op N on 5-6 unknowns a node and the tree's pick alone checked, the tree's
// runner-up vector-adaptive ran 5-11 % faster unchecked (H200, bench/results/
// 2026-11-29-session17/, run B). Anything else is returned as it is.
constexpr double kRowGroupsMinSameFraction = 0.5;
constexpr double kRowGroupsMinSameFractionN = 0.6;
constexpr std::int64_t kRowGroupsTransposeMinNnz = std::int64_t(1) << 18;
KernelSelection prefer_row_groups(KernelSelection chosen, Op op, const MatrixFeatures& features);

// Op T on matrices with long rows (at least kHubCheckMinMaxRow entries and kHubCheckRowsOverMean
// times the mean, from kHubCheckMinNnz nonzeros on): `merge` joins the kernels that auto's check
// (or the race) times against the pick. Such rows come with hub columns in graphs (R-MAT,
// Kronecker) and bordered (arrow) matrices, where merge's op T sums the hubs per block in shared
// memory: on an H200 (bench/results/2026-11-29-session17/, run G) 1.21-1.35x cuSPARSE on
// Graph500 R-MAT graphs of scales 20-22 and 19-27x on an arrow of 4 M rows, where the trees
// picked cuSPARSE or hola (about 1.0x); the row lengths say nothing sure about the columns, so
// the pick stays and the check decides. Likewise, at any size, where the columns hold at least
// kHubCheckMinMaxRow entries on average and kHubCheckRowsOverMean times the mean row (tall
// matrices of few columns, a single column): every column is a hub there, and the row kernels'
// and cuSPARSE's atomics queue on a few addresses (H200, bench/results/2026-11-29-session18/,
// run C: 18.6 M rows of one column, op T, cuSPARSE 32.8 ms, the trees' inode 8.2 ms, merge
// 1.0-1.5 ms). Anything else is returned as it is.
constexpr std::int64_t kHubCheckMinMaxRow = 64;
constexpr double kHubCheckRowsOverMean = 16.0;
constexpr std::int64_t kHubCheckMinNnz = std::int64_t(1) << 18;
KernelSelection check_merge_for_hub_columns(KernelSelection chosen, Op op,
                                            const RowLengthStats& stats);

// Rows of even length (the longest at most kEvenRowsCheckMaxOverMean times the mean, the mean at
// least kEvenRowsCheckMinMean entries, from kEvenRowsCheckMinNnz nonzeros on: stencils and FEM
// matrices of one or more unknowns a node): `vector-adaptive` joins the kernels that auto's
// check (or the race) times against the pick, for both ops. On 26 such matrices of 1-6 unknowns
// a node (H200, bench/results/2026-11-29-session17/, run B) it was the fastest kernel in 9 of
// the 11 cases where auto ran 5-22 % behind the best, and in 6 of them the check had not timed
// it (the trees' pick and runner-up, cuSPARSE); its op T on uneven rows is far slower (atomics
// from long rows), which the bound on the longest row keeps out. For op T the mean may be as short
// as kEvenRowsCheckMinMeanTranspose: there its shared-memory windows (bands of columns off the
// diagonals) pay on short rows too; on bands of 6 entries a row (H200, run B of
// bench/results/2026-11-29-session20/) it ran 1.24-1.79x cuSPARSE where auto's check, without
// it, ran cuSPARSE, `hola` or `scalar` at 1.03-1.14x. Anything else is returned as it is.
constexpr double kEvenRowsCheckMaxOverMean = 2.0;
constexpr double kEvenRowsCheckMinMean = 8.0;
constexpr double kEvenRowsCheckMinMeanTranspose = 4.0;
constexpr std::int64_t kEvenRowsCheckMinNnz = std::int64_t(1) << 18;
KernelSelection check_vector_adaptive_on_even_rows(KernelSelection chosen, Op op,
                                                   const RowLengthStats& stats);

// The hand rule read off the first H200 benchmark (docs/kernels.md): the fallback.
KernelSelection select_device_kernel_by_rule(Op op, bool single_precision, bool vendor_available,
                                             const RowLengthStats& stats);

struct KernelChoice {
  KernelSelection n, t;  // for y = A x and y = A^T x
  // What "auto" looked at (device matrices only; zeros otherwise) and what computing it cost.
  MatrixFeatures features;
  double features_ms = 0.0;
};

// What an analysis decided for one matrix structure, shared with another Operator over a matrix
// with the same pattern (PETSc's MatDuplicate / MatCopy with the same nonzero pattern): that
// Operator takes `choice` (the kernels that ran after fallbacks and the race, without
// alternatives) instead of computing features again. Only the kernels' own setup is redone, on
// the new arrays.
struct KernelDecision {
  std::int64_t rows = 0, cols = 0, nnz = 0;
  Memory memory = Memory::host;
  std::string requested;  // OperatorOptions::kernel of the analysis
  bool deterministic = false;
  KernelChoice choice;
};

// Resolves `requested` for a matrix: host matrices always get "cpu"; "auto" on a device matrix
// computes its features on the GPU once, on `stream` (setup time: gpu::device_matrix_features)
// and applies select_device_kernel for each op. Other names are returned as they are, without
// features.
template <class V, class I, class O>
KernelChoice select_kernels(const std::string& requested, const CsrView<V, I, O>& A,
                            void* stream = nullptr);

}  // namespace hola
