// Counts the copies between host and device memory that CUDA carries out, from CUPTI's activity
// records (every cudaMemcpy*, Kokkos::deep_copy, MPI staging copy made through CUDA). The demos
// use it to show what an operator apply moves between host and device, without Nsight Systems.
//
// Compiled in only with HOLA_DEMO_COUNT_TRANSFERS (CMake option HOLA_TPETRA_COUNT_TRANSFERS, which
// links CUPTI); otherwise, or when CUPTI refuses (no GPU, another profiler attached), start()
// returns false and nothing is counted.
#pragma once

#include <cstdint>
#include <string>

#if defined(HOLA_DEMO_COUNT_TRANSFERS)
#include <cupti.h>

#include <cstdlib>
#endif

namespace hola::demo::transfers {

struct Counts {
  std::int64_t to_device = 0;  // host -> device copies
  std::int64_t to_host = 0;    // device -> host copies
  std::int64_t bytes = 0;      // bytes of both
};

#if defined(HOLA_DEMO_COUNT_TRANSFERS)

namespace detail {

inline Counts& completed() {
  static Counts counts;
  return counts;
}

inline std::string& why_not() {
  static std::string text;
  return text;
}

// CUPTI asks for a buffer to fill with records and hands it back once full or flushed.
inline void CUPTIAPI give_buffer(std::uint8_t** buffer, std::size_t* size,
                                 std::size_t* max_records) {
  constexpr std::size_t kBytes = std::size_t{1} << 20;
  *buffer = static_cast<std::uint8_t*>(std::aligned_alloc(8, kBytes));
  *size = *buffer ? kBytes : 0;
  *max_records = 0;
}

inline void CUPTIAPI take_buffer(CUcontext, std::uint32_t, std::uint8_t* buffer, std::size_t,
                                 std::size_t valid) {
  CUpti_Activity* record = nullptr;
  while (cuptiActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS) {
    if (record->kind != CUPTI_ACTIVITY_KIND_MEMCPY) continue;
    const auto* copy = reinterpret_cast<const CUpti_ActivityMemcpy6*>(record);
    const auto kind = static_cast<CUpti_ActivityMemcpyKind>(copy->copyKind);
    const bool to_device =
        kind == CUPTI_ACTIVITY_MEMCPY_KIND_HTOD || kind == CUPTI_ACTIVITY_MEMCPY_KIND_HTOA;
    const bool to_host =
        kind == CUPTI_ACTIVITY_MEMCPY_KIND_DTOH || kind == CUPTI_ACTIVITY_MEMCPY_KIND_ATOH;
    if (!to_device && !to_host) continue;
    Counts& c = completed();
    c.to_device += to_device ? 1 : 0;
    c.to_host += to_host ? 1 : 0;
    c.bytes += static_cast<std::int64_t>(copy->bytes);
  }
  std::free(buffer);
}

}  // namespace detail

// Starts recording the copies (call once, after the CUDA context exists). False when CUPTI
// refused; reason() says why.
inline bool start() {
  const char* step = "cuptiActivityRegisterCallbacks";
  CUptiResult r = cuptiActivityRegisterCallbacks(detail::give_buffer, detail::take_buffer);
  if (r == CUPTI_SUCCESS) {
    step = "cuptiActivityEnable(MEMCPY)";
    r = cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMCPY);
  }
  if (r == CUPTI_SUCCESS) return true;
  const char* text = nullptr;
  cuptiGetResultString(r, &text);
  detail::why_not() = std::string(step) + ": " + (text ? text : "unknown CUPTI error");
  return false;
}

// The copies finished since the previous take() (the device work must be complete: fence first).
inline Counts take() {
  cuptiActivityFlushAll(1);
  const Counts c = detail::completed();
  detail::completed() = Counts{};
  return c;
}

inline std::string reason() { return detail::why_not(); }

#else

inline bool start() { return false; }
inline Counts take() { return {}; }
inline std::string reason() { return "not counted (built without HOLA_TPETRA_COUNT_TRANSFERS)"; }

#endif

}  // namespace hola::demo::transfers
