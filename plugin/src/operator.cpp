#include "hola/operator.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <limits>
#include <sstream>
#include <utility>
#include <vector>

#include "hola/compressed_rows.hpp"
#include "hola/detail/instantiate.hpp"
#include "hola/error.hpp"
#include "hola/gpu_kernels.hpp"
#include "hola/gpu_validate.hpp"
#include "hola/registry.hpp"
#include "hola/selector.hpp"
#include "hola/structure_sample.hpp"
#include "hola/validate.hpp"
#include "product_check.hpp"

namespace hola {

using detail::ProductCheck;

namespace {

// Operator::work_version: one counter for the process, so that a version names one state of one
// Operator.
std::uint64_t next_work_version() {
  static std::atomic<std::uint64_t> counter{0};
  return ++counter;
}

// Device kernels tried, in the kernel table's order, when the requested one cannot do an op
// (or cannot do it deterministically, or cannot take the matrix).
const std::vector<std::string>& device_fallbacks() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> v;
    for (const KernelInfo& k : KernelRegistry::kernels())
      if (k.memory == Memory::device && k.name != "auto") v.push_back(k.name);
    return v;
  }();
  return names;
}

// A kernel object for `name` that can do op on A's memory and index types (and
// deterministically when asked), else null.
template <class V, class I, class O>
SpmvKernelPtr<V, I, O> usable_kernel(const std::string& name, Op op, Memory memory,
                                     const OperatorOptions& opt) {
  const KernelInfo* info = KernelRegistry::find(name);
  if (!info || info->memory != memory) return nullptr;
  if (!info->mixed_index_types && !std::is_same_v<I, O>) return nullptr;
  auto k = KernelRegistry::create<V, I, O>(name, opt.kernel_options);
  if (!k->supports(op) || (opt.deterministic && !k->deterministic())) return nullptr;
  return k;
}

// Sets up k (registry name `name`) for A. auto: a candidate that cannot take this matrix
// (cuSPARSE beyond 2^31 - 1 nonzeros, a kernel's row limit) gives way to the next device kernel,
// noted in `reason`; a named kernel reports its error.
template <class V, class I, class O>
void set_up_or_fall_back(SpmvKernelPtr<V, I, O>& k, std::string& name, Op op,
                         const CsrView<V, I, O>& A, const OperatorOptions& opt, std::string& reason,
                         void* stream) {
  try {
    k->setup(A, stream);
    return;
  } catch (const error& e) {
    if (opt.kernel != "auto" || A.memory != Memory::device || e.code() == status::out_of_memory ||
        e.code() == status::cuda)
      throw;
    reason += "; " + name + " cannot take this matrix (" + e.what() + ")";
  }
  for (const std::string& fallback : device_fallbacks()) {
    if (name == fallback) continue;
    SpmvKernelPtr<V, I, O> other = usable_kernel<V, I, O>(fallback, op, A.memory, opt);
    if (!other) continue;
    try {
      other->setup(A, stream);
    } catch (const error& e) {
      if (e.code() == status::out_of_memory || e.code() == status::cuda) throw;
      continue;
    }
    reason += ", using " + fallback;
    k = std::move(other);
    name = fallback;
    return;
  }
  fail(status::unsupported, "no device kernel can take this matrix: " + reason);
}

template <class V>
bool overlaps(const V* a, std::int64_t na, const V* b, std::int64_t nb) {
  if (!a || !b || na <= 0 || nb <= 0) return false;
  const auto pa = reinterpret_cast<std::uintptr_t>(a), pb = reinterpret_cast<std::uintptr_t>(b);
  return pa < pb + nb * sizeof(V) && pb < pa + na * sizeof(V);
}

}  // namespace

template <class V, class I, class O>
struct Operator<V, I, O>::Impl {
  OperatorOptions options;
  CsrView<V, I, O> A{};
  StructureFingerprint key;
  std::vector<std::int64_t> sample;  // structure_sample of the analysed arrays
  bool ready = false;
  SpmvKernelPtr<V, I, O> kernel_n;
  SpmvKernelPtr<V, I, O> kernel_t;  // null when kernel_n also does op T (or when none can)
  std::string t_unavailable;        // why op T cannot run (deterministic mode), else empty
  std::string reason;
  std::uint64_t analyses = 0;
  // kernel_t is made but set up only at the first product with op T (Prepared::t_deferred).
  bool t_deferred = false;
  std::string t_name;
  std::shared_ptr<const KernelDecision> decision;  // of the last analysis
  std::shared_ptr<const KernelDecision> adopted;   // handed over by reuse_decision
  std::uint64_t taken_over = 0;
  SetupTimes times;  // of the last analysis
  // Operator::work_version per op (N, T): renewed whenever what apply(op) queues may change.
  std::uint64_t versions[2] = {0, 0};
  void renew_version(Op op) { versions[index_of(op)] = next_work_version(); }
  void renew_versions() {
    renew_version(Op::N);
    renew_version(Op::T);
  }
  // Empty rows left out (OperatorOptions::compress_empty_rows): `inner` is set up for the
  // nonempty rows (`rows_kept`) and does the products; kernel_n and kernel_t are null. Its
  // structure version is `inner_version`, so a values refresh costs it no structure check.
  std::unique_ptr<CompressedRows<V, I, O>> rows_kept;
  std::unique_ptr<Operator<V, I, O>> inner;
  std::uint64_t inner_version = 0;

