/* The C API from a C translation unit. */
#include <stdio.h>

#include "hola/hola.h"

int run_c_api(void) {
  const int row_ptr[] = {0, 2, 3};
  const int col_idx[] = {0, 1, 1};
  const double values[] = {2.0, 1.0, 3.0};
  const double x[] = {1.0, 1.0};
  double y[2] = {0.0, 0.0};
  const double alpha = 1.0, beta = 0.0;
  hola_operator op;
  if (hola_operator_create(&op, HOLA_FLOAT64, HOLA_INT32, HOLA_INT32, "auto", 0) != HOLA_SUCCESS ||
      hola_operator_setup(op, 2, 2, 3, row_ptr, col_idx, values, HOLA_MEMORY_HOST, 0) !=
          HOLA_SUCCESS ||
      hola_operator_apply(op, HOLA_OP_N, &alpha, x, 2, &beta, NULL, y, 2, NULL) != HOLA_SUCCESS) {
    printf("C API error: %s\n", hola_last_error());
    return 1;
  }
  hola_operator_destroy(op);
  printf("C API: y = [%g, %g]\n", y[0], y[1]);
  return (y[0] == 3.0 && y[1] == 3.0) ? 0 : 1;
}
