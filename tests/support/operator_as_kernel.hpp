// hola::Operator seen as an SpmvKernel, so that the kernels' harness (spmv_check.hpp: every op,
// every alpha / beta, in place and with a NaN-poisoned distinct output, new values) checks the
// Operator's own paths too, such as leaving out empty rows (OperatorOptions::compress_empty_rows).
#pragma once

#include <memory>
#include <string>

#include "hola/operator.hpp"
#include "hola/spmv_kernel.hpp"

namespace hola::test {

template <class V, class I, class O>
class OperatorAsKernel final : public SpmvKernel<V, I, O> {
 public:
  explicit OperatorAsKernel(OperatorOptions options) : op_(std::move(options)) {}
  std::string name() const override { return "operator(" + op_.kernel_name(Op::N) + ")"; }
  bool supports(Op op) const override { return !op_.is_setup() || !op_.kernel_name(op).empty(); }
  bool deterministic() const override { return op_.options().deterministic; }
  void setup(const CsrView<V, I, O>& A, void* stream) override {
    op_.setup(A, ++version_, stream);
    A_ = A;
  }
  // Same structure, same version: the Operator only takes the new values.
  void set_values(const V* values) override {
    A_.values = values;
    op_.setup(A_, version_);
  }
  std::size_t workspace_bytes() const override { return op_.workspace_bytes(); }
  void apply(Op op, V alpha, const V* x, V beta, const V* y_in, V* y_out, void* stream) override {
    const std::int64_t nx = op == Op::N ? A_.cols : A_.rows;
    const std::int64_t ny = op == Op::N ? A_.rows : A_.cols;
    op_.apply(op, alpha, ConstVec<V>{x, nx}, beta, ConstVec<V>{y_in, y_in ? ny : 0},
              Vec<V>{y_out, ny}, stream);
  }
  const Operator<V, I, O>& op() const { return op_; }

 private:
  Operator<V, I, O> op_;
  CsrView<V, I, O> A_{};
  std::uint64_t version_ = 0;
};

// A KernelFactory (spmv_check.hpp) making OperatorAsKernel with `options`.
template <class V, class I, class O>
auto operator_factory(OperatorOptions options) {
  return [options](const KernelOptions&) -> SpmvKernelPtr<V, I, O> {
    return std::make_unique<OperatorAsKernel<V, I, O>>(options);
  };
}

}  // namespace hola::test
