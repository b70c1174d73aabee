// CompressedRows (hola/compressed_rows.hpp): host loops for host matrices; device matrices go to
// the gpu:: functions (kernels/cuda/common/compressed_rows.cu).
#include "hola/compressed_rows.hpp"

#include <algorithm>
#include <limits>
#include <string>
#include <vector>

#include "hola/detail/instantiate.hpp"
#include "hola/error.hpp"

namespace hola {

namespace {
// Loops shorter than this stay on one thread (starting a team costs more than they do).
constexpr std::int64_t kParallelRows = 1 << 15;

std::size_t aligned(std::size_t bytes) { return (bytes + 255) / 256 * 256; }
}  // namespace

template <class V, class I, class O>
struct CompressedRows<V, I, O>::Impl {
  Memory memory = Memory::host;
  std::int64_t rows = 0, cols = 0, kept = 0, nnz = 0;
  const I* col_idx = nullptr;
  // Host: the three arrays. Device: one allocation holding them, 256-byte aligned each.
  std::vector<I> host_ids;
  std::vector<O> host_offsets;
  std::vector<V> host_work;
  void* device_block = nullptr;
  std::size_t device_bytes = 0;
  I* ids = nullptr;
  O* offsets = nullptr;
  V* work = nullptr;

  ~Impl() {
    if (device_block) gpu::device_free(device_block);
  }
};

template <class V, class I, class O>
std::int64_t CompressedRows<V, I, O>::count_nonempty(const CsrView<V, I, O>& A, void* stream) {
  if (A.rows <= 0) return 0;
  if (A.memory == Memory::device) return gpu::count_nonempty_rows(A.row_ptr, A.rows, stream);
  std::int64_t n = 0;
  const O* p = A.row_ptr;
#pragma omp parallel for reduction(+ : n) if (A.rows >= kParallelRows)
  for (std::int64_t r = 0; r < A.rows; ++r) n += p[r + 1] > p[r] ? 1 : 0;
  return n;
}

template <class V, class I, class O>
CompressedRows<V, I, O>::CompressedRows(const CsrView<V, I, O>& A, std::int64_t kept, void* stream)
    : impl_(std::make_unique<Impl>()) {
  if (kept < 0 || kept > A.rows)
    fail(status::invalid_argument, "CompressedRows: " + std::to_string(kept) +
                                       " nonempty rows out of " + std::to_string(A.rows));
  if (A.rows - 1 > static_cast<std::int64_t>(std::numeric_limits<I>::max()))
    fail(status::invalid_argument, "CompressedRows: row numbers up to " +
                                       std::to_string(A.rows - 1) +
                                       " do not fit the column index type");
  Impl& m = *impl_;
  m.memory = A.memory;
  m.rows = A.rows;
  m.cols = A.cols;
  m.kept = kept;
  m.nnz = A.nnz;
  m.col_idx = A.col_idx;
  if (A.memory == Memory::device) {
    const std::size_t ids_bytes = aligned(sizeof(I) * static_cast<std::size_t>(kept));
    const std::size_t offsets_bytes = aligned(sizeof(O) * static_cast<std::size_t>(kept + 1));
    const std::size_t work_bytes = aligned(sizeof(V) * static_cast<std::size_t>(kept));
    m.device_bytes = ids_bytes + offsets_bytes + work_bytes;
    m.device_block = gpu::device_allocate(m.device_bytes);
    char* base = static_cast<char*>(m.device_block);
    m.ids = reinterpret_cast<I*>(base);
    m.offsets = reinterpret_cast<O*>(base + ids_bytes);
    m.work = reinterpret_cast<V*>(base + ids_bytes + offsets_bytes);
    gpu::compress_rows(A.row_ptr, A.rows, kept, m.ids, m.offsets, stream);
    return;
  }
  m.host_ids.reserve(static_cast<std::size_t>(kept));
  m.host_offsets.reserve(static_cast<std::size_t>(kept + 1));
  for (std::int64_t r = 0; r < A.rows; ++r)
    if (A.row_ptr[r + 1] > A.row_ptr[r]) {
      m.host_ids.push_back(static_cast<I>(r));
      m.host_offsets.push_back(A.row_ptr[r]);
    }
  if (static_cast<std::int64_t>(m.host_ids.size()) != kept)
    fail(status::invalid_argument, "CompressedRows: A has " + std::to_string(m.host_ids.size()) +
                                       " nonempty rows, not " + std::to_string(kept));
  m.host_offsets.push_back(A.row_ptr[A.rows]);
  m.host_work.assign(static_cast<std::size_t>(kept), V(0));
  m.ids = m.host_ids.data();
  m.offsets = m.host_offsets.data();
  m.work = m.host_work.data();
}

template <class V, class I, class O>
CompressedRows<V, I, O>::~CompressedRows() = default;
template <class V, class I, class O>
CompressedRows<V, I, O>::CompressedRows(CompressedRows&&) noexcept = default;
template <class V, class I, class O>
CompressedRows<V, I, O>& CompressedRows<V, I, O>::operator=(CompressedRows&&) noexcept = default;

template <class V, class I, class O>
CsrView<V, I, O> CompressedRows<V, I, O>::matrix(const V* values) const {
  const Impl& m = *impl_;
  return {m.kept, m.cols, m.nnz, m.offsets, m.col_idx, values, m.memory};
}
template <class V, class I, class O>
std::int64_t CompressedRows<V, I, O>::kept() const {
  return impl_->kept;
}
template <class V, class I, class O>
std::size_t CompressedRows<V, I, O>::bytes() const {
  const Impl& m = *impl_;
  return m.memory == Memory::device
             ? m.device_bytes
             : m.host_ids.size() * sizeof(I) + m.host_offsets.size() * sizeof(O) +
                   m.host_work.size() * sizeof(V);
}
template <class V, class I, class O>
V* CompressedRows<V, I, O>::work() const {
  return impl_->work;
}

template <class V, class I, class O>
void CompressedRows<V, I, O>::scatter(V alpha, const V* w, V beta, const V* y_in, V* y_out,
                                      void* stream) const {
  const Impl& m = *impl_;
  if (m.memory == Memory::device) {
    gpu::scatter_rows(m.rows, m.kept, m.ids, alpha, w, beta, y_in, y_out, stream);
    return;
  }
  const std::int64_t rows = m.rows, kept = m.kept;
  const I* ids = m.ids;
  if (beta == V(1) && y_in == y_out) {
#pragma omp parallel for if (kept >= kParallelRows)
    for (std::int64_t k = 0; k < kept; ++k) y_out[ids[k]] += alpha * w[k];
    return;
  }
  // Every row: beta y_in (zero when beta == 0, without reading y_in), then the kept rows.
#pragma omp parallel for if (rows >= kParallelRows)
  for (std::int64_t r = 0; r < rows; ++r) y_out[r] = beta == V(0) ? V(0) : beta * y_in[r];
#pragma omp parallel for if (kept >= kParallelRows)
  for (std::int64_t k = 0; k < kept; ++k) y_out[ids[k]] += alpha * w[k];
}

template <class V, class I, class O>
void CompressedRows<V, I, O>::gather(const V* x, V* xc, void* stream) const {
  const Impl& m = *impl_;
  if (m.memory == Memory::device) {
    gpu::gather_rows(m.kept, m.ids, x, xc, stream);
    return;
  }
  const std::int64_t kept = m.kept;
  const I* ids = m.ids;
#pragma omp parallel for if (kept >= kParallelRows)
  for (std::int64_t k = 0; k < kept; ++k) xc[k] = x[ids[k]];
}

#define HOLA_INSTANTIATE(V, I, O) template class CompressedRows<V, I, O>;
HOLA_FOR_EACH_VALUE_INDEX_OFFSET(HOLA_INSTANTIATE)
#undef HOLA_INSTANTIATE

#if !defined(HOLA_ENABLE_CUDA)
namespace gpu {
namespace {
[[noreturn]] void no_cuda() { fail(status::no_device, "this build of Hola has no CUDA support"); }
}  // namespace
template <class O>
std::int64_t count_nonempty_rows(const O*, std::int64_t, void*) {
  no_cuda();
}
template <class I, class O>
void compress_rows(const O*, std::int64_t, std::int64_t, I*, O*, void*) {
  no_cuda();
}
template <class V, class I>
void scatter_rows(std::int64_t, std::int64_t, const I*, V, const V*, V, const V*, V*, void*) {
  no_cuda();
}
template <class V, class I>
void gather_rows(std::int64_t, const I*, const V*, V*, void*) {
  no_cuda();
}
void* device_allocate(std::size_t) { no_cuda(); }
void device_free(void*) noexcept {}
}  // namespace gpu
#endif
// (In builds without CUDA the stubs above are instantiated by the calls in this file.)

}  // namespace hola
