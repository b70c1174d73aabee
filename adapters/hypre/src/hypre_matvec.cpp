// HYPRE adapter: Hola's kernels behind the matvec of HYPRE's ParCSR Krylov solvers.
//
// A HYPRE Krylov solver calls its matrix through three slots of a per-solver function table
// (MatvecCreate / Matvec / MatvecDestroy, krylov.h). HolaHypreEnable checks that the handle is a
// ParCSR solver of the named kind, then points the slots at this file and stores a context
// (HolaHypreMatvec_s) in the solver's matvec_data. The product itself mirrors HYPRE's
// ParCSR matvec: pack the values neighbours need, start the exchange, multiply the diagonal block
// with Hola, finish the exchange, add the off-diagonal block times the received ghost values.
#include <fcntl.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <exception>
#include <memory>
#include <new>
#include <optional>
#include <string>
#include <type_traits>

#include "hola/error.hpp"
#include "hola/hypre.h"
#include "hola/operator.hpp"
#include "hola/registry.hpp"

// HYPRE's internal headers: solver data structs and function tables, ParCSR internals.
#include <_hypre_parcsr_ls.h>

// Value types Hola has kernels for; complex and long double HYPRE builds are refused at run time.
#if defined(HYPRE_COMPLEX) || defined(HYPRE_LONG_DOUBLE)
#define HOLA_HYPRE_VALUES_SUPPORTED 0
#else
#define HOLA_HYPRE_VALUES_SUPPORTED 1
#endif

// Device matrices: HYPRE built with CUDA and Hola built with CUDA. Compiled against HYPRE 3.1.0
// with CUDA (docs/hypre.md); Debian's HYPRE, the CI's, is CPU only.
#if HOLA_HYPRE_VALUES_SUPPORTED && defined(HYPRE_USING_CUDA) && defined(HOLA_ENABLE_CUDA)
#define HOLA_HYPRE_DEVICE 1
#include <cuda_runtime_api.h>

#include "device_helpers.hpp"
// Declared in _hypre_utilities.hpp (C++ linkage), which needs nvcc; HYPRE's CUDA build defines it.
cudaStream_t hypre_DeviceDataComputeStream(hypre_DeviceData* data);
#else
#define HOLA_HYPRE_DEVICE 0
#endif

namespace {

// HYPRE_Int is int or long long; Hola's index types are int32_t / int64_t (long on LP64 Linux,
// same size and representation as long long: the arrays are read as such).
using Index = std::conditional_t<sizeof(HYPRE_Int) == 4, std::int32_t, std::int64_t>;
static_assert(sizeof(HYPRE_Int) == sizeof(Index), "HYPRE_Int must be 32 or 64 bits");

#if HOLA_HYPRE_VALUES_SUPPORTED
using Value = HYPRE_Complex;  // double, or float with --enable-single
using BlockOperator = hola::Operator<Value, Index, Index>;
#endif

constexpr std::uint64_t kMatvecMagic = 0x486f6c6148797072ull;  // tags contexts made here

thread_local std::string last_error;

HYPRE_Int fail(HYPRE_Int code, const std::string& message) {
  last_error = message;
  return code;
}

struct Settings {
  std::string kernel = "auto";
  bool deterministic = false;
};

// Carried from a context HYPRE destroys to the one it creates next (see MatvecCreateHook).
struct Carry {
  Settings settings;
  long long products = 0, fallbacks = 0, analyses = 0;
};
thread_local std::optional<Carry> carry;

HYPRE_Int check_settings(const char* kernel, Settings* out) {
  const std::string name = kernel ? kernel : "auto";
  if (!hola::KernelRegistry::find(name))
    return fail(HYPRE_ERROR_ARG, "Hola: unknown kernel '" + name +
                                     "' (known: " + hola::KernelRegistry::names() + ")");
  out->kernel = name;
  return 0;
}

#if HOLA_HYPRE_VALUES_SUPPORTED

// A buffer of the exchange in host or device memory from HYPRE's allocator, grown when needed.
class ExchangeBuffer {
 public:
  ExchangeBuffer() = default;
  ExchangeBuffer(const ExchangeBuffer&) = delete;
  ExchangeBuffer& operator=(const ExchangeBuffer&) = delete;
  ~ExchangeBuffer() { release(); }
  // At least n values in `location` (the contents are not kept); false when out of memory.
  bool reserve(HYPRE_Int n, HYPRE_MemoryLocation location) {
    if (n <= capacity_ && location == location_) return true;
    release();
    location_ = location;
    if (n <= 0) return true;
    data_ = hypre_TAlloc(Value, n, location);
    if (!data_) return false;
    capacity_ = n;
    return true;
  }
  Value* data() const { return data_; }

