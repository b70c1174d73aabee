// Heap allocations of the whole process, counted: for the per-call benchmarks
// (tpetra_belos/tpetra_apply_calls, hypre_krylov/hypre_matvec_calls), which report how many
// allocations one product makes. With glibc, malloc, calloc, realloc, posix_memalign and
// aligned_alloc are defined here and forward to glibc's own (__libc_*); the program's definitions
// take the place of the C library's for every shared library too (C++ operator new, Kokkos,
// HYPRE's hypre_TAlloc, MPI all end in them). Include this header in exactly one source file of a
// program. Elsewhere (no glibc, or a build with AddressSanitizer / ThreadSanitizer, which replace
// malloc themselves) nothing is replaced and hola::alloc_count::available() is false.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdlib>

#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || \
    __has_feature(memory_sanitizer)
#define HOLA_ALLOC_COUNT_SANITIZED 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define HOLA_ALLOC_COUNT_SANITIZED 1
#endif
#if defined(__GLIBC__) && !defined(HOLA_ALLOC_COUNT_SANITIZED)
#define HOLA_ALLOC_COUNT_REPLACES_MALLOC 1
#endif

namespace hola::alloc_count {

inline std::atomic<long long> allocations{0};

#if defined(HOLA_ALLOC_COUNT_REPLACES_MALLOC)
inline bool available() { return true; }
#else
inline bool available() { return false; }
#endif

// Allocations made so far by the process (all threads).
inline long long now() { return allocations.load(std::memory_order_relaxed); }

}  // namespace hola::alloc_count

// Not in nvcc's device pass (a program compiled as CUDA, e.g. through Kokkos' nvcc_wrapper): there
// malloc and free name CUDA's device-side allocator, which stays as it is.
#if defined(HOLA_ALLOC_COUNT_REPLACES_MALLOC) && !defined(__CUDA_ARCH__)
extern "C" {
void* __libc_malloc(std::size_t);
void* __libc_calloc(std::size_t, std::size_t);
void* __libc_realloc(void*, std::size_t);
void* __libc_memalign(std::size_t, std::size_t);
void __libc_free(void*);

void* malloc(std::size_t size) noexcept {
  hola::alloc_count::allocations.fetch_add(1, std::memory_order_relaxed);
  return __libc_malloc(size);
}
void* calloc(std::size_t count, std::size_t size) noexcept {
  hola::alloc_count::allocations.fetch_add(1, std::memory_order_relaxed);
  return __libc_calloc(count, size);
}
void* realloc(void* p, std::size_t size) noexcept {
  hola::alloc_count::allocations.fetch_add(1, std::memory_order_relaxed);
  return __libc_realloc(p, size);
}
int posix_memalign(void** out, std::size_t alignment, std::size_t size) noexcept {
  if (alignment < sizeof(void*) || (alignment & (alignment - 1)) != 0) return 22;  // EINVAL
  hola::alloc_count::allocations.fetch_add(1, std::memory_order_relaxed);
  void* p = __libc_memalign(alignment, size);
  if (!p && size != 0) return 12;  // ENOMEM
  *out = p;
  return 0;
}
void* aligned_alloc(std::size_t alignment, std::size_t size) noexcept {
  hola::alloc_count::allocations.fetch_add(1, std::memory_order_relaxed);
  return __libc_memalign(alignment, size);
}
void free(void* p) noexcept { __libc_free(p); }
}
#endif