  // Whether leaving out the empty rows may pay: enough rows to reach the floor, row numbers
  // that fit I. The count of nonempty rows decides (leaves_out_empty_rows).
  bool may_leave_out_empty_rows(const CsrView<V, I, O>& A) const {
    return options.compress_empty_rows && A.nnz > 0 && A.rows >= options.compress_min_empty_rows &&
           A.rows - 1 <= static_cast<std::int64_t>(std::numeric_limits<I>::max());
  }
  bool leaves_out_empty_rows(const CsrView<V, I, O>& A, std::int64_t kept) const {
    const std::int64_t empty = A.rows - kept;
    return kept > 0 && empty >= options.compress_min_empty_rows && 2 * empty >= A.rows;
  }

  bool adopted_fits(const CsrView<V, I, O>& A) const {
    return adopted && adopted->rows == A.rows && adopted->cols == A.cols && adopted->nnz == A.nnz &&
           adopted->memory == A.memory && adopted->requested == options.kernel &&
           adopted->deterministic == options.deterministic;
  }

  // auto's check at the first products (OperatorOptions::auto_check), per op.
  struct Check {
    bool active = false;                     // still comparing
    std::vector<std::string> challengers;    // registry names: runner-up, cuSPARSE
    std::vector<SpmvKernel<V, I, O>*> runs;  // the pick, then the challengers set up
    SpmvKernel<V, I, O>* winner = nullptr;   // runs the op after the verdict (null: the pick)
    int products = 0;                        // products of the check issued (ProductCheck::step)
#if defined(HOLA_ENABLE_CUDA)
    std::unique_ptr<gpu::ProductTimer> timer;
    // Where the challengers' products go (the op's output length); the caller's y always gets
    // the pick's product. Freed at the next analysis, as the challengers: cudaFree would
    // synchronise the device on the product path.
    std::unique_ptr<void, void (*)(void*)> challenger_y{nullptr, gpu::device_free};
#endif
  };
  Check checks[2];
  // The challengers' kernel objects (one per registry name, shared by both ops), set up at the
  // first product of a check; kept until the next analysis, so that a verdict frees nothing on
  // the product path.
  std::vector<std::pair<std::string, SpmvKernelPtr<V, I, O>>> challenger_pool;

  static int index_of(Op op) { return op == Op::N ? 0 : 1; }

  SpmvKernel<V, I, O>* kernel_for(Op op) const {
    if (op == Op::T && !t_unavailable.empty()) fail(status::unsupported, t_unavailable);
    if (SpmvKernel<V, I, O>* w = checks[index_of(op)].winner) return w;
    return op == Op::N || !kernel_t ? kernel_n.get() : kernel_t.get();
  }

  // After an analysis: which ops auto's check compares, and against what (the leaf's runner-up
  // and cuSPARSE; the GPU, no race, no deterministic mode). cuSPARSE joins for index types it
  // takes, also when the trees did not name it.
  void start_checks(const std::string& n_name, const std::string& t_name,
                    const KernelChoice* choice) {
    challenger_pool.clear();
    const bool possible = options.kernel == "auto" && options.auto_check && !options.auto_trial &&
                          !options.deterministic && A.memory == Memory::device && A.nnz > 0 &&
                          !inner;
    for (Op op : {Op::N, Op::T}) {
      Check& c = checks[index_of(op)];
      c = Check{};
      if (!possible || (op == Op::T && !t_unavailable.empty())) continue;
      const std::string& picked = op == Op::N ? n_name : t_name;
      std::vector<std::string> names;
      if (choice) names = (op == Op::N ? choice->n : choice->t).alternatives;
      if (std::is_same_v<I, O>) names.push_back(options.auto_vendor_kernel);
      for (const std::string& name : names)
        if (name != picked &&
            std::find(c.challengers.begin(), c.challengers.end(), name) == c.challengers.end())
          c.challengers.push_back(name);
      c.active = !c.challengers.empty();
    }
  }

  // The decision handed to duplicates names the kernel that won op's check.
  void record_win(Op op, const std::string& name) {
    if (!decision) return;
    auto changed = std::make_shared<KernelDecision>(*decision);
    KernelSelection& s = op == Op::N ? changed->choice.n : changed->choice.t;
    s.name = name;
    s.reason += "; " + name + " was faster at the first products";
    decision = std::move(changed);
  }

  std::size_t challenger_bytes() const {
    std::size_t bytes = 0;
    for (const auto& [name, k] : challenger_pool) bytes += k->workspace_bytes();
    return bytes;
  }

#if defined(HOLA_ENABLE_CUDA)
  // Ends op's check: from now on one kernel runs op (a new work version).
  void end_check(Op op) {
    Check& c = checks[index_of(op)];
    c.active = false;
    c.timer.reset();
    renew_version(op);
  }

