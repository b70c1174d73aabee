// A program outside the Hola tree using the installed hola::tpetra: HolaOperator must give the
// product of Tpetra's own CrsMatrix::apply.
#include <Teuchos_Array.hpp>
#include <Teuchos_RCP.hpp>
#include <Tpetra_Core.hpp>
#include <Tpetra_CrsMatrix.hpp>
#include <Tpetra_Map.hpp>
#include <Tpetra_Vector.hpp>

#include <iostream>

#include "hola/tpetra_operator.hpp"

namespace {

using matrix_type = Tpetra::CrsMatrix<>;
using map_type = Tpetra::Map<>;
using vector_type = Tpetra::Vector<>;
using SC = matrix_type::scalar_type;
using GO = matrix_type::global_ordinal_type;

// A nonsymmetric tridiagonal matrix of n rows spread over the processes of comm.
Teuchos::RCP<matrix_type> laplacian(GO n, const Teuchos::RCP<const Teuchos::Comm<int>>& comm) {
  auto map = Teuchos::rcp(new map_type(static_cast<Tpetra::global_size_t>(n), 0, comm));
  auto A = Teuchos::rcp(new matrix_type(map, 3));
  for (GO row = 0; row < n; ++row) {
    if (!map->isNodeGlobalElement(row)) continue;
    Teuchos::Array<GO> cols;
    Teuchos::Array<SC> vals;
    if (row > 0) {
      cols.push_back(row - 1);
      vals.push_back(-1.0);
    }
    cols.push_back(row);
    vals.push_back(2.0);
    if (row < n - 1) {
      cols.push_back(row + 1);
      vals.push_back(-0.5 + 0.01 * row);
    }
    A->insertGlobalValues(row, cols(), vals());
  }
  A->fillComplete();
  return A;
}

}  // namespace

int main(int argc, char** argv) {
  Tpetra::ScopeGuard tpetra(&argc, &argv);
  // Tpetra objects must be gone before the guard finalizes Kokkos and MPI.
  bool ok = false;
  {
    const auto A = laplacian(10, Tpetra::getDefaultComm());
    const auto op = hola::tpetra::makeHolaOperator(A);
    vector_type x(A->getDomainMap()), y(A->getRangeMap()), yref(A->getRangeMap());
    x.randomize();
    A->apply(x, yref);
    op->apply(x, y);
    const auto norm = yref.normInf();
    y.update(-1.0, yref, 1.0);
    const auto err = y.normInf();
    // localApplyCount: the product ran Hola's kernel on this process's rows.
    ok = err <= 1e-12 * norm && op->localApplyCount() > 0;
    std::cout << "HolaOperator (kernel " << op->kernelName() << ", local products "
              << op->localApplyCount() << ") vs CrsMatrix::apply: max error " << err << "\n"
              << (ok ? "PASSED" : "FAILED: HolaOperator differs from CrsMatrix::apply") << "\n";
  }
  return ok ? 0 : 1;
}
