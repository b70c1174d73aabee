// Batched Jacobi-CG on the CPU: one BatchedOperator over all systems, OpenMP over systems for
// the vector updates; converged systems are frozen and left out of the product (skip flags).
#include <omp.h>

#include <chrono>
#include <cstdint>
#include <vector>

#include "batched_cg.hpp"
#include "hola/batched_operator.hpp"

namespace hola::batched_cg {

SolveStats solve_cpu(const std::vector<Matrix>& systems, batched::Format format,
                     const std::vector<double>& b, std::vector<double>& x, double tol, int max_iter,
                     int threads) {
  const auto t0 = std::chrono::steady_clock::now();
  const auto data = batched::make_batch<double, std::int32_t>(systems, format);
  BatchedOperator<double, std::int32_t> op(data.view(), BatchedBackend::cpu, "auto", threads);
  const std::int64_t S = static_cast<std::int64_t>(systems.size()), N = data.total_rows;
  const Layout lay = layout(systems, N);
  const std::vector<std::int64_t>& off = lay.off;
  const std::vector<double>& dinv = lay.dinv;

  x.assign(static_cast<std::size_t>(N), 0.0);
  std::vector<double> r = b, z(N), p(N), q(N), rz(S), bb(S);
  SolveStats st;
  st.iterations.assign(static_cast<std::size_t>(S), 0);
  st.converged.assign(static_cast<std::size_t>(S), 0);
  std::vector<int> done(static_cast<std::size_t>(S), 0);  // also the product's skip flags
  // The solve starts with the vectors allocated, as the GPU's does.
  const auto t_solve = std::chrono::steady_clock::now();
  const int nt = threads > 0 ? threads : omp_get_max_threads();
#pragma omp parallel for schedule(dynamic, 32) num_threads(nt)
  for (std::int64_t s = 0; s < S; ++s) {
    double rzs = 0, bbs = 0;
    for (std::int64_t i = off[s]; i < off[s + 1]; ++i) {
      z[i] = dinv[i] * r[i];
      p[i] = z[i];
      rzs += r[i] * z[i];
      bbs += b[i] * b[i];
    }
    rz[s] = rzs;
    bb[s] = bbs;
    if (bbs == 0) done[s] = st.converged[s] = 1;
  }
  for (int it = 1; it <= max_iter; ++it) {
    op.apply(1.0, p.data(), N, 0.0, q.data(), N, nullptr, done.data());
    ++st.sweeps;
    std::int64_t active = 0;
#pragma omp parallel for schedule(dynamic, 32) num_threads(nt) reduction(+ : active)
    for (std::int64_t s = 0; s < S; ++s) {
      if (done[s]) continue;
      const std::int64_t i0 = off[s], i1 = off[s + 1];
      double pq = 0;
      for (std::int64_t i = i0; i < i1; ++i) pq += p[i] * q[i];
      st.iterations[s] = it;
      if (!(pq > 0)) {  // breakdown (not SPD or exact solution reached)
        done[s] = 1;
        continue;
      }
      const double a = rz[s] / pq;
      double rzn = 0, rr = 0;
      for (std::int64_t i = i0; i < i1; ++i) {
        x[i] += a * p[i];
        r[i] -= a * q[i];
        z[i] = dinv[i] * r[i];
        rzn += r[i] * z[i];
        rr += r[i] * r[i];
      }
      if (rr <= tol * tol * bb[s]) {
        done[s] = st.converged[s] = 1;
        continue;
      }
      const double beta = rzn / rz[s];
      for (std::int64_t i = i0; i < i1; ++i) p[i] = z[i] + beta * p[i];
      rz[s] = rzn;
      ++active;
    }
    if (active == 0) break;
  }
  const auto t1 = std::chrono::steady_clock::now();
  st.setup_seconds = std::chrono::duration<double>(t_solve - t0).count();
  st.solve_seconds = std::chrono::duration<double>(t1 - t_solve).count();
  st.seconds = std::chrono::duration<double>(t1 - t0).count();
  return st;
}

}  // namespace hola::batched_cg