  // The challenger `name` for op, set up for A (once per name); null, with why, when it cannot
  // take this matrix or op (cuSPARSE beyond 2^31 - 1 nonzeros, out of memory, ...).
  SpmvKernel<V, I, O>* challenger(const std::string& name, Op op, void* stream, std::string& why) {
    SpmvKernel<V, I, O>* k = nullptr;
    for (auto& [n, made] : challenger_pool)
      if (n == name) k = made.get();
    if (!k) {
      SpmvKernelPtr<V, I, O> made = usable_kernel<V, I, O>(name, op, A.memory, options);
      if (!made) {
        why = "it cannot do op " + std::string(op_name(op)) + " for these types";
        return nullptr;
      }
      try {
        made->setup(A, stream);
      } catch (const error& e) {
        if (e.code() == status::cuda) throw;
        why = e.what();
        return nullptr;
      }
      k = made.get();
      challenger_pool.emplace_back(name, std::move(made));
    }
    if (!k->supports(op)) {
      why = "it cannot do op " + std::string(op_name(op));
      return nullptr;
    }
    return k;
  }

  // One product of op while its check is active: the step's kernel, timed when the step says
  // so; at the product after the last step, the verdict (waiting for the last timed product if
  // the GPU has not passed it). A challenger's product is written to scratch and followed by
  // the pick's (untimed) into the caller's y: every product the caller sees during the check is
  // the pick's, so a solver's rounding does not hop between kernels for a dozen products and is
  // as reproducible from run to run as the pick is (hola's atomic finish of op N on large
  // matrices, a challenger, is not: SNES ex19's GMRES counts moved from run to run although
  // auto's verdict was the deterministic inode).
  void checked_product(Op op, V alpha, const V* x, V beta, const V* y_in, V* y_out, void* stream) {
    Check& c = checks[index_of(op)];
    SpmvKernel<V, I, O>* pick = kernel_for(op);
    const std::string on = "; op " + std::string(op_name(op)) + " ";
    auto product = [&](SpmvKernel<V, I, O>* k) {
      k->apply(op, alpha, x, beta, y_in, y_out, stream);
    };
    if (gpu::stream_capturing(stream)) {
      // A CUDA graph keeps the kernel it captured, so the check ends on it; the challengers'
      // setup, which may synchronise, never runs inside a capture.
      end_check(op);
      reason += on + "kept " + pick->name() + " unchecked (a CUDA graph captured its product)";
      return product(pick);
    }
    if (c.products == 0) {
      c.runs = {pick};
      for (const std::string& name : c.challengers) {
        std::string why;
        if (name == pick->name()) continue;  // a fallback made a challenger the pick
        if (SpmvKernel<V, I, O>* k = challenger(name, op, stream, why))
          c.runs.push_back(k);
        else
          reason += on + name + " not checked (" + why + ")";
      }
      if (c.runs.size() < 2) {
        end_check(op);
        return product(pick);
      }
      const std::int64_t y_length = op == Op::N ? A.rows : A.cols;
      try {
        c.challenger_y.reset(gpu::device_allocate(static_cast<std::size_t>(y_length) * sizeof(V)));
      } catch (const error& e) {
        // As a challenger that cannot be set up: the pick runs, unchecked.
        if (e.code() != status::out_of_memory) throw;
        end_check(op);
        reason += on + "kept " + pick->name() +
                  " unchecked (no device memory for the challengers' output: " + e.what() + ")";
        return product(pick);
      }
      c.timer =
          std::make_unique<gpu::ProductTimer>(ProductCheck::slots(static_cast<int>(c.runs.size())));
    }
    const int n = static_cast<int>(c.runs.size());
    if (c.products < ProductCheck::products(n)) {
      const ProductCheck::Step step = ProductCheck::step(c.products, n);
      V* out = step.candidate == 0 ? y_out : static_cast<V*>(c.challenger_y.get());
      if (step.slot >= 0) c.timer->start(step.slot, stream);
      c.runs[static_cast<std::size_t>(step.candidate)]->apply(op, alpha, x, beta, y_in, out,
                                                              stream);
      if (step.slot >= 0) c.timer->stop(step.slot, stream);
      if (step.candidate != 0) product(pick);
      ++c.products;
      return;
    }
    // The verdict comes at this product, the first after the check, whatever the GPU's
    // progress: the host waits for the last timed product if the GPU has not passed it yet
    // (once per op and structure). Which product runs which kernel then never depends on
    // timing, so a run's rounding is repeatable when its verdict is.
    c.timer->wait();
    std::vector<double> ms(static_cast<std::size_t>(ProductCheck::slots(n)));
    for (std::size_t s = 0; s < ms.size(); ++s) ms[s] = c.timer->elapsed_ms(static_cast<int>(s));
    std::vector<double> margins(static_cast<std::size_t>(n), options.auto_check_margin);
    for (int k = 1; k < n; ++k)
      if (c.runs[static_cast<std::size_t>(k)]->name() == options.auto_vendor_kernel)
        margins[static_cast<std::size_t>(k)] = options.auto_check_vendor_margin;
    const int won = ProductCheck::winner(ms, margins);
    std::ostringstream report;
    report.precision(4);
    report << on << "checked at its first products (best of " << ProductCheck::kTimedRounds
           << ", us):";
    for (int k = 0; k < n; ++k)
      report << " " << c.runs[static_cast<std::size_t>(k)]->name() << " "
             << ProductCheck::best_ms(ms, k, n) * 1e3;
    report << " -> " << c.runs[static_cast<std::size_t>(won)]->name();
    reason += report.str();
    end_check(op);
    if (won > 0) {
      c.winner = c.runs[static_cast<std::size_t>(won)];
      record_win(op, c.winner->name());
    }
    c.runs.clear();
    product(kernel_for(op));
  }
#endif
};