 private:
  void release() {
    if (data_) hypre_TFree(data_, location_);
    capacity_ = 0;
  }
  Value* data_ = nullptr;
  HYPRE_Int capacity_ = 0;
  HYPRE_MemoryLocation location_ = HYPRE_MEMORY_HOST;
};

// What differs between a product on host blocks and one on device blocks (HYPRE built with
// CUDA): where the exchange buffers live, how the values to send are packed and y is scaled,
// and the stream the kernels run on. Errors come back as a message (empty: none).
struct MemorySpace {
  hola::Memory memory = hola::Memory::host;
  void* stream = nullptr;  // HYPRE's compute stream for device blocks

  static MemorySpace of(hypre_MemoryLocation where) {
    MemorySpace s;
    if (where == hypre_MEMORY_HOST || where == hypre_MEMORY_HOST_PINNED) return s;
    s.memory = hola::Memory::device;
#if HOLA_HYPRE_DEVICE
    s.stream = hypre_DeviceDataComputeStream(hypre_HandleDeviceData(hypre_handle()));
#endif
    return s;
  }
  bool device() const { return memory == hola::Memory::device; }
  HYPRE_MemoryLocation location() const {
    return device() ? HYPRE_MEMORY_DEVICE : HYPRE_MEMORY_HOST;
  }
  // out[k] = x[map[k]] for k < n, map's entries below `bound` (checked on the host only).
  std::string gather(const Value* x, hypre_ParCSRCommPkg* comm_pkg, HYPRE_Int begin, HYPRE_Int n,
                     HYPRE_Int bound, Value* out) const {
    if (n <= 0) return {};
#if HOLA_HYPRE_DEVICE
    if (device()) {
      hypre_ParCSRCommPkgCopySendMapElmtsToDevice(comm_pkg);
      const HYPRE_Int* map = hypre_ParCSRCommPkgDeviceSendMapElmts(comm_pkg) + begin;
      return hola::hypre_adapter::device_gather(x, reinterpret_cast<const Index*>(map), n, out,
                                                stream);
    }
#endif
    const HYPRE_Int* map = hypre_ParCSRCommPkgSendMapElmts(comm_pkg) + begin;
    for (HYPRE_Int k = 0; k < n; ++k) {
      if (map[k] < 0 || map[k] >= bound)
        return "the communication package sends local entry " + std::to_string(map[k]) + " of " +
               std::to_string(bound);
      out[k] = x[map[k]];
    }
    return {};
  }
  // y = beta y (BLAS: beta == 0 writes zeros without reading y).
  std::string scale(Value* y, HYPRE_Int n, Value beta) const {
#if HOLA_HYPRE_DEVICE
    if (device()) return hola::hypre_adapter::device_scale(y, n, beta, stream);
#endif
    for (HYPRE_Int i = 0; i < n; ++i) y[i] = beta == Value(0) ? Value(0) : beta * y[i];
    return {};
  }
  // MPI (or HYPRE's staging copy) reads the send buffer next: the packing must be done.
  std::string finish_packing() const {
#if HOLA_HYPRE_DEVICE
    if (device()) return hola::hypre_adapter::device_synchronize(stream);
#endif
    return {};
  }
};

#endif  // HOLA_HYPRE_VALUES_SUPPORTED

}  // namespace

// The context behind HolaHypreMatvec and the solvers' matvec_data.
struct HolaHypreMatvec_s {
  std::uint64_t magic = kMatvecMagic;
  Settings settings;
  long long products = 0, fallbacks = 0;
  long long analyses_before = 0;  // analyses of earlier contexts (PCG re-setup) and operators
  std::string kernel_name;
#if HOLA_HYPRE_VALUES_SUPPORTED
  std::unique_ptr<BlockOperator> diag_op, offd_op;
  ExchangeBuffer send_buffer, ghost_values;  // in the memory of the blocks
#endif

  HolaHypreMatvec_s() = default;
  HolaHypreMatvec_s(const HolaHypreMatvec_s&) = delete;
  HolaHypreMatvec_s& operator=(const HolaHypreMatvec_s&) = delete;
  ~HolaHypreMatvec_s() { magic = 0; }

  long long analyses() const {
    long long n = analyses_before;
#if HOLA_HYPRE_VALUES_SUPPORTED
    if (diag_op) n += static_cast<long long>(diag_op->analysis_count());
    if (offd_op) n += static_cast<long long>(offd_op->analysis_count());
#endif
    return n;
  }

