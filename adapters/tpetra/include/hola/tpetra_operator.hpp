// hola::tpetra::HolaOperator: a Tpetra::Operator that applies a Tpetra::CrsMatrix with Hola's
// SpMV kernels, reading the matrix's own local CSR arrays in place (no copy).
//
// apply() follows Tpetra::CrsMatrix::apply step by step: X is imported to the column Map through
// the graph's Importer, the local product runs on the rows this process owns, and the result is
// exported to the range Map through the graph's Exporter when the row Map differs from it; the
// transpose modes run the same plan backwards. Replicated outputs, alpha == 0, beta == 0 with
// NaN in Y, several vectors, non-constant stride and X aliasing Y behave as in Tpetra.
//
// Host nodes (Serial, OpenMP, Threads) run Hola's CPU kernels; a CUDA node runs Hola's GPU
// kernels on the execution space's stream (needs a CUDA build of Hola).
#pragma once

#include <Trilinos_version.h>
#include <Teuchos_CommHelpers.hpp>
#include <Teuchos_RCP.hpp>
#include <Teuchos_TestForException.hpp>
#include <Tpetra_CrsMatrix.hpp>
#include <Tpetra_MultiVector.hpp>
#include <Tpetra_Operator.hpp>
#include <Tpetra_Vector.hpp>

#include <cstdint>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "hola/error.hpp"
#include "hola/operator.hpp"

namespace hola::tpetra {

namespace detail {

// Map::getNodeNumElements was renamed getLocalNumElements in Trilinos 13.4 (the old name is gone
// in 14).
template <class Map>
std::size_t localNumElements(const Map& map) {
#if TRILINOS_MAJOR_MINOR_VERSION >= 130400
  return map.getLocalNumElements();
#else
  return map.getNodeNumElements();
#endif
}

template <class ExecSpace>
constexpr bool isCudaExecSpace() {
#if defined(KOKKOS_ENABLE_CUDA)
  return std::is_same_v<ExecSpace, Kokkos::Cuda>;
#else
  return false;
#endif
}

// Hola's signed index type with the size of T (Tpetra's row offsets are size_t).
template <class T>
using SignedIndexOfSize = std::conditional_t<sizeof(T) == 4, std::int32_t, std::int64_t>;

// Address range of one column of a multivector, for the aliasing test.
template <class P>
struct Span {
  P* begin = nullptr;
  std::size_t size = 0;
};

template <class P, class Q>
bool anyOverlap(const std::vector<Span<P>>& a, const std::vector<Span<Q>>& b) {
  static_assert(sizeof(P) == sizeof(Q));
  for (const auto& s : a) {
    for (const auto& t : b) {
      if (s.size == 0 || t.size == 0) continue;
      const auto sb = reinterpret_cast<std::uintptr_t>(s.begin);
      const auto tb = reinterpret_cast<std::uintptr_t>(t.begin);
      if (sb < tb + t.size * sizeof(Q) && tb < sb + s.size * sizeof(P)) return true;
    }
  }
  return false;
}

}  // namespace detail

template <class SC = Tpetra::Operator<>::scalar_type,
          class LO = typename Tpetra::Operator<SC>::local_ordinal_type,
          class GO = typename Tpetra::Operator<SC, LO>::global_ordinal_type,
          class NO = typename Tpetra::Operator<SC, LO, GO>::node_type>
class HolaOperator : public Tpetra::Operator<SC, LO, GO, NO> {
 public:
  using scalar_type = SC;
  using local_ordinal_type = LO;
  using global_ordinal_type = GO;
  using node_type = NO;
  using crs_matrix_type = Tpetra::CrsMatrix<SC, LO, GO, NO>;
  using map_type = Tpetra::Map<LO, GO, NO>;
  using mv_type = Tpetra::MultiVector<SC, LO, GO, NO>;
  using vector_type = Tpetra::Vector<SC, LO, GO, NO>;
  using execution_space = typename NO::execution_space;
  using local_matrix_type = typename crs_matrix_type::local_matrix_device_type;