template <class V, class I, class O>
struct Operator<V, I, O>::Prepared {
  SpmvKernelPtr<V, I, O> kernel_n;
  SpmvKernelPtr<V, I, O> kernel_t;
  std::string t_unavailable;
  std::string reason;
  std::string n_name, t_name;  // registry names of the kernels for N and T
  bool t_deferred = false;     // kernel_t made but not set up yet
};

template <class V, class I, class O>
Operator<V, I, O>::Operator(OperatorOptions options) : impl_(std::make_unique<Impl>()) {
  if (!KernelRegistry::find(options.kernel))
    fail(status::invalid_argument,
         "unknown kernel '" + options.kernel + "' (known: " + KernelRegistry::names() + ")");
  if (options.auto_vendor_kernel != "cusparse" && options.auto_vendor_kernel != "cusparse-alg2")
    fail(status::invalid_argument, "auto_vendor_kernel must be cusparse or cusparse-alg2, not '" +
                                       options.auto_vendor_kernel + "'");
  for (const auto& [name, margin] :
       {std::pair{"auto_check_margin", options.auto_check_margin},
        {"auto_check_vendor_margin", options.auto_check_vendor_margin}})
    if (!(margin > 0) || margin == std::numeric_limits<double>::infinity())
      fail(status::invalid_argument,
           std::string(name) + " must be a finite number above 0, not " + std::to_string(margin));
  options.kernel_options.deterministic = options.deterministic;
  impl_->options = std::move(options);
}

template <class V, class I, class O>
Operator<V, I, O>::~Operator() = default;
template <class V, class I, class O>
Operator<V, I, O>::Operator(Operator&&) noexcept = default;
template <class V, class I, class O>
Operator<V, I, O>& Operator<V, I, O>::operator=(Operator&&) noexcept = default;

