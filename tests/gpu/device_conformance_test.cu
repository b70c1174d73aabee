// The conformance suite (tests/support/conformance.hpp) for every device kernel of the kernel
// table, over all value / index type pairs, on the legacy default stream and a non-blocking one.
#include <gtest/gtest.h>

#include "conformance.hpp"
#include "gpu_harness.hpp"
#include "type_lists.hpp"

namespace hola::test {
namespace {

template <class T>
class DeviceConformance : public ::testing::Test {};
TYPED_TEST_SUITE(DeviceConformance, AllTypes);

TYPED_TEST(DeviceConformance, ProductsOnEveryFamily) {
  HOLA_TYPES;
  TestStream stream(TestStream::non_blocking);
  conform_every_kernel_products<DeviceMemory, V, I, O>({nullptr, stream.get()});
}

TYPED_TEST(DeviceConformance, BadCallsChangeNothing) {
  HOLA_TYPES;
  conform_every_kernel_bad_calls<DeviceMemory, V, I, O>();
}

}  // namespace
}  // namespace hola::test