  static_assert(is_supported_value_v<typename crs_matrix_type::impl_scalar_type>,
                "hola::tpetra::HolaOperator: the scalar type must be float or double");
  static_assert(std::is_integral_v<LO> && std::is_signed_v<LO> &&
                    (sizeof(LO) == 4 || sizeof(LO) == 8),
                "hola::tpetra::HolaOperator: the local ordinal must be a 32- or 64-bit signed "
                "integer");
  static_assert(Kokkos::SpaceAccessibility<execution_space, Kokkos::HostSpace>::accessible ||
                    detail::isCudaExecSpace<execution_space>(),
                "hola::tpetra::HolaOperator supports host nodes and the CUDA node");

  // Hola's view of Tpetra's local matrix: values as they are, column indices LO, row offsets the
  // graph's size_type (size_t) read as the signed type of the same size.
  using hola_index_type = detail::SignedIndexOfSize<LO>;
  using hola_offset_type =
      detail::SignedIndexOfSize<typename local_matrix_type::staticcrsgraph_type::size_type>;
  using hola_operator_type =
      hola::Operator<typename crs_matrix_type::impl_scalar_type, hola_index_type, hola_offset_type>;

  // Wraps a fill-complete matrix (kept by reference counting; its arrays are never copied). The
  // analysis runs here, so an invalid matrix or option fails now. Throws std::invalid_argument
  // (null or not fill-complete matrix) or hola::error (unknown kernel, invalid CSR arrays).
  explicit HolaOperator(const Teuchos::RCP<const crs_matrix_type>& A,
                        hola::OperatorOptions options = {})
      : op_(makeLocalOperator(std::move(options))) {
    assign(A, "hola::tpetra::HolaOperator");
  }

  // Switches to another matrix, e.g. one rebuilt with a new sparsity pattern, keeping this
  // operator (and the solvers that hold it). The analysis reruns only when the structure differs:
  // a matrix made on the same CrsGraph reuses it. Errors as in the constructor; on error the
  // operator keeps its previous matrix.
  void setMatrix(const Teuchos::RCP<const crs_matrix_type>& A) {
    assign(A, "hola::tpetra::HolaOperator::setMatrix");
  }

  Teuchos::RCP<const map_type> getDomainMap() const override { return A_->getDomainMap(); }
  Teuchos::RCP<const map_type> getRangeMap() const override { return A_->getRangeMap(); }
  bool hasTransposeApply() const override { return true; }

  // Y = beta Y + alpha op(A) X, op given by mode (NO_TRANS, TRANS, CONJ_TRANS; the last two are
  // the same for real scalars). X and Y live on the domain and range Maps (swapped for the
  // transpose). Bad input throws before anything is written to Y.
  void apply(const mv_type& X, mv_type& Y, Teuchos::ETransp mode = Teuchos::NO_TRANS,
             SC alpha = Teuchos::ScalarTraits<SC>::one(),
             SC beta = Teuchos::ScalarTraits<SC>::zero()) const override {
    const char* where = "hola::tpetra::HolaOperator::apply";
    TEUCHOS_TEST_FOR_EXCEPTION(!A_->isFillComplete(), std::runtime_error,
                               where << ": the matrix is not fill complete (resumeFill() was "
                                        "called); call fillComplete() before apply().");
    const bool transpose = mode != Teuchos::NO_TRANS;
    TEUCHOS_TEST_FOR_EXCEPTION(X.getNumVectors() != Y.getNumVectors(), std::invalid_argument,
                               where << ": X has " << X.getNumVectors() << " vectors but Y has "
                                     << Y.getNumVectors() << ".");
    checkMap(X, transpose ? *A_->getRangeMap() : *A_->getDomainMap(),
             transpose ? "X (range Map for the transpose)" : "X (domain Map)");
    checkMap(Y, transpose ? *A_->getDomainMap() : *A_->getRangeMap(),
             transpose ? "Y (domain Map for the transpose)" : "Y (range Map)");

    const SC zero = Teuchos::ScalarTraits<SC>::zero();
    const SC one = Teuchos::ScalarTraits<SC>::one();
    // alpha == 0: neither A nor X is looked at (sparse BLAS convention, as Tpetra does).
    if (alpha == zero) {
      if (beta == zero)
        Y.putScalar(zero);
      else if (beta != one)
        Y.scale(beta);
      return;
    }
    try {
      refreshAnalysis(*A_, where);
      applyOp(X, Y, transpose ? hola::Op::T : hola::Op::N, alpha, beta);
    } catch (const hola::error& e) {
      throw hola::error(e.code(), std::string(where) + ": " + e.what());
    }
  }