template <class V, class I, class O>
void Operator<V, I, O>::setup(const CsrView<V, I, O>& A, std::uint64_t structure_version,
                              void* stream) {
  if (std::string msg = check_csr_shape(A); !msg.empty()) fail(status::invalid_argument, msg);
  const StructureFingerprint key = fingerprint(A, structure_version);
  // Version 0 promises nothing: arrays at the same addresses may hold another structure of the
  // same sizes (freed and allocated again), so a sample of them must match too.
  std::vector<std::int64_t> sample;
  auto sample_of_A = [&]() -> const std::vector<std::int64_t>& {
    if (sample.empty())
      sample = A.memory == Memory::device
                   ? gpu::structure_sample_device(A.row_ptr, A.col_idx, A.rows, A.nnz, stream)
                   : structure_sample(A.row_ptr, A.col_idx, A.rows, A.nnz);
    return sample;
  };
  if (impl_->ready && key == impl_->key &&
      (structure_version != 0 || sample_of_A() == impl_->sample)) {
    // Same structure: new values only, no analysis.
    if (A.values != impl_->A.values) impl_->renew_versions();  // kernels read them by pointer
    impl_->A.values = A.values;
    if (impl_->inner) {
      impl_->inner->setup(impl_->rows_kept->matrix(A.values), impl_->inner_version, stream);
      return;
    }
    impl_->kernel_n->set_values(A.values);
    if (impl_->kernel_t && !impl_->t_deferred) impl_->kernel_t->set_values(A.values);
    for (auto& [name, k] : impl_->challenger_pool) k->set_values(A.values);
    return;
  }
  // The Operator changes only when all three steps succeeded.
  using Clock = std::chrono::steady_clock;
  const auto ms_since = [](Clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
  };
  SetupTimes times;
  auto t0 = Clock::now();
  analyze(A, stream);
  times.analyze_ms = ms_since(t0);
  // Empty rows left out: the nonempty rows as a matrix of their own, analysed by an inner
  // Operator (its own kernel choice for their shape); validated above already.
  std::unique_ptr<CompressedRows<V, I, O>> rows_kept;
  std::unique_ptr<Operator<V, I, O>> inner;
  const std::uint64_t inner_version = impl_->analyses + 1;
  if (impl_->may_leave_out_empty_rows(A)) {
    const std::int64_t kept = CompressedRows<V, I, O>::count_nonempty(A, stream);
    if (impl_->leaves_out_empty_rows(A, kept)) {
      rows_kept = std::make_unique<CompressedRows<V, I, O>>(A, kept, stream);
      OperatorOptions inner_options = impl_->options;
      inner_options.validate = false;
      inner_options.compress_empty_rows = false;
      inner = std::make_unique<Operator<V, I, O>>(inner_options);
      if (impl_->adopted) inner->reuse_decision(impl_->adopted);
      inner->setup(rows_kept->matrix(A.values), inner_version, stream);
    }
  }
  Prepared p;           // empty when `inner` does the products
  KernelChoice choice;  // this analysis's (not when `inner` does the products)
  std::shared_ptr<const KernelDecision> decision;
  bool takes_over = false;
  if (inner) {
    const SetupTimes inner_times = inner->last_setup_times();
    times.analyze_ms = ms_since(t0) - inner_times.choose_ms - inner_times.prepare_ms;
    times.choose_ms = inner_times.choose_ms;
    times.prepare_ms = inner_times.prepare_ms;
    decision = inner->decision();
    p.reason = inner->selection_reason() + "; " + std::to_string(rows_kept->kept()) + " of " +
               std::to_string(A.rows) + " rows have entries: the kernels run on those alone";
    takes_over = inner->decisions_taken_over() > 0;
  } else {
    takes_over = impl_->adopted_fits(A);
    t0 = Clock::now();
    choice = choose(A, stream);
    times.choose_ms = ms_since(t0);
    t0 = Clock::now();
    p = prepare(A, choice, stream);
    times.prepare_ms = ms_since(t0);
    auto decided = std::make_shared<KernelDecision>();
    decided->rows = A.rows;
    decided->cols = A.cols;
    decided->nnz = A.nnz;
    decided->memory = A.memory;
    decided->requested = impl_->options.kernel;
    decided->deterministic = impl_->options.deterministic;
    decided->choice = choice;
    decided->choice.n = {p.n_name, p.reason, {}};
    decided->choice.t = {p.t_unavailable.empty() ? p.t_name : p.n_name, p.reason, {}};
    decision = std::move(decided);
  }
  if (structure_version == 0) sample_of_A();
  impl_->decision = std::move(decision);
  impl_->A = A;
  impl_->key = key;
  impl_->sample = std::move(sample);
  impl_->kernel_n = std::move(p.kernel_n);
  impl_->kernel_t = std::move(p.kernel_t);
  impl_->t_unavailable = std::move(p.t_unavailable);
  impl_->t_deferred = p.t_deferred;
  impl_->t_name = p.t_name;
  impl_->reason = std::move(p.reason);
  impl_->rows_kept = std::move(rows_kept);
  impl_->inner = std::move(inner);
  impl_->inner_version = inner_version;
  impl_->start_checks(p.n_name, p.t_unavailable.empty() ? p.t_name : p.n_name,
                      impl_->inner ? nullptr : &choice);
  impl_->ready = true;
  impl_->renew_versions();
  ++impl_->analyses;
  if (takes_over) ++impl_->taken_over;
  impl_->times = times;
}

template <class V, class I, class O>
void Operator<V, I, O>::analyze(const CsrView<V, I, O>& A, void* stream) const {
  if (A.memory == Memory::device && !gpu::gpu_available())
    fail(status::no_device,
         "the matrix is in device memory but no usable CUDA GPU was found" + std::string(
#if defined(HOLA_ENABLE_CUDA)
                                                                                 ""
#else
                                                                                 " (this build of "
                                                                                 "Hola has no CUDA "
                                                                                 "support)"
#endif
                                                                                 ));
  if (!impl_->options.validate) return;
  std::string msg;
  if (A.memory == Memory::host) {
    msg = check_csr(A);
  } else {
#if defined(HOLA_ENABLE_CUDA)
    msg = gpu::check_csr_device(A, stream);
#endif
  }
  (void)stream;
  if (!msg.empty()) fail(status::invalid_csr, "invalid CSR matrix: " + msg);
}

template <class V, class I, class O>
KernelChoice Operator<V, I, O>::choose(const CsrView<V, I, O>& A, void* stream) const {
  if (impl_->adopted_fits(A)) {
    KernelChoice c = impl_->adopted->choice;
    c.n.reason = "taken over from a matrix with the same pattern (" + c.n.reason + ")";
    c.t.reason = c.n.reason;
    c.features_ms = 0;
    return with_vendor_kernel(std::move(c));
  }
  return with_vendor_kernel(select_kernels(impl_->options.kernel, A, stream));
}

