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
  HOLA_TYPES;
  conform_every_kernel_products<HostMemory, V, I, O>();
}

TYPED_TEST(HostConformance, BadCallsChangeNothing) {
  HOLA_TYPES;
  conform_every_kernel_bad_calls<HostMemory, V, I, O>();
}

}  // namespace
}  // namespace hola::test
