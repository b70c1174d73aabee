// hola kernel family for double values, int32 column indices, int32 row offsets (one type
// combination per file keeps each compilation unit near half a minute).
#include "hola/hola_kernel.cuh"

HOLA_INSTANTIATE_HOLA(double, std::int32_t, std::int32_t)
