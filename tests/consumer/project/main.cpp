// A program outside the Hola tree: uses the installed headers and libraries.
#include <cmath>
#include <cstdio>
#include <vector>

#include "hola/generators.hpp"
#include "hola/operator.hpp"

extern "C" int run_c_api(void);

int main() {
  const auto A = hola::gen::poisson2d(30, 30).convert<double, int, int>();
  hola::Operator<double, int, int> op;
  op.setup(A.view());
  std::vector<double> x(A.cols, 1.0), y(A.rows, 0.0);
  op.apply(hola::Op::N, 1.0, {x.data(), A.cols}, 0.0, {y.data(), A.rows});
  // Row sums of the 5-point Laplacian: 0 inside, positive on the boundary.
  double sum = 0;
  for (double v : y) sum += v;
  std::printf("C++ API: kernel %s, sum %.1f\n", op.kernel_name(hola::Op::N).c_str(), sum);
  if (std::abs(sum - 120.0) > 1e-9) return 1;
  return run_c_api();
}