template <class V, class I, class O>
KernelChoice Operator<V, I, O>::with_vendor_kernel(KernelChoice c) const {
  const OperatorOptions& opt = impl_->options;
  if (opt.kernel != "auto" || opt.auto_vendor_kernel == "cusparse") return c;
  for (KernelSelection* s : {&c.n, &c.t}) {
    if (s->name == "cusparse") {
      s->name = opt.auto_vendor_kernel;
      s->reason += " (cuSPARSE as " + opt.auto_vendor_kernel + ": auto_vendor_kernel)";
    }
    for (std::string& alt : s->alternatives)
      if (alt == "cusparse") alt = opt.auto_vendor_kernel;
  }
  return c;
}

template <class V, class I, class O>
typename Operator<V, I, O>::Prepared Operator<V, I, O>::prepare(const CsrView<V, I, O>& A,
                                                                const KernelChoice& choice,
                                                                void* stream) const {
  const OperatorOptions& opt = impl_->options;
  Prepared out;
  std::string& reason = out.reason;
  reason = choice.n.reason;
  // A decision taken over carries one reason for both ops (it already names op T's pick).
  if (choice.t.name != choice.n.name && choice.t.reason != choice.n.reason)
    reason += "; op T: " + choice.t.reason;
  auto usable = [&](const std::string& name, Op op) {
    return usable_kernel<V, I, O>(name, op, A.memory, opt);
  };
  // Returns the kernel for op and its registry name in `picked`.
  auto pick = [&](Op op, std::string& picked) -> SpmvKernelPtr<V, I, O> {
    const std::string& wanted = op == Op::N ? choice.n.name : choice.t.name;
    picked = wanted;
    if (auto k = usable(wanted, op)) return k;
    if (A.memory == Memory::device) {
      for (const std::string& name : device_fallbacks()) {
        picked = name;
        if (auto k = usable(name, op)) {
          reason += "; " + wanted + " cannot do op " + op_name(op) +
                    (opt.deterministic ? " deterministically" : "") + ", using " + name;
          return k;
        }
      }
    }
    fail(status::unsupported, std::string("no ") + memory_name(A.memory) + " kernel can do op " +
                                  op_name(op) + (opt.deterministic ? " deterministically" : "") +
                                  " for these types");
  };
  std::string n_name, t_name;
  SpmvKernelPtr<V, I, O> kn = pick(Op::N, n_name);
  SpmvKernelPtr<V, I, O> kt;
  // One kernel object serves both ops when it was chosen for both and can do both.
  const bool n_does_t =
      choice.t.name == n_name && kn->supports(Op::T) && (!opt.deterministic || kn->deterministic());
  if (!n_does_t) {
    try {
      kt = pick(Op::T, t_name);
    } catch (const error& e) {
      // Deterministic mode on the GPU: op N is still useful (CG, GMRES never need A^T), so
      // only op T is refused, at apply.
      if (e.code() != status::unsupported || !opt.deterministic) throw;
      out.t_unavailable = e.what();
      reason += std::string("; op T unavailable: ") + e.what();
    }
  } else {
    t_name = n_name;
  }
  const bool racing = opt.kernel == "auto" && opt.auto_trial && !opt.deterministic &&
                      A.memory == Memory::device && A.nnz > 0;
  set_up_or_fall_back(kn, n_name, Op::N, A, opt, reason, stream);
  // A separate kernel for op T on the GPU is set up at the first product with op T (as PETSc's
  // aijcusparse builds its transpose at the first MatMultTranspose): solvers that never
  // transpose (CG, GMRES) do not pay for it. The race times it, so then it is set up now.
  if (kt && (racing || A.memory != Memory::device))
    set_up_or_fall_back(kt, t_name, Op::T, A, opt, reason, stream);
  else if (kt)
    out.t_deferred = true;
#if defined(HOLA_ENABLE_CUDA)
  if (racing) {
    // Race the tree's pick for each op against its alternatives on this matrix and keep the
    // fastest. Every kernel object is set up once (a kernel raced for op N also runs for op
    // T); the losers are freed at the end of this block.
    std::vector<std::pair<std::string, SpmvKernelPtr<V, I, O>>> pool;
    auto find = [&](const std::string& name) -> SpmvKernel<V, I, O>* {
      for (auto& [n, k] : pool)
        if (n == name) return k.get();
      return nullptr;
    };
    pool.emplace_back(n_name, std::move(kn));
    if (kt) pool.emplace_back(t_name, std::move(kt));
    auto race = [&](Op op, const std::string& current,
                    const std::vector<std::string>& alternatives) -> std::string {
      std::vector<SpmvKernel<V, I, O>*> entrants;
      std::vector<std::string> names;
      auto enter = [&](const std::string& name) {
        SpmvKernel<V, I, O>* k = find(name);
        if (!k) {
          SpmvKernelPtr<V, I, O> made = usable(name, op);
          if (!made) return;
          try {
            made->setup(A, stream);
          } catch (const error& e) {
            // Not an entrant for this matrix (see set_up above); the race goes on without it.
            if (e.code() == status::out_of_memory || e.code() == status::cuda) throw;
            reason += "; " + name + " not raced (" + e.what() + ")";
            return;
          }
          k = made.get();
          pool.emplace_back(name, std::move(made));
        }
        if (!k->supports(op)) return;
        entrants.push_back(k);
        names.push_back(name);
      };
      enter(current);
      for (const std::string& alt : alternatives)
        if (alt != current) enter(alt);
      if (entrants.size() < 2) return current;
      const std::vector<double> ms = gpu::time_kernels(entrants, op, A.rows, A.cols, {}, stream);
      auto best = static_cast<std::size_t>(std::min_element(ms.begin(), ms.end()) - ms.begin());
      // cuSPARSE ALG1 stays unless another kernel beat it by the margin: a switch must be
      // worth more than the race's noise (bench/selector/train.py models the same rule).
      constexpr double kVendorMargin = 1.03;
      for (std::size_t i = 0; i < names.size(); ++i)
        if (names[i] == opt.auto_vendor_kernel && ms[best] * kVendorMargin >= ms[i]) best = i;
      std::ostringstream report;
      report.precision(3);
      report << "; op " << op_name(op) << " timed at setup (us per apply):";
      for (std::size_t i = 0; i < ms.size(); ++i) report << " " << names[i] << " " << ms[i] * 1e3;
      report << " -> " << names[best];
      reason += report.str();
      return names[best];
    };
    try {
      const std::string n_won = race(Op::N, n_name, choice.n.alternatives);
      const std::string t_won =
          out.t_unavailable.empty() ? race(Op::T, t_name, choice.t.alternatives) : t_name;
      n_name = n_won;
      t_name = t_won;
    } catch (const error& e) {
      // The race is an optimisation: without memory for its scratch vectors or the
      // alternatives, the tree's kernels (set up above) still run. Other failures are real.
      if (e.code() != status::out_of_memory) throw;
      reason += std::string("; setup race skipped: ") + e.what();
    }
    for (auto& [name, k] : pool)
      if (name == n_name) kn = std::move(k);
    if (out.t_unavailable.empty() && !(t_name == n_name && kn->supports(Op::T)))
      for (auto& [name, k] : pool)
        if (name == t_name) kt = std::move(k);
  }
#endif
  out.kernel_n = std::move(kn);
  out.kernel_t = std::move(kt);
  out.n_name = n_name;
  out.t_name = t_name;
  return out;
}