  Teuchos::RCP<const crs_matrix_type> getMatrix() const { return A_; }

  // True on the CUDA node: the local arrays and vectors are device memory and Hola's GPU kernels
  // run; false on host nodes.
  static constexpr bool onDevice = detail::isCudaExecSpace<execution_space>();

  // The stream the local products are launched on: the node's execution space instance (a
  // cudaStream_t on the CUDA node, so they are ordered with Tpetra's own kernels); null on host
  // nodes.
  static void* stream() {
#if defined(KOKKOS_ENABLE_CUDA)
    if constexpr (detail::isCudaExecSpace<execution_space>())
      return static_cast<void*>(execution_space().cuda_stream());
#endif
    return nullptr;
  }

  // Forces a new analysis at the next apply. Needed only when the matrix's local column indices
  // were changed in place, without new arrays (the cache key cannot see that).
  void structureChanged() { ++structureVersion_; }

  // Name of the kernel that runs the given mode (e.g. "cpu", "hola"), and why it was chosen.
  std::string kernelName(Teuchos::ETransp mode = Teuchos::NO_TRANS) const {
    return op_.kernel_name(mode == Teuchos::NO_TRANS ? hola::Op::N : hola::Op::T);
  }
  std::string selectionReason() const { return op_.selection_reason(); }
  // Number of times the local analysis ran on this process (once per matrix structure).
  std::uint64_t analysisCount() const { return op_.analysis_count(); }
  // Local products run on this process (one per vector and apply).
  std::uint64_t localApplyCount() const { return localApplies_; }

  std::string description() const override {
    std::ostringstream os;
    os << "hola::tpetra::HolaOperator{kernel: " << kernelName()
       << ", global rows: " << A_->getGlobalNumRows()
       << ", global columns: " << A_->getGlobalNumCols()
       << ", global entries: " << A_->getGlobalNumEntries() << "}";
    return os.str();
  }

 private:
  static hola_operator_type makeLocalOperator(hola::OperatorOptions options) {
    try {
      return hola_operator_type(std::move(options));
    } catch (const hola::error& e) {
      throw hola::error(e.code(), std::string("hola::tpetra::HolaOperator: ") + e.what());
    }
  }

  void assign(const Teuchos::RCP<const crs_matrix_type>& A, const char* where) {
    TEUCHOS_TEST_FOR_EXCEPTION(A.is_null(), std::invalid_argument,
                               where << ": the matrix is null.");
    TEUCHOS_TEST_FOR_EXCEPTION(!A->isFillComplete(), std::invalid_argument,
                               where << ": the matrix is not fill complete; call fillComplete() "
                                        "on it first.");
    try {
      refreshAnalysis(*A, where);
    } catch (const hola::error& e) {
      throw hola::error(e.code(), std::string(where) + ": " + e.what());
    }
    A_ = A;
  }

