// SupplyForPolicy: the source's nodes, folded once per (snapshot, policy) pair.
#include "server/webhook_supply.hpp"

#include <gtest/gtest.h>

namespace gpua::server {
namespace {

class FixedSupply : public engine::SupplySource {
 public:
  std::shared_ptr<const engine::SupplySnapshot> snapshot;
  std::shared_ptr<const engine::SupplySnapshot> currentSupply() const override { return snapshot; }
};

std::shared_ptr<const policy::PolicySet> policyWithPool(const std::string& revision) {
  auto p = std::make_shared<policy::PolicySet>();
  p->revision = revision;
  policy::Pool pool;
  pool.name = "train";
  pool.nodeSelector = {{"pool", "train"}};
  p->pools.push_back(pool);
  return p;
}

std::shared_ptr<const engine::SupplySnapshot> rawNodes() {
  auto s = std::make_shared<engine::SupplySnapshot>();
  s->available = true;
  engine::NodeSupply n;
  n.name = "n1";
  n.labels = {{"pool", "train"}};
  n.ready = true;
  n.allocatable = {{"nvidia.com/gpu", 8}};
  s->nodes.push_back(n);
  return s;
}

TEST(SupplyForPolicy, FoldsOncePerSnapshotAndPolicy) {
  auto source = std::make_shared<FixedSupply>();
  source->snapshot = rawNodes();
  SupplyForPolicy supply(source);
  const auto policy = policyWithPool("r1");
  const auto first = supply.get(policy);
  ASSERT_TRUE(first->available);
  EXPECT_EQ(first->policyRevision, "r1");
  ASSERT_NE(first->pool("train"), nullptr);
  EXPECT_EQ(first->pool("train")->nodesSchedulable, 1);
  EXPECT_EQ(supply.get(policy), first);  // reused, not folded again
  const auto reloaded = supply.get(policyWithPool("r2"));
  EXPECT_NE(reloaded, first);
  EXPECT_EQ(reloaded->policyRevision, "r2");
  source->snapshot = rawNodes();  // a node event: a new snapshot
  EXPECT_NE(supply.get(policy), first);
}

TEST(SupplyForPolicy, PassesThroughWhatNeedsNoFold) {
  SupplyForPolicy none(nullptr);
  EXPECT_FALSE(none.get(policyWithPool("r1"))->available);
  auto source = std::make_shared<FixedSupply>();
  SupplyForPolicy notListed(source);
  EXPECT_FALSE(notListed.get(policyWithPool("r1"))->available);
  // A source that summarizes itself for the policy in force is used as it is.
  auto folded = std::make_shared<engine::SupplySnapshot>(
      engine::summarizeSupply({rawNodes()->nodes, {}}, *policyWithPool("r1")));
  source->snapshot = folded;
  EXPECT_EQ(notListed.get(policyWithPool("r1")), folded);
}

}  // namespace
}  // namespace gpua::server
