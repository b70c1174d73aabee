// Merge-path SpMV instantiations: float values, int64 column indices, int32 and int64 row offsets.
// (Split over four files to keep each compilation unit short.)
#include "merge/merge_spmv.cuh"

HOLA_INSTANTIATE_MERGE(float, std::int64_t)
