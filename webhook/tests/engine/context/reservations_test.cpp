#include "engine/context/reservations.hpp"

#include <gtest/gtest.h>

namespace gpua::engine {
namespace {

Reservation entry(const std::string& uid, const std::string& ns, double ge, int64_t since) {
  return {uid, ns + "/" + uid, ns, "training", ge, {{"nvidia.com/gpu", 1}}, {"q"}, since, "r"};
}

TEST(Reservations, UnclaimedEntriesAddToTheirNamespaceClassAndResource) {
  UsageSnapshot usage;
  usage.available = true;
  usage.namespaces["ml"].gpuEquivalents = 1;
  usage.namespaces["ml"].byResource["nvidia.com/gpu"] = 1;
  usage.knownPods = {"held"};
  const auto out = withReservations(usage,
                                    {entry("held", "ml", 1, 0), entry("new", "ml", 1, 0),
                                     entry("self", "ml", 1, 0), entry("other", "web", 0.5, 0)},
                                    "self");
  EXPECT_DOUBLE_EQ(out.namespaces.at("ml").gpuEquivalents, 2);  // the pod + "new"
  EXPECT_DOUBLE_EQ(out.namespaces.at("ml").byClass.at("training"), 1);
  EXPECT_EQ(out.namespaces.at("ml").byResource.at("nvidia.com/gpu"), 2);
  EXPECT_DOUBLE_EQ(out.namespaces.at("web").gpuEquivalents, 0.5);
  EXPECT_TRUE(out.available);
}

TEST(Reservations, EntriesExpireAfterTheirTtl) {
  const std::vector<Reservation> entries = {entry("a", "ml", 1, 5'000), entry("b", "ml", 1, 5'001),
                                            entry("c", "ml", 1, 9'000)};
  // a is exactly 6 s old (expired at the TTL), b just under it, c is the pod being reserved.
  const auto kept = unexpired(entries, 11'000, std::chrono::milliseconds(6'000), "c");
  ASSERT_EQ(kept.size(), 1u);
  EXPECT_EQ(kept[0].podUid, "b");
}

}  // namespace
}  // namespace gpua::engine