  // A Map check that costs nothing when X or Y was made from the operator's own Map (Belos,
  // Ifpack2 do that). Otherwise sizes are compared, and the local verdict is shared so that every
  // process throws together instead of some of them waiting in a communication.
  void checkMap(const mv_type& V, const map_type& expected, const char* which) const {
    if (V.getMap().get() == &expected) return;
    TEUCHOS_TEST_FOR_EXCEPTION(
        V.getGlobalLength() != expected.getGlobalNumElements(), std::invalid_argument,
        "hola::tpetra::HolaOperator::apply: " << which << " has " << V.getGlobalLength()
                                              << " global rows, expected "
                                              << expected.getGlobalNumElements() << ".");
    const int localOk = V.getLocalLength() == detail::localNumElements(expected) ? 1 : 0;
    int allOk = localOk;
    Teuchos::reduceAll<int, int>(*A_->getComm(), Teuchos::REDUCE_MIN, localOk,
                                 Teuchos::outArg(allOk));
    TEUCHOS_TEST_FOR_EXCEPTION(
        allOk == 0, std::invalid_argument,
        "hola::tpetra::HolaOperator::apply: "
            << which << " is not distributed like the operator's Map ("
            << (localOk ? "on another process" : "on this process: ")
            << (localOk ? std::string()
                        : std::to_string(V.getLocalLength()) + " local rows, expected " +
                              std::to_string(detail::localNumElements(expected)))
            << ").");
  }

  // (Re)runs the analysis when A's local structure differs from the last one analysed. The key
  // is the graph object and the column Map (both held, so their addresses cannot be reused while
  // the key refers to them), the addresses of the local row offset and column index arrays and
  // their sizes; structureChanged() forces a new analysis. hola::Operator also keys on the array
  // addresses and sizes, and takes the values pointer afresh on every call.
  void refreshAnalysis(const crs_matrix_type& A, const char* where) const {
    const local_matrix_type lcl = A.getLocalMatrixDevice();
    const Teuchos::RCP<const typename crs_matrix_type::crs_graph_type> graph = A.getCrsGraph();
    const Teuchos::RCP<const map_type> colMap = A.getColMap();
    const bool sameStructure = graph.get() == graph_.get() && colMap.get() == colMap_.get() &&
                               lcl.graph.row_map.data() == rowMapData_ &&
                               lcl.graph.row_map.extent(0) == rowMapExtent_ &&
                               lcl.graph.entries.data() == entriesData_;
    if (!sameStructure) ++structureVersion_;

    CsrView<typename crs_matrix_type::impl_scalar_type, hola_index_type, hola_offset_type> view;
    view.rows = static_cast<std::int64_t>(lcl.numRows());
    view.cols = static_cast<std::int64_t>(lcl.numCols());
    view.nnz = static_cast<std::int64_t>(lcl.nnz());
    // A process with no rows may have an empty offsets array; Hola accepts null then.
    view.row_ptr = lcl.graph.row_map.extent(0) > 0
                       ? reinterpret_cast<const hola_offset_type*>(lcl.graph.row_map.data())
                       : nullptr;
    view.col_idx = reinterpret_cast<const hola_index_type*>(lcl.graph.entries.data());
    view.values = lcl.values.data();
    view.memory = onDevice ? Memory::device : Memory::host;
    TEUCHOS_TEST_FOR_EXCEPTION(
        view.rows > 0 && static_cast<std::int64_t>(lcl.graph.row_map.extent(0)) != view.rows + 1,
        std::runtime_error,
        where << ": the local matrix has " << view.rows << " rows but "
              << lcl.graph.row_map.extent(0) << " row offsets.");
    op_.setup(view, structureVersion_);
    if (!sameStructure) {
      graph_ = graph;
      colMap_ = colMap;
      rowMapData_ = lcl.graph.row_map.data();
      rowMapExtent_ = lcl.graph.row_map.extent(0);
      entriesData_ = lcl.graph.entries.data();
    }
  }

  using const_device_view =
      decltype(std::declval<const mv_type&>().getLocalViewDevice(Tpetra::Access::ReadOnly));
  using device_view =
      decltype(std::declval<mv_type&>().getLocalViewDevice(Tpetra::Access::ReadWrite));

  // Pointers to the columns of V (device views on a CUDA node), the views kept alive meanwhile.
  // A multivector with non-constant stride is read column by column, without a copy.
  template <class View, class Value>
  struct Columns {
    std::vector<View> views;
    std::vector<detail::Span<Value>> spans;
  };