  // New options: the operators are made again at the next product.
  void set_settings(const Settings& s) {
    if (s.kernel == settings.kernel && s.deterministic == settings.deterministic) return;
    analyses_before = analyses();
#if HOLA_HYPRE_VALUES_SUPPORTED
    diag_op.reset();
    offd_op.reset();
#endif
    settings = s;
  }

  HYPRE_Int apply(HYPRE_Complex alpha, hypre_ParCSRMatrix* A, hypre_ParVector* x,
                  HYPRE_Complex beta, hypre_ParVector* y);

#if HOLA_HYPRE_VALUES_SUPPORTED
 private:
  // Operator for one block, made on first use with the current settings.
  BlockOperator& block_operator(std::unique_ptr<BlockOperator>& op) {
    if (!op) {
      hola::OperatorOptions o;
      o.kernel = settings.kernel;
      o.deterministic = settings.deterministic;
      op = std::make_unique<BlockOperator>(o);
    }
    return *op;
  }
  // Sets up the operator of a block (cache hit: values refreshed only).
  static void setup_block(BlockOperator& op, hypre_CSRMatrix* block, HYPRE_Int cols,
                          hola::Memory memory);
  // The product on host or device blocks (space).
  HYPRE_Int apply_in(const MemorySpace& space, Value alpha, hypre_ParCSRMatrix* A,
                     hypre_ParVector* x, Value beta, hypre_ParVector* y);
#endif
};

namespace {

bool is_matvec(const void* p) {
  return p && static_cast<const HolaHypreMatvec_s*>(p)->magic == kMatvecMagic;
}

#if HOLA_HYPRE_VALUES_SUPPORTED

// Structure fingerprint of a host block: a few row offsets spread over the block. It is part of
// the cache key so that a block rebuilt at the same addresses with the same sizes but another
// structure is analysed again (device blocks: addresses and sizes only).
std::uint64_t host_fingerprint(const HYPRE_Int* row_ptr, HYPRE_Int rows) {
  std::uint64_t h = 1469598103934665603ull;
  if (!row_ptr || rows <= 0) return h;
  const HYPRE_Int samples = rows < 64 ? rows : 64;
  for (HYPRE_Int s = 0; s <= samples; ++s) {
    const HYPRE_Int r = static_cast<HYPRE_Int>((static_cast<long long>(rows) * s) / samples);
    h = (h ^ static_cast<std::uint64_t>(row_ptr[r])) * 1099511628211ull;
  }
  return h;
}

#endif

}  // namespace

#if HOLA_HYPRE_VALUES_SUPPORTED

void HolaHypreMatvec_s::setup_block(BlockOperator& op, hypre_CSRMatrix* block, HYPRE_Int cols,
                                    hola::Memory memory) {
  hola::CsrView<Value, Index, Index> view;
  view.rows = hypre_CSRMatrixNumRows(block);
  view.cols = cols;
  view.nnz = hypre_CSRMatrixNumNonzeros(block);
  view.row_ptr = reinterpret_cast<const Index*>(hypre_CSRMatrixI(block));
  view.col_idx = reinterpret_cast<const Index*>(hypre_CSRMatrixJ(block));
  view.values = hypre_CSRMatrixData(block);
  view.memory = memory;
  // Device blocks: a fixed non-zero version, so the cache key is the arrays and sizes alone and a
  // product never reads a structure sample back (a copy and a synchronisation per product).
  // HYPRE gives a block new arrays when it is assembled again; a structure rewritten in place in
  // the same arrays needs the solver's Setup (docs/hypre.md).
  const std::uint64_t version =
      memory == hola::Memory::host
          ? host_fingerprint(hypre_CSRMatrixI(block), hypre_CSRMatrixNumRows(block))
          : 1;
  op.setup(view, version);
}

