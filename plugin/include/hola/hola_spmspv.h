/* Hola SpMSpV C API: y = op(A) x with a sparse x over a semiring, optional mask on y, y sparse
 * or dense (hola::SpmspvOperator, docs/spmspv.md). Host or device memory: the matrix's memory is
 * given at setup (hola_spmspv_setup_on_stream; hola_spmspv_setup: host), and x, the mask and y
 * must be in the same memory (on the device they are checked with cudaPointerGetAttributes
 * while vector validation is on, the default). Every call returns a hola_status; on failure
 * hola_spmspv_last_error() gives the message (thread-local, valid until the next failing call of
 * this API in the same thread). */
#ifndef HOLA_SPMSPV_H
#define HOLA_SPMSPV_H

#include <stddef.h>
#include <stdint.h>

#include "hola/hola.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
  HOLA_SEMIRING_PLUS_TIMES = 0, /* y_i = sum_j a_ij x_j */
  HOLA_SEMIRING_OR_AND = 1,     /* y_i = OR_j (a_ij != 0 AND x_j != 0), as 1 / 0 */
  HOLA_SEMIRING_MIN_FIRST = 2,  /* y_i = min_j a_ij over present x_j */
  HOLA_SEMIRING_MIN_SECOND = 3, /* y_i = min_j x_j over present a_ij */
  HOLA_SEMIRING_MAX_ENUM = 0x7fffffff
} hola_semiring;

typedef enum {
  HOLA_SPVEC_SORTED = 0,   /* indices strictly increasing */
  HOLA_SPVEC_UNSORTED = 1, /* indices in any order, no duplicates */
  HOLA_SPVEC_BITMAP = 2,   /* bits: (size + 31) / 32 words; values: size entries */
  HOLA_SPVEC_FORMAT_MAX_ENUM = 0x7fffffff
} hola_spvec_format;

/* x: indices have the operator's column index type, values its value type. */
typedef struct {
  int64_t size;
  int64_t nnz;
  hola_spvec_format format;
  const void* indices;
  const void* values;
  const uint32_t* bits;
} hola_sparse_vector;

/* Mask on y: one byte per entry (nonzero: allowed; complement inverts). allowed: how many
 * entries the mask allows, or -1 if unknown (only used by the kernel selection). */
typedef struct {
  const uint8_t* values;
  int64_t size;
  int complement;
  int64_t allowed;
} hola_spmspv_mask;

/* y. dense != 0: dense_values gets all `size` entries (identity where no product). Otherwise
 * indices / values get the nnz present entries (room for `capacity`), sorted when want_sorted;
 * nnz and sorted are set on return. */
typedef struct {
  int dense;
  int64_t size;
  void* dense_values;
  void* indices;
  void* values;
  int64_t capacity;
  int want_sorted;
  int64_t nnz;
  int sorted;
} hola_spmspv_output;

typedef struct hola_spmspv_s* hola_spmspv;

/* kernel: "auto" (NULL); host memory "matrix_driven", "vector_driven", "reference"; device
 * memory "matrix_direct", "matrix_balanced", "vector_direct", "vector_balanced", "densify"
 * (densify-and-SpMV, plus_times only). symmetric != 0: A equals A^T and serves as its own
 * column view (no extra memory). */
hola_status hola_spmspv_create(hola_spmspv* op, hola_value_type value_type,
                               hola_index_type col_index_type, hola_index_type row_offset_type,
                               const char* kernel, int symmetric);
/* Validation and column view, once per structure; same arrays, sizes and version: values only.
 * Host memory. */
hola_status hola_spmspv_setup(hola_spmspv op, int64_t rows, int64_t cols, int64_t nnz,
                              const void* row_ptr, const void* col_idx, const void* values,
                              uint64_t structure_version);
/* The same for arrays in `memory`; on the device it runs on `stream` (a cudaStream_t; NULL: the
 * legacy default stream), allocates everything the applies need (column view, workspace, the
 * dense SpMV of densify-and-SpMV), times densify-and-SpMV and calibrates the kernel selection
 * (hola_spmspv_set_calibrate), and synchronises that stream. */
hola_status hola_spmspv_setup_on_stream(hola_spmspv op, int64_t rows, int64_t cols, int64_t nnz,
                                        const void* row_ptr, const void* col_idx,
                                        const void* values, hola_memory memory,
                                        uint64_t structure_version, void* stream);
/* mask may be NULL. Nothing is written to y on error. */
hola_status hola_spmspv_apply(hola_spmspv op, hola_op trans, hola_semiring semiring,
                              const hola_sparse_vector* x, const hola_spmspv_mask* mask,
                              hola_spmspv_output* y);
/* The same on `stream` (device memory; ignored on the host). Device memory: no allocation; the
 * stream is synchronised while vectors are validated and for a sparse y (to learn its nnz). */
hola_status hola_spmspv_apply_on_stream(hola_spmspv op, hola_op trans, hola_semiring semiring,
                                        const hola_sparse_vector* x, const hola_spmspv_mask* mask,
                                        hola_spmspv_output* y, void* stream);
/* Device memory: on != 0 (default) checks x on the device at every apply (indices in range,
 * order, duplicates, bitmap count; one synchronisation) and the memory of x, the mask and y;
 * 0: the caller vouches for them. The host path always checks. */
hola_status hola_spmspv_set_validate_vectors(hola_spmspv op, int on);
/* Device memory: on != 0 (default) calibrates the kernel selection at the next setup of a
 * structure (every available kernel and densify-and-SpMV timed on a few probe x per op and output
 * form: a few hundred kernel launches, tens of ms) and uses that calibration for the unmasked
 * calls; 0: the trained trees choose (also for masked calls either way). Read again by every
 * apply. The host path ignores it. */
hola_status hola_spmspv_set_calibrate(hola_spmspv op, int on);
/* Device memory: on != 0 gives y the same in every run, whichever kernel the selection takes:
 * only matrix_direct and vector_balanced (with its sorted write-back: one more stream
 * synchronisation per call) run, both summing each output's products in increasing input index,
 * and a sparse y comes out sorted; the other kernels are refused (HOLA_UNSUPPORTED). Default 0.
 * Read by the next setup, which analyses again even for the same structure. The host path
 * ignores it. */
hola_status hola_spmspv_set_deterministic(hola_spmspv op, int on);
/* Name of the kernel the last apply used ("matrix_driven", "vector_balanced", "densify", ...);
 * static storage. */
hola_status hola_spmspv_last_kernel(hola_spmspv op, const char** name);
hola_status hola_spmspv_destroy(hola_spmspv op);
const char* hola_spmspv_last_error(void);

#ifdef __cplusplus
}
#endif

#endif /* HOLA_SPMSPV_H */