  static Columns<const_device_view, const SC> readColumns(const mv_type& V) {
    Columns<const_device_view, const SC> c;
    const std::size_t nv = V.getNumVectors();
    if (V.isConstantStride()) {
      c.views.push_back(V.getLocalViewDevice(Tpetra::Access::ReadOnly));
      const auto& v = c.views.back();
      for (std::size_t j = 0; j < nv; ++j)
        c.spans.push_back({v.data() + j * v.stride(1), v.extent(0)});
    } else {
      for (std::size_t j = 0; j < nv; ++j) {
        c.views.push_back(V.getVector(j)->getLocalViewDevice(Tpetra::Access::ReadOnly));
        c.spans.push_back({c.views.back().data(), c.views.back().extent(0)});
      }
    }
    return c;
  }

  static Columns<device_view, SC> writeColumns(mv_type& V) {
    Columns<device_view, SC> c;
    const std::size_t nv = V.getNumVectors();
    if (V.isConstantStride()) {
      c.views.push_back(V.getLocalViewDevice(Tpetra::Access::ReadWrite));
      const auto& v = c.views.back();
      for (std::size_t j = 0; j < nv; ++j)
        c.spans.push_back({v.data() + j * v.stride(1), v.extent(0)});
    } else {
      for (std::size_t j = 0; j < nv; ++j) {
        c.views.push_back(V.getVectorNonConst(j)->getLocalViewDevice(Tpetra::Access::ReadWrite));
        c.spans.push_back({c.views.back().data(), c.views.back().extent(0)});
      }
    }
    return c;
  }

  // Y = beta Y + alpha op(A_local) X for each vector, X and Y on the local column / row spaces.
  // When X and Y share memory the product goes through a cached multivector on `scratchMap`
  // and is copied to Y afterwards, as Tpetra does.
  void localApply(const mv_type& X, mv_type& Y, hola::Op op, SC alpha, SC beta,
                  Teuchos::RCP<mv_type>& scratch,
                  const Teuchos::RCP<const map_type>& scratchMap) const {
    bool aliased = false;
    {
      const auto x = readColumns(X);
      const auto y = writeColumns(Y);
      aliased = detail::anyOverlap(x.spans, y.spans);
      if (!aliased) {
        multiply(x.spans, y.spans, op, alpha, beta);
        return;
      }
    }
    mv_type& tmp = cached(scratch, scratchMap, Y.getNumVectors());
    if (beta != Teuchos::ScalarTraits<SC>::zero()) Tpetra::deep_copy(tmp, Y);
    {
      const auto x = readColumns(X);
      const auto y = writeColumns(tmp);
      multiply(x.spans, y.spans, op, alpha, beta);
    }
    Tpetra::deep_copy(Y, tmp);
  }

  void multiply(const std::vector<detail::Span<const SC>>& x,
                const std::vector<detail::Span<SC>>& y, hola::Op op, SC alpha, SC beta) const {
    void* const s = stream();
    for (std::size_t j = 0; j < x.size(); ++j) {
      op_.apply(op, alpha, {x[j].begin, static_cast<std::int64_t>(x[j].size)}, beta,
                {y[j].begin, static_cast<std::int64_t>(y[j].size)}, s);
      ++localApplies_;
    }
  }

  // Cached multivectors on the column and row Maps (remade when the vector count or the Map
  // changes), like CrsMatrix's own import / export multivectors.
  mv_type& cached(Teuchos::RCP<mv_type>& mv, const Teuchos::RCP<const map_type>& map,
                  std::size_t numVectors) const {
    if (mv.is_null() || mv->getNumVectors() != numVectors || mv->getMap().get() != map.get())
      mv = Teuchos::rcp(new mv_type(map, numVectors, false));
    return *mv;
  }

  // True when Y is a locally replicated multivector on several processes: each process adds its
  // share and the shares are summed at the end, beta applied by process 0 only.
  bool replicatedOutput(const mv_type& Y) const {
    return !Y.isDistributed() && A_->getComm()->getSize() != 1;
  }