HYPRE_Int HolaHypreMatvec_s::apply_in(const MemorySpace& space, Value alpha, hypre_ParCSRMatrix* A,
                                      hypre_ParVector* x, Value beta, hypre_ParVector* y) {
  hypre_CSRMatrix* diag = hypre_ParCSRMatrixDiag(A);
  hypre_CSRMatrix* offd = hypre_ParCSRMatrixOffd(A);
  hypre_Vector* x_local = hypre_ParVectorLocalVector(x);
  hypre_Vector* y_local = hypre_ParVectorLocalVector(y);
  const HYPRE_Int rows = hypre_CSRMatrixNumRows(diag);
  const HYPRE_Int cols = hypre_CSRMatrixNumCols(diag);
  const HYPRE_Int ghosts = hypre_CSRMatrixNumCols(offd);
  const Value* x_data = hypre_VectorData(x_local);
  Value* y_data = hypre_VectorData(y_local);

  // Creating the communication package is collective: every rank does it here, as HYPRE does.
  if (!hypre_ParCSRMatrixCommPkg(A)) hypre_MatvecCommPkgCreate(A);
  hypre_ParCSRCommPkg* comm_pkg = hypre_ParCSRMatrixCommPkg(A);
  const HYPRE_Int num_sends = hypre_ParCSRCommPkgNumSends(comm_pkg);
  const HYPRE_Int num_recvs = hypre_ParCSRCommPkgNumRecvs(comm_pkg);
  const HYPRE_Int send_begin = hypre_ParCSRCommPkgSendMapStart(comm_pkg, 0);
  const HYPRE_Int send_count = hypre_ParCSRCommPkgSendMapStart(comm_pkg, num_sends) - send_begin;

  // Local problems are recorded, not returned: this rank must still take part in the exchange
  // (its neighbours wait for it). y is written only when everything succeeded.
  HYPRE_Int code = 0;
  std::string error;
  auto record = [&](HYPRE_Int c, std::string m) {
    if (code == 0 && !m.empty()) {
      code = c;
      error = std::move(m);
    }
  };
  if (hypre_VectorSize(x_local) != cols)
    record(HYPRE_ERROR_ARG, "x has " + std::to_string(hypre_VectorSize(x_local)) +
                                " local entries but the matrix has " + std::to_string(cols) +
                                " local columns");
  if (hypre_VectorSize(y_local) != rows)
    record(HYPRE_ERROR_ARG, "y has " + std::to_string(hypre_VectorSize(y_local)) +
                                " local entries but the matrix has " + std::to_string(rows) +
                                " local rows");
  if (space.device() &&
      (hypre_VectorMemoryLocation(x_local) != hypre_VectorMemoryLocation(y_local) ||
       hypre_GetActualMemLocation(hypre_VectorMemoryLocation(x_local)) == hypre_MEMORY_HOST))
    record(HYPRE_ERROR_ARG, "device matrix with host vectors");
  if (hypre_CSRMatrixNumRows(offd) != rows)
    record(HYPRE_ERROR_ARG, "diagonal and off-diagonal blocks have different row counts");
  if (hypre_ParCSRCommPkgRecvVecStart(comm_pkg, num_recvs) != ghosts)
    record(HYPRE_ERROR_ARG, "the communication package does not match the off-diagonal block");
  if (code == 0 && ((rows > 0 && !y_data) || (cols > 0 && !x_data)))
    record(HYPRE_ERROR_ARG, "vector without data");
  if (code == 0 && cols > 0 && rows > 0) {
    const auto xb = reinterpret_cast<std::uintptr_t>(x_data);
    const auto yb = reinterpret_cast<std::uintptr_t>(y_data);
    if (xb < yb + rows * sizeof(Value) && yb < xb + cols * sizeof(Value))
      record(HYPRE_ERROR_ARG, "x overlaps y: x must not alias y");
  }

  const bool diag_work = rows > 0 && hypre_CSRMatrixNumNonzeros(diag) > 0;
  const bool offd_work = rows > 0 && hypre_CSRMatrixNumNonzeros(offd) > 0 && alpha != Value(0);
  if (code == 0) {
    try {
      if (diag_work) setup_block(block_operator(diag_op), diag, cols, space.memory);
      if (offd_work) setup_block(block_operator(offd_op), offd, ghosts, space.memory);
    } catch (const std::bad_alloc&) {
      record(HYPRE_ERROR_MEMORY, "out of memory");
    } catch (const std::exception& e) {
      record(HYPRE_ERROR_GENERIC, e.what());
    }
  }
  // The exchange always needs the buffers.
  if (!send_buffer.reserve(send_count, space.location()) ||
      !ghost_values.reserve(ghosts, space.location()))
    record(HYPRE_ERROR_MEMORY, "out of memory");

  // Values the neighbours need (zeros from a rank that failed: the exchange still happens).
  if (send_count > 0 && send_buffer.data()) {
    if (code == 0)
      record(space.device() ? HYPRE_ERROR_GENERIC : HYPRE_ERROR_ARG,  // a CUDA error : a bad map
             space.gather(x_data, comm_pkg, send_begin, send_count, cols, send_buffer.data()));
    if (code != 0) record(HYPRE_ERROR_GENERIC, space.scale(send_buffer.data(), send_count, 0));
  }
  // Only a send buffer needs the stream drained (no neighbours to send to: no wait per product).
  if (send_count > 0) record(HYPRE_ERROR_GENERIC, space.finish_packing());
  hypre_ParCSRCommHandle* exchange = nullptr;
  if (num_sends > 0 || num_recvs > 0)
    exchange = hypre_ParCSRCommHandleCreate_v2(1, comm_pkg, space.location(), send_buffer.data(),
                                               space.location(), ghost_values.data());

  // Diagonal block while the ghost values travel.
  if (code == 0) {
    try {
      if (diag_work) {
        diag_op->apply(hola::Op::N, alpha, {x_data, cols}, beta, {y_data, rows}, space.stream);
        kernel_name = diag_op->kernel_name(hola::Op::N);
      } else {
        record(HYPRE_ERROR_GENERIC, space.scale(y_data, rows, beta));
      }
    } catch (const std::exception& e) {
      record(HYPRE_ERROR_GENERIC, e.what());
    }
  }
  if (exchange) hypre_ParCSRCommHandleDestroy(exchange);

  // y += alpha A_offd ghosts.
  if (code == 0 && offd_work) {
    try {
      offd_op->apply(hola::Op::N, alpha, {ghost_values.data(), ghosts}, Value(1), {y_data, rows},
                     space.stream);
    } catch (const std::exception& e) {
      record(HYPRE_ERROR_GENERIC, e.what());
    }
  }
  if (code != 0)
    return fail(
        code, std::string(space.device() ? "Hola HYPRE matvec (device): " : "Hola HYPRE matvec: ") +
                  error);
  ++products;
  return 0;
}

