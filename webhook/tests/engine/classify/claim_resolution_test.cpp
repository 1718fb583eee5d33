#include "engine/classify/claim_resolution.hpp"

#include <gtest/gtest.h>

#include "engine/decide.hpp"
#include "test_support.hpp"

namespace gpua::engine {
namespace {

using namespace testing;

DeviceAlternative alt(std::string cls, int64_t count = 1, std::string name = "gpu",
                      std::vector<std::string> selectors = {}) {
  DeviceAlternative a;
  a.name = std::move(name);
  a.deviceClass = std::move(cls);
  a.count = count;
  a.selectors = std::move(selectors);
  return a;
}

DraObjects objects() {
  DraObjects d;
  d.known = true;
  d.templates["ml/two"] = {"ml", "two", {{"gpus", {alt("gpu.nvidia.com", 2, "gpus")}}}};
  d.templates["ml/mig"] = {"ml",
                           "mig",
                           {{"mig",
                             {alt("mig.nvidia.com", 3, "mig",
                                  {"device.attributes['gpu.nvidia.com'].profile == '2g.20gb'"})}}}};
  d.templates["ml/nic"] = {"ml", "nic", {{"nic", {alt("rdma.example.com")}}}};
  ResourceClaimInfo shared{"ml",
                           "shared",
                           {{"gpu", {alt("gpu.nvidia.com")}}},
                           true,
                           {{"gpu", "gpu.nvidia.com", "node-1", "gpu-0"}},
                           {"uid-1"}};
  d.claims["ml/shared"] = shared;
  ResourceClaimInfo mig{"ml",
                        "mig-allocated",
                        {{"mig", {alt("mig.nvidia.com", 1, "mig")}}},
                        true,
                        {{"mig", "gpu.nvidia.com", "node/2", "mig-0"}},
                        {}};
  d.claims["ml/mig-allocated"] = mig;
  d.deviceAttributes[deviceKey("gpu.nvidia.com", "node/2", "mig-0")] = {
      {"gpu.nvidia.com/profile", "1g.10gb"}};
  return d;
}

ClaimDemand resolve(const std::string& claimsJson, const DraObjects& dra = objects(),
                    const policy::PolicySet& p = draPolicy()) {
  rapidjson::Document pod = parse(R"({"metadata":{"name":"p"},"spec":{"resourceClaims":)" +
                                  claimsJson + R"(,"containers":[{"name":"c"}]}})");
  return resolveClaims(podViewOf(pod), "ml", dra, p);
}

TEST(ResolveClaims, TemplateCountsItsDevicesAsTheExtendedResource) {
  const ClaimDemand d = resolve(R"([{"name":"g","resourceClaimTemplateName":"two"}])");
  ASSERT_TRUE(d.resolved);
  ASSERT_EQ(d.gpus.size(), 1u);
  EXPECT_EQ(d.gpus[0].count, 2);
  EXPECT_EQ(d.units.at("nvidia.com/gpu"), 2);
  EXPECT_FALSE(d.unknownSize);
  EXPECT_EQ(describeClaimedGpus(d),
            R"(claim "g" (ResourceClaimTemplate "two") asks for 2 gpu.nvidia.com devices)");
}

TEST(ResolveClaims, MigCountsByTheSelectorsProfileOrTheAllocatedDevice) {
  const ClaimDemand pending = resolve(R"([{"name":"m","resourceClaimTemplateName":"mig"}])");
  EXPECT_EQ(pending.units.at("nvidia.com/mig-2g.20gb"), 3);
  // An existing claim counts once where it is: its own demand, by the allocated device.
  const DraObjects dra = objects();
  const ClaimDemand allocated = claimDemandOf(dra.claims.at("ml/mig-allocated"), dra, draPolicy());
  EXPECT_EQ(allocated.units.at("nvidia.com/mig-1g.10gb"), 1);
  // The pod naming it adds nothing of its own, but knows the class and the size.
  const ClaimDemand named = resolve(R"([{"name":"m","resourceClaimName":"mig-allocated"}])");
  EXPECT_TRUE(named.units.empty());
  ASSERT_EQ(named.gpus.size(), 1u);
  EXPECT_EQ(named.gpus[0].countsAs, "nvidia.com/mig-1g.10gb");
  // Without the slice, nothing pins the profile: size unknown, nothing counted.
  DraObjects noSlice = objects();
  noSlice.deviceAttributes.clear();
  const ClaimDemand unknown =
      claimDemandOf(noSlice.claims.at("ml/mig-allocated"), noSlice, draPolicy());
  EXPECT_TRUE(unknown.units.empty());
  EXPECT_TRUE(unknown.unknownSize);
}

TEST(ResolveClaims, ANamedClaimAddsNoUnitsToThePod) {
  const ClaimDemand d = resolve(R"([{"name":"g","resourceClaimName":"shared"}])");
  ASSERT_EQ(d.gpus.size(), 1u);
  EXPECT_TRUE(d.units.empty());
  EXPECT_TRUE(d.asksForGpus());
}

TEST(ResolveClaims, FirstAvailableCountsTheLargestAlternative) {
  DraObjects dra = objects();
  dra.templates["ml/flex"] = {"ml",
                              "flex",
                              {{"accel",
                                {alt("mig.nvidia.com", 1, "small",
                                     {"device.attributes['gpu.nvidia.com'].profile == '1g.10gb'"}),
                                 alt("gpu.nvidia.com", 1, "whole")}}}};
  const ClaimDemand d = resolve(R"([{"name":"a","resourceClaimTemplateName":"flex"}])", dra);
  ASSERT_EQ(d.gpus.size(), 1u);
  EXPECT_EQ(d.gpus[0].request, "whole");
  EXPECT_EQ(d.units.at("nvidia.com/gpu"), 1);
  EXPECT_EQ(d.deviceClasses, (std::vector<std::string>{"mig.nvidia.com", "gpu.nvidia.com"}));
}

TEST(ResolveClaims, MissingObjectsAndOtherDevicesAreExplicit) {
  const ClaimDemand missing = resolve(R"([{"name":"g","resourceClaimTemplateName":"nope"}])");
  ASSERT_EQ(missing.unresolved.size(), 1u);
  EXPECT_EQ(missing.unresolved[0].why, R"(no such template in namespace "ml")");
  EXPECT_TRUE(missing.asksForGpus());
  const ClaimDemand unknown =
      resolve(R"([{"name":"g","resourceClaimName":"shared"}])", DraObjects{});
  ASSERT_EQ(unknown.unresolved.size(), 1u);
  EXPECT_NE(unknown.unresolved[0].why.find("knows no DRA objects"), std::string::npos);
  const ClaimDemand nic = resolve(R"([{"name":"n","resourceClaimTemplateName":"nic"}])");
  EXPECT_FALSE(nic.asksForGpus());
  EXPECT_EQ(nic.deviceClasses, std::vector<std::string>{"rdma.example.com"});
  const ClaimDemand neither = resolve(R"([{"name":"x"}])");
  ASSERT_EQ(neither.unresolved.size(), 1u);
}

TEST(ResolveClaims, WithoutSpecDraNothingIsResolved) {
  const ClaimDemand d =
      resolve(R"([{"name":"g","resourceClaimTemplateName":"two"}])", objects(), makePolicy());
  EXPECT_FALSE(d.resolved);
  EXPECT_TRUE(d.gpus.empty());
}

TEST(ResolveClaims, DecideCountsClaimsAgainstTheQuotaAndTheClass) {
  auto p = draPolicy();
  UsageSnapshot usage = emptyUsage();
  usage.dra = std::make_shared<DraObjects>(objects());
  rapidjson::Document pod =
      parse(gpuPod(R"({"gpu-admission.io/class":"training"})", R"({"claims":[{"name":"g"}]})",
                   R"("resourceClaims":[{"name":"g","resourceClaimTemplateName":"two"}])"));
  const Decision d = decide(pod, podContext("ml"), p, usage);
  EXPECT_EQ(d.className, "training");
  EXPECT_DOUBLE_EQ(d.gpuEquivalents, 2);
  // The NIC-only pod is no GPU pod under spec.dra (it was one before).
  rapidjson::Document nic =
      parse(gpuPod("{}", R"({"claims":[{"name":"n"}]})",
                   R"("resourceClaims":[{"name":"n","resourceClaimTemplateName":"nic"}])"));
  EXPECT_EQ(decide(nic, podContext("ml"), p, usage).outcome, Decision::Outcome::NoGpu);
  EXPECT_NE(decide(nic, podContext("ml"), makePolicy(), usage).outcome, Decision::Outcome::NoGpu);
}

}  // namespace
}  // namespace gpua::engine