  // Y = beta Y + alpha op(A) X through the graph's transfers. Op N imports X to the column Map
  // (Importer) and exports the row-Map result (Exporter); the transpose runs the same plan
  // backwards: the Exporter brings X to the row Map, the Importer sends the column-Map result
  // back to the domain Map.
  void applyOp(const mv_type& X, mv_type& Y, hola::Op op, SC alpha, SC beta) const {
    const auto graph = A_->getCrsGraph();
    if (op == hola::Op::N)
      applyThrough(X, Y, op, alpha, beta, graph->getImporter(), colMV_, A_->getColMap(),
                   graph->getExporter(), rowMV_, A_->getRowMap());
    else
      applyThrough(X, Y, op, alpha, beta, graph->getExporter(), rowMV_, A_->getRowMap(),
                   graph->getImporter(), colMV_, A_->getColMap());
  }

  // in: brings X to the Map the local kernel reads (inMap); out: takes the local result
  // (outMap) to Y's Map. Either may be null (same Maps).
  template <class InTransfer, class OutTransfer>
  void applyThrough(const mv_type& X, mv_type& Y, hola::Op op, SC alpha, SC beta,
                    const Teuchos::RCP<InTransfer>& in, Teuchos::RCP<mv_type>& inMV,
                    const Teuchos::RCP<const map_type>& inMap, const Teuchos::RCP<OutTransfer>& out,
                    Teuchos::RCP<mv_type>& outMV,
                    const Teuchos::RCP<const map_type>& outMap) const {
    const SC zero = Teuchos::ScalarTraits<SC>::zero();
    const std::size_t nv = X.getNumVectors();
    const bool replicated = replicatedOutput(Y);
    const bool overwrite = beta == zero;
    if (replicated && A_->getComm()->getRank() > 0) beta = zero;

    const mv_type* Xin = &X;
    if (!in.is_null()) {
      mv_type& inCopy = cached(inMV, inMap, nv);
      inCopy.doImport(X, *in, Tpetra::INSERT);
      Xin = &inCopy;
    }
    if (!out.is_null()) {
      mv_type& result = cached(outMV, outMap, nv);
      localApply(*Xin, result, op, alpha, zero, outMV, outMap);
      if (overwrite)
        Y.putScalar(zero);
      else
        Y.scale(beta);
      Y.doExport(result, *out, Tpetra::ADD_ASSIGN);
    } else {
      localApply(*Xin, Y, op, alpha, beta, outMV, outMap);
    }
    if (replicated) Y.reduce();
  }

  Teuchos::RCP<const crs_matrix_type> A_;
  mutable hola_operator_type op_;
  // Cache key of the analysed structure (see refreshAnalysis).
  mutable Teuchos::RCP<const typename crs_matrix_type::crs_graph_type> graph_;
  mutable Teuchos::RCP<const map_type> colMap_;
  mutable const void* rowMapData_ = nullptr;
  mutable std::size_t rowMapExtent_ = 0;
  mutable const void* entriesData_ = nullptr;
  mutable std::uint64_t structureVersion_ = 0;
  mutable std::uint64_t localApplies_ = 0;
  mutable Teuchos::RCP<mv_type> colMV_, rowMV_;
};

// Teuchos::rcp(new HolaOperator(A, options)) with the template arguments taken from the matrix
// type (A may be an RCP to a const or non-const CrsMatrix).
template <class Matrix>
auto makeHolaOperator(const Teuchos::RCP<Matrix>& A, hola::OperatorOptions options = {}) {
  using M = std::remove_const_t<Matrix>;
  using H = HolaOperator<typename M::scalar_type, typename M::local_ordinal_type,
                         typename M::global_ordinal_type, typename M::node_type>;
  return Teuchos::rcp(new H(Teuchos::RCP<const M>(A), std::move(options)));
}

}  // namespace hola::tpetra
