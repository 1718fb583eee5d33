// capacityCheck and maxShareOfNodePerGpu: parsed strictly, with positions and hints.
#include <gtest/gtest.h>

#include "policy_test_support.hpp"

namespace gpua::policy {
namespace {

using testing::doc;
using testing::errorAt;
using testing::load;

TEST(LoaderCapacity, KeysAndDefaults) {
  auto r =
      load(doc("  capacityCheck: deny\n"
               "  pools:\n"
               "  - {name: p, gpu: H100-80GB, maxShareOfNodePerGpu: 1.5}\n"
               "  - {name: q, gpu: H100-80GB}\n"
               "  classes:\n"
               "  - {name: c, match: {any: [{labels: {a: b}}]}, pools: [p], capacityCheck: off,\n"
               "     maxShareOfNodePerGpu: 2}\n"
               "  - {name: d, match: {any: [{labels: {a: c}}]}, pools: [q]}\n"));
  ASSERT_TRUE(r.ok()) << testing::allErrors(r);
  const PolicySet& p = *r.policy;
  EXPECT_EQ(p.capacityCheck, CapacityCheck::Deny);
  EXPECT_EQ(p.pools[0].maxShareOfNodePerGpu, 1.5);
  EXPECT_FALSE(p.pools[1].maxShareOfNodePerGpu);
  EXPECT_EQ(p.classes[0].capacityCheck, CapacityCheck::Off);
  EXPECT_EQ(p.classes[0].maxShareOfNodePerGpu, 2.0);
  EXPECT_FALSE(p.classes[1].capacityCheck);
  auto plain = load(doc("  pools: []\n"));
  ASSERT_TRUE(plain.ok()) << testing::allErrors(plain);
  EXPECT_EQ(plain.policy->capacityCheck, CapacityCheck::Warn);
}

TEST(LoaderCapacity, ErrorsNameThePlaceAndTheNearestValue) {
  auto r = load(
      doc("  capacityCheck: Warn\n"
          "  pools:\n"
          "  - {name: p, gpu: H100-80GB, maxShareOfNodePerGpu: 0.5}\n"
          "  classes:\n"
          "  - {name: c, match: {any: [{labels: {a: b}}]}, pools: [p], capacitycheck: deny}\n"));
  EXPECT_EQ(r.policy, nullptr);
  const Diagnostic* check = errorAt(r, "spec.capacityCheck");
  ASSERT_NE(check, nullptr) << testing::allErrors(r);
  EXPECT_EQ(check->format(),
            "p.yaml:5:18: spec.capacityCheck: unknown value 'Warn' (hint: did you mean "
            "'warn'?)");
  const Diagnostic* factor = errorAt(r, "spec.pools[0].maxShareOfNodePerGpu");
  ASSERT_NE(factor, nullptr) << testing::allErrors(r);
  EXPECT_EQ(factor->line, 7);
  const Diagnostic* key = errorAt(r, "spec.classes[0].capacitycheck");
  ASSERT_NE(key, nullptr) << testing::allErrors(r);
  EXPECT_NE(key->format().find("did you mean 'capacityCheck'?"), std::string::npos)
      << key->format();
}

TEST(LoaderCapacity, SetOnceAcrossDocuments) {
  auto r = loadPolicySources({{"a.yaml", doc("  capacityCheck: warn\n", "a")},
                              {"b.yaml", doc("  capacityCheck: deny\n", "b")}});
  EXPECT_EQ(r.policy, nullptr);
  ASSERT_NE(errorAt(r, "spec.capacityCheck"), nullptr) << testing::allErrors(r);
}

}  // namespace
}  // namespace gpua::policy
