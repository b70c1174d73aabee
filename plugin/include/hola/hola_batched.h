/* Hola batched SpMV, C API (docs/batched.md): y_i = alpha A_i x_i + beta y_i for a batch of many
 * small matrices in one call. A thin layer over hola::BatchedOperator. Every call returns a
 * hola_status; on failure hola_batched_last_error() gives the message (thread-local, valid until
 * the next failing hola_batched_* call of the same thread). The GPU backend has not yet run on a
 * GPU. */
#ifndef HOLA_BATCHED_H
#define HOLA_BATCHED_H

#include <stdint.h>

#include "hola/hola.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
  HOLA_BATCHED_CSR = 0,        /* global row_ptr, local column indices */
  HOLA_BATCHED_CSR_SHARED = 1, /* one pattern, per-matrix values */
  HOLA_BATCHED_COO = 2,        /* rows sorted inside each matrix */
  HOLA_BATCHED_ELL = 3,        /* column-major slab per matrix, padding column -1 */
  HOLA_BATCHED_FORMAT_MAX_ENUM = 0x7fffffff
} hola_batched_format;

typedef enum {
  HOLA_BATCHED_BACKEND_AUTO = 0, /* GPU for device memory, CPU (OpenMP) for host memory */
  HOLA_BATCHED_BACKEND_CPU = 1,
  HOLA_BATCHED_BACKEND_REFERENCE = 2,
  HOLA_BATCHED_BACKEND_GPU = 3,
  HOLA_BATCHED_BACKEND_MAX_ENUM = 0x7fffffff
} hola_batched_backend;

/* The batch layout of docs/batched.md. All index arrays have the index type index_type, values
 * value_type; unused arrays may be NULL. Zero-initialise it, then fill what the format uses. */
typedef struct {
  hola_batched_format format;
  hola_value_type value_type;
  hola_index_type index_type;
  hola_memory memory;
  int64_t count;
  const void* row_off; /* count + 1 (csr, coo, ell) */
  const void* col_off; /* count + 1 (csr, coo, ell) */
  const void* nnz_off; /* count + 1 (csr, coo, ell) */
  int64_t shared_rows; /* csr_shared */
  int64_t shared_cols;
  int64_t shared_nnz;
  const void* row_ptr; /* csr: total_rows + 1 (global); csr_shared: shared_rows + 1 */
  const void* row_idx; /* coo */
  const void* col_idx;
  const void* values;
  int64_t total_rows; /* length of y */
  int64_t total_cols; /* length of x */
  int64_t total_nnz;  /* length of values */
} hola_batched_desc;

typedef struct hola_batched_s* hola_batched;

/* Validates the batch once (HOLA_INVALID_ARGUMENT, HOLA_SIZE_MISMATCH, HOLA_INVALID_CSR, ...) and
 * picks the kernel. kernel: NULL or "auto", or a GPU kernel name (csr_scalar, csr_vector,
 * csr_smart, csr_tiled, csr_i, coo, ell: hola::batched::kKernels). The arrays must stay valid while
 * the handle is used. *op is NULL on failure. */
hola_status hola_batched_create(hola_batched* op, const hola_batched_desc* desc,
                                hola_batched_backend backend, const char* kernel);
/* alpha, beta point to one value of the value type; x has x_size entries, y y_size (the batch's
 * total_cols / total_rows). beta == 0 never reads y. stream: a cudaStream_t or NULL. Nothing is
 * written on error. */
hola_status hola_batched_apply(hola_batched op, const void* alpha, const void* x, int64_t x_size,
                               const void* beta, void* y, int64_t y_size, void* stream);
/* Name of the kernel that runs ("cpu", "reference", "csr_scalar", ...), valid until destroy. */
hola_status hola_batched_kernel_name(hola_batched op, const char** name);
hola_status hola_batched_destroy(hola_batched op);
const char* hola_batched_last_error(void);

#ifdef __cplusplus
}
#endif

#endif /* HOLA_BATCHED_H */
