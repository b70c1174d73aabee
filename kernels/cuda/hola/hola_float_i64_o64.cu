// hola kernel family for float values, int64 column indices, int64 row offsets (one type
// combination per file keeps each compilation unit near half a minute).
#include "hola/hola_kernel.cuh"

HOLA_INSTANTIATE_HOLA(float, std::int64_t, std::int64_t)