#endif  // HOLA_HYPRE_VALUES_SUPPORTED

HYPRE_Int HolaHypreMatvec_s::apply(HYPRE_Complex alpha, hypre_ParCSRMatrix* A, hypre_ParVector* x,
                                   HYPRE_Complex beta, hypre_ParVector* y) {
#if !HOLA_HYPRE_VALUES_SUPPORTED
  (void)alpha, (void)A, (void)x, (void)beta, (void)y;
  return fail(HYPRE_ERROR_GENERIC,
              "Hola: this HYPRE was built with complex or long double values; Hola has kernels "
              "for double and float only");
#else
  if (!A || !x || !y) return fail(HYPRE_ERROR_ARG, "Hola HYPRE matvec: null matrix or vector");
  if (!hypre_ParCSRMatrixDiag(A) || !hypre_ParCSRMatrixOffd(A) || !hypre_ParVectorLocalVector(x) ||
      !hypre_ParVectorLocalVector(y))
    return fail(HYPRE_ERROR_ARG, "Hola HYPRE matvec: matrix or vector not assembled");
  // Multivectors: HYPRE's own product (the Krylov solvers never pass them).
  if (hypre_VectorNumVectors(hypre_ParVectorLocalVector(x)) != 1 ||
      hypre_VectorNumVectors(hypre_ParVectorLocalVector(y)) != 1) {
    ++fallbacks;
    return hypre_ParCSRMatrixMatvec(alpha, A, x, beta, y);
  }
  const MemorySpace space =
      MemorySpace::of(hypre_GetActualMemLocation(hypre_ParCSRMatrixMemoryLocation(A)));
  if (space.device() && !HOLA_HYPRE_DEVICE) {
    // Device matrix, but this Hola has no CUDA kernels: HYPRE's own product.
    ++fallbacks;
    return hypre_ParCSRMatrixMatvec(alpha, A, x, beta, y);
  }
  return apply_in(space, alpha, A, x, beta, y);
#endif
}

