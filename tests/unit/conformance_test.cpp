// The conformance suite (tests/support/conformance.hpp) for every host kernel of the kernel
// table, over all value / index type pairs.
#include "conformance.hpp"

#include <gtest/gtest.h>

#include "type_lists.hpp"

namespace hola::test {
namespace {

template <class T>
class HostConformance : public ::testing::Test {};
TYPED_TEST_SUITE(HostConformance, AllTypes);

TYPED_TEST(HostConformance, ProductsOnEveryFamily) {
  using V = typename TypeParam::V;
  using I = typename TypeParam::I;
  using O = typename TypeParam::O;
  const std::vector<std::string> kernels = table_kernels(Memory::host);
  ASSERT_FALSE(kernels.empty());
  for (const std::string& name : kernels) conform_products<HostMemory, V, I, O>(name);
}

TYPED_TEST(HostConformance, BadCallsChangeNothing) {
  using V = typename TypeParam::V;
  using I = typename TypeParam::I;
  using O = typename TypeParam::O;
  for (const std::string& name : table_kernels(Memory::host))
    conform_bad_calls<HostMemory, V, I, O>(name);
}

}  // namespace
}  // namespace hola::test