template <class V, class I, class O>
StructureFingerprint Operator<V, I, O>::fingerprint(const CsrView<V, I, O>& A,
                                                    std::uint64_t structure_version) {
  return {A.row_ptr, A.col_idx, A.rows, A.cols, A.nnz, structure_version, A.memory};
}

template <class V, class I, class O>
bool Operator<V, I, O>::is_set_up_for(const StructureFingerprint& key) const {
  return impl_->ready && impl_->key == key;
}

template <class V, class I, class O>
void Operator<V, I, O>::apply(Op op, V alpha, ConstVec<V> x, V beta, ConstVec<V> y_in, Vec<V> y_out,
                              void* stream) {
  if (!impl_->ready) fail(status::invalid_argument, "Operator::apply before setup");
  const CsrView<V, I, O>& A = impl_->A;
  const std::int64_t nx = op == Op::N ? A.cols : A.rows;
  const std::int64_t ny = op == Op::N ? A.rows : A.cols;
  const char* shape = op == Op::N ? "A x" : "A^T x";
  if (x.size != nx)
    fail(status::size_mismatch, std::string("x has ") + std::to_string(x.size) + " entries but " +
                                    shape + " needs " + std::to_string(nx));
  if (y_out.size != ny)
    fail(status::size_mismatch, std::string("y has ") + std::to_string(y_out.size) +
                                    " entries but " + shape + " gives " + std::to_string(ny));
  const bool reads_y = beta != V(0);
  if (reads_y && y_in.size != ny)
    fail(status::size_mismatch,
         "input y has " + std::to_string(y_in.size) + " entries, expected " + std::to_string(ny));
  if ((nx > 0 && !x.data) || (ny > 0 && !y_out.data) || (reads_y && ny > 0 && !y_in.data))
    fail(status::invalid_argument, "null vector pointer");
  if (overlaps(x.data, x.size, y_out.data, y_out.size))
    fail(status::aliasing, "x overlaps the output vector: x must not alias y or z");
  if (reads_y && y_in.data != y_out.data && overlaps(y_in.data, y_in.size, y_out.data, y_out.size))
    fail(status::aliasing,
         "the input y partially overlaps the output: pass the same vector or "
         "disjoint ones");
  if (impl_->inner) {
    // Empty rows left out: the kernel runs on the nonempty rows; op N scatters its result
    // into y, op T reads the nonempty rows' entries of x (gathered).
    const CompressedRows<V, I, O>& kept_rows = *impl_->rows_kept;
    const Vec<V> work{kept_rows.work(), kept_rows.kept()};
    if (op == Op::N) {
      impl_->inner->apply(Op::N, V(1), x, V(0), ConstVec<V>{}, work, stream);
      kept_rows.scatter(alpha, work.data, beta, reads_y ? y_in.data : nullptr, y_out.data, stream);
    } else {
      kept_rows.gather(x.data, work.data, stream);
      impl_->inner->apply(Op::T, alpha, ConstVec<V>{work.data, work.size}, beta, y_in, y_out,
                          stream);
    }
    return;
  }
  if (op == Op::T && impl_->t_deferred) {
    // Once per structure: the transpose kernel's setup (see prepare), on this product's stream.
    set_up_or_fall_back(impl_->kernel_t, impl_->t_name, Op::T, impl_->A, impl_->options,
                        impl_->reason, stream);
    impl_->t_deferred = false;
    impl_->renew_version(Op::T);
  }
#if defined(HOLA_ENABLE_CUDA)
  if (impl_->checks[Impl::index_of(op)].active)
    return impl_->checked_product(op, alpha, x.data, beta, reads_y ? y_in.data : nullptr,
                                  y_out.data, stream);
#endif
  impl_->kernel_for(op)->apply(op, alpha, x.data, beta, reads_y ? y_in.data : nullptr, y_out.data,
                               stream);
}