// ---- the three slots of the solvers' function tables ----
namespace {

void* MatvecCreateHook(void* /*A*/, void* /*x*/) {
  // PCG's Setup destroys its matvec context and creates a new one right away; the options and
  // counters of the destroyed one come through `carry` (the other solvers keep theirs).
  auto* mv = new (std::nothrow) HolaHypreMatvec_s();
  if (!mv) {
    hypre_error_w_msg(HYPRE_ERROR_MEMORY, "Hola: out of memory creating the matvec context");
    return nullptr;
  }
  if (carry) {
    mv->settings = carry->settings;
    mv->products = carry->products;
    mv->fallbacks = carry->fallbacks;
    mv->analyses_before = carry->analyses;
    carry.reset();
  }
  return mv;
}

HYPRE_Int MatvecHook(void* data, HYPRE_Complex alpha, void* A, void* x, HYPRE_Complex beta,
                     void* y) {
  if (!is_matvec(data)) {
    // No context (creation failed): HYPRE's own product keeps the solver correct.
    return hypre_ParCSRMatrixMatvec(alpha, static_cast<hypre_ParCSRMatrix*>(A),
                                    static_cast<hypre_ParVector*>(x), beta,
                                    static_cast<hypre_ParVector*>(y));
  }
  HYPRE_Int code = 0;
  try {
    code = static_cast<HolaHypreMatvec_s*>(data)->apply(alpha, static_cast<hypre_ParCSRMatrix*>(A),
                                                        static_cast<hypre_ParVector*>(x), beta,
                                                        static_cast<hypre_ParVector*>(y));
  } catch (const std::exception& e) {  // nothing may unwind into HYPRE's C code
    code = fail(HYPRE_ERROR_GENERIC, std::string("Hola HYPRE matvec: ") + e.what());
  }
  // The solvers ignore this return value: raise HYPRE's error flag so that Solve reports it.
  if (code != 0) hypre_error_w_msg(code, last_error.c_str());
  return code;
}

HYPRE_Int MatvecDestroyHook(void* data) {
  if (!is_matvec(data)) return 0;
  auto* mv = static_cast<HolaHypreMatvec_s*>(data);
  carry = Carry{mv->settings, mv->products, mv->fallbacks, mv->analyses()};
  delete mv;
  return 0;
}

// Reads memory without faulting: the kernel copies it into a pipe and reports EFAULT for
// addresses that are not mapped. Used only to check that a handle is the solver it is said to be
// before anything is written to it.
class MemoryProbe {
 public:
  MemoryProbe() {
    if (pipe(fds_) != 0) {
      fds_[0] = fds_[1] = -1;
      return;
    }
    for (int fd : fds_) {
      fcntl(fd, F_SETFD, FD_CLOEXEC);
      fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
    }
  }
  ~MemoryProbe() {
    for (int fd : fds_)
      if (fd >= 0) close(fd);
  }
  MemoryProbe(const MemoryProbe&) = delete;
  MemoryProbe& operator=(const MemoryProbe&) = delete;
  bool usable() const { return fds_[0] >= 0; }

  bool read(const void* address, void* out, std::size_t bytes) {
    if (!usable() || !address) return false;
    const ssize_t written = write(fds_[1], address, bytes);
    if (written != static_cast<ssize_t>(bytes)) {
      drain();
      return false;
    }
    return ::read(fds_[0], out, bytes) == static_cast<ssize_t>(bytes);
  }

 private:
  void drain() {
    char sink[256];
    while (::read(fds_[0], sink, sizeof(sink)) > 0) {
    }
  }
  int fds_[2] = {-1, -1};
};

// Reads one field of a solver struct through the probe (a wrong handle may be smaller than Data).
template <class Field>
bool probe_field(MemoryProbe& probe, HYPRE_Solver solver, std::size_t offset, Field* out) {
  return probe.read(reinterpret_cast<const char*>(solver) + offset, out, sizeof(Field));
}

// PCG owns its matvec context unless told otherwise; the other solvers always do.
template <class Data>
bool owns_matvec_data(MemoryProbe& probe, HYPRE_Solver solver) {
  if constexpr (std::is_same_v<Data, hypre_PCGData>) {
    HYPRE_Int owns = 0;
    return probe_field(probe, solver, offsetof(hypre_PCGData, owns_matvec_data), &owns) &&
           owns != 0;
  } else {
    (void)probe, (void)solver;
    return true;
  }
}

// Access to one solver kind's data struct (Data) and function table (Functions).
template <class Data, class Functions>
struct SolverTable {
  Data* data = nullptr;
  Functions* functions = nullptr;
  bool hooked = false;  // the matvec slots are Hola's

  // Checks that `solver` is a ParCSR solver of this kind: its function table must hold HYPRE's
  // ParCSR vector operations and either HYPRE's or Hola's matvec.
  HYPRE_Int inspect(HYPRE_Solver solver, const char* kind) {
    const std::string what = std::string("Hola: the solver is not a ParCSR ") + kind +
                             " solver (made by HYPRE_ParCSR" + kind + "Create)";
    if (!solver) return fail(HYPRE_ERROR_ARG, std::string("Hola: the ") + kind + " solver is NULL");
    MemoryProbe probe;
    if (!probe.usable())
      return fail(HYPRE_ERROR_GENERIC, "Hola: cannot check the solver (no pipe available)");
    Functions* table = nullptr;
    Functions f;
    if (!probe_field(probe, solver, offsetof(Data, functions), &table) ||
        !probe.read(table, &f, sizeof(f)))
      return fail(HYPRE_ERROR_ARG, what);
    const bool parcsr = f.CreateVector == &hypre_ParKrylovCreateVector &&
                        f.DestroyVector == &hypre_ParKrylovDestroyVector &&
                        f.CopyVector == &hypre_ParKrylovCopyVector &&
                        f.Axpy == &hypre_ParKrylovAxpy && f.CommInfo == &hypre_ParKrylovCommInfo;
    if (!parcsr) return fail(HYPRE_ERROR_ARG, what);
    const bool native = f.MatvecCreate == &hypre_ParKrylovMatvecCreate &&
                        f.Matvec == &hypre_ParKrylovMatvec &&
                        f.MatvecDestroy == &hypre_ParKrylovMatvecDestroy;
    const bool ours = f.MatvecCreate == &MatvecCreateHook && f.Matvec == &MatvecHook &&
                      f.MatvecDestroy == &MatvecDestroyHook;
    if (!native && !ours)
      return fail(HYPRE_ERROR_ARG, std::string("Hola: the ") + kind +
                                       " solver's matvec was replaced by someone else");
    if (!owns_matvec_data<Data>(probe, solver))
      return fail(HYPRE_ERROR_ARG, std::string("Hola: the ") + kind +
                                       " solver does not own its matvec data (used inside "
                                       "another solver?)");
    data = reinterpret_cast<Data*>(solver);
    functions = table;
    hooked = ours;
    return 0;
  }

