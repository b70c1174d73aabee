/* Hola C API: a thin layer over hola::Operator for C programs and foreign adapters.
 * Every call returns a hola_status; on failure hola_last_error() gives the message
 * (thread-local, valid until the next failing call of the same thread). */
#ifndef HOLA_H
#define HOLA_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
  HOLA_SUCCESS = 0,
  HOLA_INVALID_ARGUMENT = 1,
  HOLA_INVALID_CSR = 2,
  HOLA_ALIASING = 3,
  HOLA_SIZE_MISMATCH = 4,
  HOLA_UNSUPPORTED = 5,
  HOLA_IO_ERROR = 6,
  HOLA_PARSE_ERROR = 7,
  HOLA_CUDA_ERROR = 8,
  HOLA_CUSPARSE_ERROR = 9,
  HOLA_NO_DEVICE = 10,
  HOLA_OUT_OF_MEMORY = 11,
  HOLA_INTERNAL_ERROR = 12,
  HOLA_STATUS_MAX_ENUM = 0x7fffffff
} hola_status;

/* The *_MAX_ENUM members give every enum the range of int, so that a wrong value passed from
 * C is a reported error (HOLA_UNSUPPORTED / HOLA_INVALID_ARGUMENT), not undefined behaviour. */
typedef enum {
  HOLA_FLOAT32 = 0,
  HOLA_FLOAT64 = 1,
  HOLA_VALUE_TYPE_MAX_ENUM = 0x7fffffff
} hola_value_type;
typedef enum {
  HOLA_INT32 = 0,
  HOLA_INT64 = 1,
  HOLA_INDEX_TYPE_MAX_ENUM = 0x7fffffff
} hola_index_type;
typedef enum { HOLA_OP_N = 0, HOLA_OP_T = 1, HOLA_OP_MAX_ENUM = 0x7fffffff } hola_op;
typedef enum {
  HOLA_MEMORY_HOST = 0,
  HOLA_MEMORY_DEVICE = 1,
  HOLA_MEMORY_MAX_ENUM = 0x7fffffff
} hola_memory;

typedef struct hola_operator_s* hola_operator;

/* kernel: registry name ("auto", "hola", "cpu", ...); NULL means "auto". */
hola_status hola_operator_create(hola_operator* op, hola_value_type value_type,
                                 hola_index_type col_index_type, hola_index_type row_offset_type,
                                 const char* kernel, int deterministic);
/* "auto" on the GPU: also time the decision tree's kernel, its runner-up and cuSPARSE at setup and
 * keep the fastest (on: 1). Off by default: the race costs milliseconds to tens of milliseconds
 * per structure, and its pick may differ between runs. Takes effect at the next setup, which
 * then analyses the matrix again. */
hola_status hola_operator_set_auto_race(hola_operator op, int on);
/* "auto" on the GPU without the race: time the decision tree's kernel against its runner-up and
 * cuSPARSE over the first products of each op (they take turns; CUDA events, no
 * synchronisation) and run the fastest from then on when it beat the tree's by more than 3 %. On by
 * default (1); 0 keeps the tree's kernel as it is. Takes effect at the next setup, which then
 * analyses the matrix again. */
hola_status hola_operator_set_auto_check(hola_operator op, int on);
/* Analysis, cached on (arrays, sizes, structure_version); same key: values refreshed only. */
hola_status hola_operator_setup(hola_operator op, int64_t rows, int64_t cols, int64_t nnz,
                                const void* row_ptr, const void* col_idx, const void* values,
                                hola_memory memory, uint64_t structure_version);
/* The same analysis run on `stream` (a cudaStream_t; NULL: the legacy default stream): use it when
 * the arrays were written on a stream of your own (a non-blocking stream is not ordered after
 * the legacy default stream, so setup would otherwise read arrays still being written). It
 * synchronises that stream. */
hola_status hola_operator_setup_on_stream(hola_operator op, int64_t rows, int64_t cols, int64_t nnz,
                                          const void* row_ptr, const void* col_idx,
                                          const void* values, hola_memory memory,
                                          uint64_t structure_version, void* stream);
/* y_out = alpha op(A) x + beta y_in; alpha and beta point to one value of the value type.
 * y_in may equal y_out, or be NULL when *beta == 0. stream: a cudaStream_t or NULL. */
hola_status hola_operator_apply(hola_operator op, hola_op trans, const void* alpha, const void* x,
                                int64_t x_size, const void* beta, const void* y_in, void* y_out,
                                int64_t y_size, void* stream);
/* z = y + A x (z may equal y). */
hola_status hola_operator_multiply_add(hola_operator op, const void* x, int64_t x_size,
                                       const void* y, void* z, int64_t z_size, void* stream);
/* Name of the kernel that runs trans (valid until the next setup or destroy). */
hola_status hola_operator_kernel_name(hola_operator op, hola_op trans, const char** name);
hola_status hola_operator_workspace_bytes(hola_operator op, size_t* bytes);
/* For a caller that captures hola_operator_apply into a CUDA graph and replays it: a number that
 * changes whenever the work the apply of trans queues may change (a new analysis, a values
 * pointer other than the last one, the end of auto's check, op T's kernel set up at its first
 * product). A graph captured at version v may be replayed, with the same arguments, while the
 * version is still v. 0 before setup and while that work still changes from product to product:
 * capture again each time. Never the same number for two operators. */
hola_status hola_operator_work_version(hola_operator op, hola_op trans, uint64_t* version);
hola_status hola_operator_destroy(hola_operator op);

const char* hola_last_error(void);
const char* hola_status_string(hola_status status);
/* 1 when this library was built with CUDA and a GPU is usable. */
int hola_gpu_available(void);
/* Comma-separated kernel names of this build. */
const char* hola_kernel_names(void);

#ifdef __cplusplus
}
#endif

#endif /* HOLA_H */