template <class V, class I, class O>
bool Operator<V, I, O>::is_setup() const {
  return impl_->ready;
}
template <class V, class I, class O>
const CsrView<V, I, O>& Operator<V, I, O>::matrix() const {
  return impl_->A;
}
template <class V, class I, class O>
std::string Operator<V, I, O>::kernel_name(Op op) const {
  if (!impl_->ready || (op == Op::T && !impl_->t_unavailable.empty())) return std::string();
  if (impl_->inner) return impl_->inner->kernel_name(op);
  return impl_->kernel_for(op)->name();
}
template <class V, class I, class O>
std::string Operator<V, I, O>::selection_reason() const {
  return impl_->reason;
}
template <class V, class I, class O>
std::size_t Operator<V, I, O>::workspace_bytes() const {
  if (!impl_->ready) return 0;
  if (impl_->inner) return impl_->inner->workspace_bytes() + impl_->rows_kept->bytes();
  return impl_->kernel_n->workspace_bytes() +
         (impl_->kernel_t && !impl_->t_deferred ? impl_->kernel_t->workspace_bytes() : 0) +
         impl_->challenger_bytes();
}
template <class V, class I, class O>
std::int64_t Operator<V, I, O>::compressed_rows() const {
  return impl_->ready && impl_->inner ? impl_->rows_kept->kept() : -1;
}
template <class V, class I, class O>
std::uint64_t Operator<V, I, O>::analysis_count() const {
  return impl_->analyses;
}
template <class V, class I, class O>
const OperatorOptions& Operator<V, I, O>::options() const {
  return impl_->options;
}
template <class V, class I, class O>
void Operator<V, I, O>::set_auto_trial(bool on) {
  if (impl_->options.auto_trial == on) return;
  impl_->options.auto_trial = on;
  impl_->key = StructureFingerprint{};  // the next setup analyses again
}
template <class V, class I, class O>
void Operator<V, I, O>::set_auto_check(bool on) {
  if (impl_->options.auto_check == on) return;
  impl_->options.auto_check = on;
  impl_->key = StructureFingerprint{};  // the next setup analyses again
}
template <class V, class I, class O>
bool Operator<V, I, O>::auto_check_pending(Op op) const {
  if (!impl_->ready) return false;
  if (impl_->inner) return impl_->inner->auto_check_pending(op);
  return impl_->checks[Impl::index_of(op)].active;
}
template <class V, class I, class O>
std::uint64_t Operator<V, I, O>::work_version(Op op) const {
  if (!impl_->ready) return 0;
  const std::uint64_t own = impl_->versions[Impl::index_of(op)];
  if (impl_->inner) {
    // The scatter / gather around the inner products are fixed per analysis (`own`).
    const std::uint64_t inner = impl_->inner->work_version(op);
    return inner == 0 ? 0 : std::max(own, inner);
  }
  if (op == Op::T && (!impl_->t_unavailable.empty() || impl_->t_deferred)) return 0;
  return impl_->checks[Impl::index_of(op)].active ? 0 : own;
}
template <class V, class I, class O>
std::shared_ptr<const KernelDecision> Operator<V, I, O>::decision() const {
  return impl_->decision;
}
template <class V, class I, class O>
std::uint64_t Operator<V, I, O>::decisions_taken_over() const {
  return impl_->taken_over;
}
template <class V, class I, class O>
SetupTimes Operator<V, I, O>::last_setup_times() const {
  return impl_->times;
}
template <class V, class I, class O>
void Operator<V, I, O>::reuse_decision(std::shared_ptr<const KernelDecision> decision) {
  impl_->adopted = std::move(decision);
}

#define HOLA_INSTANTIATE_OPERATOR(V, I, O) template class Operator<V, I, O>;
HOLA_FOR_EACH_VALUE_INDEX_OFFSET(HOLA_INSTANTIATE_OPERATOR)
#undef HOLA_INSTANTIATE_OPERATOR

}  // namespace hola