  HYPRE_Int enable(const Settings& s) {
    if (hooked) {
      if (is_matvec(data->matvec_data)) {
        static_cast<HolaHypreMatvec_s*>(data->matvec_data)->set_settings(s);
        return 0;
      }
    }
    auto* mv = new (std::nothrow) HolaHypreMatvec_s();
    if (!mv) return fail(HYPRE_ERROR_MEMORY, "Hola: out of memory");
    mv->settings = s;
    // HYPRE's ParCSR matvec keeps no context (NULL), but release whatever is there the way it
    // was made.
    if (data->matvec_data && !hooked) functions->MatvecDestroy(data->matvec_data);
    functions->MatvecCreate = &MatvecCreateHook;
    functions->Matvec = &MatvecHook;
    functions->MatvecDestroy = &MatvecDestroyHook;
    data->matvec_data = mv;
    return 0;
  }

  HYPRE_Int disable() {
    if (!hooked) return 0;
    if (is_matvec(data->matvec_data)) delete static_cast<HolaHypreMatvec_s*>(data->matvec_data);
    data->matvec_data = nullptr;  // what hypre_ParKrylovMatvecCreate makes
    functions->MatvecCreate = &hypre_ParKrylovMatvecCreate;
    functions->Matvec = &hypre_ParKrylovMatvec;
    functions->MatvecDestroy = &hypre_ParKrylovMatvecDestroy;
    return 0;
  }

  HolaHypreMatvec matvec() const {
    return hooked && is_matvec(data->matvec_data) ? static_cast<HolaHypreMatvec>(data->matvec_data)
                                                  : nullptr;
  }
};

// Runs op(table) on the table of a Data / Functions solver kind after checking the solver.
template <class Data, class Functions, class Op>
HYPRE_Int with_table(HYPRE_Solver solver, const char* kind, Op&& op) {
  SolverTable<Data, Functions> t;
  if (HYPRE_Int e = t.inspect(solver, kind)) return e;
  return op(t);
}

// Runs op(table) on the table of `kind` after checking the solver.
template <class Op>
HYPRE_Int with_solver(HYPRE_Solver solver, HolaHypreSolverKind kind, Op&& op) {
  switch (kind) {
    case HOLA_HYPRE_PCG:
      return with_table<hypre_PCGData, hypre_PCGFunctions>(solver, "PCG", op);
    case HOLA_HYPRE_GMRES:
      return with_table<hypre_GMRESData, hypre_GMRESFunctions>(solver, "GMRES", op);
    case HOLA_HYPRE_FLEXGMRES:
      return with_table<hypre_FlexGMRESData, hypre_FlexGMRESFunctions>(solver, "FlexGMRES", op);
    case HOLA_HYPRE_BICGSTAB:
      return with_table<hypre_BiCGSTABData, hypre_BiCGSTABFunctions>(solver, "BiCGSTAB", op);
    default:
      return fail(HYPRE_ERROR_ARG, "Hola: unknown solver kind " +
                                       std::to_string(static_cast<long long>(kind)) +
                                       " (HOLA_HYPRE_PCG, _GMRES, _FLEXGMRES, _BICGSTAB)");
  }
}

}  // namespace

