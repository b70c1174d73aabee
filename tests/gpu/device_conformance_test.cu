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
  using V = typename TypeParam::V;
  using I = typename TypeParam::I;
  using O = typename TypeParam::O;
  const std::vector<std::string> kernels = table_kernels(Memory::device);
  ASSERT_FALSE(kernels.empty());
  TestStream stream(TestStream::non_blocking);
  for (const std::string& name : kernels) {
    conform_products<DeviceMemory, V, I, O>(name);
    conform_products<DeviceMemory, V, I, O>(name, stream.get());
  }
}

TYPED_TEST(DeviceConformance, BadCallsChangeNothing) {
  using V = typename TypeParam::V;
  using I = typename TypeParam::I;
  using O = typename TypeParam::O;
  for (const std::string& name : table_kernels(Memory::device))
    conform_bad_calls<DeviceMemory, V, I, O>(name);
}

}  // namespace
}  // namespace hola::test
