// What the Tpetra demos share: the types (Tpetra's default ordinals and node with double values,
// as hola::tpetra::HolaOperator<double> names them), the 3D Poisson matrix of grid_problems.hpp
// with its rows in contiguous blocks over the processes, the Matrix Market reader, and the end of
// main().
#pragma once

#include <Teuchos_CommHelpers.hpp>
#include <Tpetra_Core.hpp>
#include <Tpetra_CrsMatrix.hpp>
#include <Tpetra_Export.hpp>

#include <CLI/CLI.hpp>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <stdexcept>
#include <string>
#include <vector>

#if defined(KOKKOS_ENABLE_CUDA)
#include <cuda_runtime.h>
#endif

#include "grid_problems.hpp"
#include "hola/matrix_market.hpp"
#include "hola/tpetra_operator.hpp"

namespace hola::demo::tpetra_types {

using hola_op_type = hola::tpetra::HolaOperator<double>;
using SC = hola_op_type::scalar_type;
using LO = hola_op_type::local_ordinal_type;
using GO = hola_op_type::global_ordinal_type;
using NO = hola_op_type::node_type;
using map_type = hola_op_type::map_type;
using crs_type = hola_op_type::crs_matrix_type;
using mv_type = hola_op_type::mv_type;
using op_type = Tpetra::Operator<SC, LO, GO, NO>;
using comm_ptr = Teuchos::RCP<const Teuchos::Comm<int>>;

// Waits for the node's execution space (nothing to wait for on host nodes). A wall-clock time
// of device work must end with it: Tpetra's and Hola's products on the CUDA node are asynchronous.
inline void fence() { NO::execution_space().fence(); }

// What runs the products, for the logs and result files: the node's execution space, and on the
// CUDA node each process's GPU (CUDA device number and PCI bus id, gathered on every process;
// Kokkos picks the device from the node-local rank with KOKKOS_NUM_DEVICES or
// --kokkos-num-devices).
inline std::string nodeDescription(const comm_ptr& comm) {
  std::string text = std::string("Tpetra node ") + NO::execution_space::name();
#if defined(KOKKOS_ENABLE_CUDA)
  if constexpr (hola_op_type::onDevice) {
    int device = -1;
    char bus[32] = "?";
    cudaDeviceProp prop{};
    std::vector<char> mine(48, '\0');
    if (cudaGetDevice(&device) == cudaSuccess &&
        cudaGetDeviceProperties(&prop, device) == cudaSuccess &&
        cudaDeviceGetPCIBusId(bus, static_cast<int>(sizeof(bus)), device) == cudaSuccess) {
      std::snprintf(mine.data(), mine.size(), "%d (%s)", device, bus);
    } else {
      (void)cudaGetLastError();
      std::snprintf(mine.data(), mine.size(), "unknown");
    }
    // Every process's device and bus id, in rank order (collective: every process gets here).
    std::vector<char> all(mine.size() * static_cast<std::size_t>(comm->getSize()));
    Teuchos::gatherAll<int, char>(*comm, static_cast<int>(mine.size()), mine.data(),
                                  static_cast<int>(all.size()), all.data());
    text +=
        std::string(", ") + (prop.name[0] ? prop.name : "GPU unknown") + ", CUDA device per rank:";
    for (int r = 0; r < comm->getSize(); ++r)
      text += std::string(r ? ", " : " ") + std::to_string(r) + ": " +
              std::string(all.data() + r * mine.size());
  }
#else
  (void)comm;
#endif
  return text;
}

// 7-point 3D Poisson on an n^3 grid (hola::grid::poisson3d_row), rows in contiguous blocks.
inline Teuchos::RCP<crs_type> poisson3d(GO n, const comm_ptr& comm) {
  auto map = Teuchos::rcp(new map_type(static_cast<Tpetra::global_size_t>(n * n * n), 0, comm));
  auto A = Teuchos::rcp(new crs_type(map, 7));
  std::vector<GO> cols;
  std::vector<SC> vals;
  for (LO l = 0; l < static_cast<LO>(map->getMaxLocalIndex() + 1); ++l) {
    const GO r = map->getGlobalElement(l);
    cols.clear();
    vals.clear();
    hola::grid::poisson3d_row(n, r, [&](GO c, SC v) {
      cols.push_back(c);
      vals.push_back(v);
    });
    A->insertGlobalValues(r, Teuchos::ArrayView<const GO>(cols),
                          Teuchos::ArrayView<const SC>(vals));
  }
  A->fillComplete();
  return A;
}

// Reads a square Matrix Market file on process 0 (Hola's reader) and spreads its rows in
// contiguous blocks over all processes with a Tpetra Export (tpetra_belos, tpetra_apply_calls).
inline Teuchos::RCP<crs_type> readMatrixMarket(const std::string& path, const comm_ptr& comm) {
  hola::CsrMatrix<SC, std::int64_t, std::int64_t> csr;
  std::int64_t dims[2] = {0, 0};
  int ok = 1;
  std::string message;
  if (comm->getRank() == 0) {
    try {
      csr = hola::read_matrix_market<SC, std::int64_t, std::int64_t>(path);
      dims[0] = csr.rows;
      dims[1] = csr.cols;
    } catch (const std::exception& e) {
      ok = 0;
      message = e.what();
    }
  }
  Teuchos::broadcast<int, int>(*comm, 0, &ok);
  if (!ok) throw std::runtime_error("cannot read " + path + ": " + message);
  Teuchos::broadcast<int, std::int64_t>(*comm, 0, 2, dims);
  if (dims[0] != dims[1])
    throw std::runtime_error(path + " is " + std::to_string(dims[0]) + " x " +
                             std::to_string(dims[1]) + ": a square matrix is needed");
  const auto n = static_cast<Tpetra::global_size_t>(dims[0]);
  auto onRoot = Teuchos::rcp(new map_type(n, comm->getRank() == 0 ? n : 0, 0, comm));
  // Exact row lengths: Tpetra's static profile has no room beyond what is allocated.
  std::vector<std::size_t> rowLengths;
  for (std::int64_t r = 0; comm->getRank() == 0 && r < csr.rows; ++r)
    rowLengths.push_back(static_cast<std::size_t>(csr.row_ptr[r + 1] - csr.row_ptr[r]));
  auto whole =
      Teuchos::rcp(new crs_type(onRoot, Teuchos::ArrayView<const std::size_t>(rowLengths)));
  std::vector<GO> cols;
  for (std::int64_t r = 0; comm->getRank() == 0 && r < csr.rows; ++r) {
    const auto b = csr.row_ptr[r], e = csr.row_ptr[r + 1];
    if (b == e) continue;
    cols.assign(csr.col_idx.begin() + b, csr.col_idx.begin() + e);
    whole->insertGlobalValues(static_cast<GO>(r), Teuchos::ArrayView<const GO>(cols),
                              Teuchos::ArrayView<const SC>(csr.values.data() + b, e - b));
  }
  auto map = Teuchos::rcp(new map_type(n, 0, comm));
  auto A = Teuchos::rcp(new crs_type(map, 0));
  A->doExport(*whole, Tpetra::Export<LO, GO, NO>(onRoot, map), Tpetra::INSERT);
  A->fillComplete();
  return A;
}

// main() of a Tpetra demo: Tpetra's scope (MPI, Kokkos), the command line `description` with the
// options add_options(app) declares (process 0 prints the help or the error; exit code 0 after
// --help, else 2 on the other processes), then run(comm); an exception from it is printed by
// process 0 as "name: message" and gives exit code 1.
template <class AddOptions, class Run>
int tpetra_main(int argc, char** argv, const char* name, const char* description,
                AddOptions&& add_options, Run&& run) {
  Tpetra::ScopeGuard scope(&argc, &argv);
  const comm_ptr comm = Tpetra::getDefaultComm();
  CLI::App app{description};
  add_options(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return comm->getRank() == 0 ? app.exit(e) : (e.get_exit_code() == 0 ? 0 : 2);
  }
  try {
    return run(comm);
  } catch (const std::exception& e) {
    if (comm->getRank() == 0) std::fprintf(stderr, "%s: %s\n", name, e.what());
    return 1;
  }
}

}  // namespace hola::demo::tpetra_types