// ---- C API ----
extern "C" {

HYPRE_Int HolaHypreEnableWithOptions(HYPRE_Solver solver, HolaHypreSolverKind kind,
                                     const char* kernel, HYPRE_Int deterministic) {
  last_error.clear();
  if (!HOLA_HYPRE_VALUES_SUPPORTED)
    return fail(HYPRE_ERROR_GENERIC,
                "Hola: this HYPRE was built with complex or long double values; Hola has kernels "
                "for double and float only");
  Settings s;
  if (HYPRE_Int e = check_settings(kernel, &s)) return e;
  s.deterministic = deterministic != 0;
  try {
    return with_solver(solver, kind, [&](auto& t) { return t.enable(s); });
  } catch (const std::exception& e) {
    return fail(HYPRE_ERROR_GENERIC, std::string("Hola: ") + e.what());
  }
}

HYPRE_Int HolaHypreEnable(HYPRE_Solver solver, HolaHypreSolverKind kind) {
  return HolaHypreEnableWithOptions(solver, kind, nullptr, 0);
}
HYPRE_Int HolaHyprePCGEnable(HYPRE_Solver solver) {
  return HolaHypreEnable(solver, HOLA_HYPRE_PCG);
}
HYPRE_Int HolaHypreGMRESEnable(HYPRE_Solver solver) {
  return HolaHypreEnable(solver, HOLA_HYPRE_GMRES);
}
HYPRE_Int HolaHypreFlexGMRESEnable(HYPRE_Solver solver) {
  return HolaHypreEnable(solver, HOLA_HYPRE_FLEXGMRES);
}
HYPRE_Int HolaHypreBiCGSTABEnable(HYPRE_Solver solver) {
  return HolaHypreEnable(solver, HOLA_HYPRE_BICGSTAB);
}

HYPRE_Int HolaHypreDisable(HYPRE_Solver solver, HolaHypreSolverKind kind) {
  last_error.clear();
  return with_solver(solver, kind, [](auto& t) { return t.disable(); });
}

HYPRE_Int HolaHypreGetMatvec(HYPRE_Solver solver, HolaHypreSolverKind kind,
                             HolaHypreMatvec* matvec) {
  last_error.clear();
  if (!matvec) return fail(HYPRE_ERROR_ARG, "Hola: matvec output pointer is NULL");
  *matvec = nullptr;
  return with_solver(solver, kind, [&](auto& t) {
    *matvec = t.matvec();
    return HYPRE_Int(0);
  });
}

HYPRE_Int HolaHypreMatvecCreate(const char* kernel, HYPRE_Int deterministic,
                                HolaHypreMatvec* matvec) {
  last_error.clear();
  if (!matvec) return fail(HYPRE_ERROR_ARG, "Hola: matvec output pointer is NULL");
  *matvec = nullptr;
  Settings s;
  if (HYPRE_Int e = check_settings(kernel, &s)) return e;
  s.deterministic = deterministic != 0;
  auto* mv = new (std::nothrow) HolaHypreMatvec_s();
  if (!mv) return fail(HYPRE_ERROR_MEMORY, "Hola: out of memory");
  mv->settings = s;
  *matvec = mv;
  return 0;
}

HYPRE_Int HolaHypreMatvecApply(HolaHypreMatvec matvec, HYPRE_Complex alpha, HYPRE_ParCSRMatrix A,
                               HYPRE_ParVector x, HYPRE_Complex beta, HYPRE_ParVector y) {
  last_error.clear();
  if (!is_matvec(matvec)) return fail(HYPRE_ERROR_ARG, "Hola: invalid HolaHypreMatvec");
  try {
    return matvec->apply(alpha, reinterpret_cast<hypre_ParCSRMatrix*>(A),
                         reinterpret_cast<hypre_ParVector*>(x), beta,
                         reinterpret_cast<hypre_ParVector*>(y));
  } catch (const std::exception& e) {
    return fail(HYPRE_ERROR_GENERIC, std::string("Hola: ") + e.what());
  }
}

HYPRE_Int HolaHypreMatvecGetStats(HolaHypreMatvec matvec, long long* products, long long* fallbacks,
                                  long long* analyses) {
  last_error.clear();
  if (!is_matvec(matvec)) return fail(HYPRE_ERROR_ARG, "Hola: invalid HolaHypreMatvec");
  if (products) *products = matvec->products;
  if (fallbacks) *fallbacks = matvec->fallbacks;
  if (analyses) *analyses = matvec->analyses();
  return 0;
}

HYPRE_Int HolaHypreMatvecGetKernelName(HolaHypreMatvec matvec, const char** name) {
  last_error.clear();
  if (!is_matvec(matvec) || !name)
    return fail(HYPRE_ERROR_ARG, "Hola: invalid HolaHypreMatvec or NULL name pointer");
  *name = matvec->kernel_name.c_str();
  return 0;
}

HYPRE_Int HolaHypreMatvecDestroy(HolaHypreMatvec matvec) {
  last_error.clear();
  if (!matvec) return 0;
  if (!is_matvec(matvec)) return fail(HYPRE_ERROR_ARG, "Hola: invalid HolaHypreMatvec");
  delete matvec;
  return 0;
}

const char* HolaHypreLastError(void) { return last_error.c_str(); }

}  // extern "C"
