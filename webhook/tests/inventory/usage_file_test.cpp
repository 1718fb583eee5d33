#include "inventory/usage_file.hpp"

#include <gtest/gtest.h>

#include <filesystem>

#include "engine/classify/gpu_usage.hpp"
#include "inventory/ledger.hpp"
#include "support/cluster_fixtures.hpp"

namespace gpua::inventory {
namespace {

using testing::loadPolicy;
using testing::parse;
using testing::podJson;
using testing::PodSpec;
using testing::policyYaml;
using testing::TempDir;

TEST(UsageFile, KubectlPodListWithNamespacesMixedIn) {
  const auto policy = loadPolicy(policyYaml());
  const auto list = parse(
      R"({"apiVersion":"v1","kind":"List","items":[)" +
      podJson({.name = "t1", .cls = "training", .limits = {{"nvidia.com/gpu", "6"}}}) + "," +
      podJson({.name = "done",
               .cls = "training",
               .limits = {{"nvidia.com/gpu", "6"}},
               .phase = "Failed"}) +
      R"(,{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"vision","labels":{"team":"vision"}}}]})");
  const auto s = usageFromPodList(list, *policy);
  EXPECT_TRUE(s.available);
  EXPECT_NEAR(s.namespaces.at("vision").gpuEquivalents, 6, 1e-9);
  EXPECT_EQ(s.namespaceLabels.at("vision").at("team"), "vision");
}

TEST(UsageFile, SeparateNamespaceFileAndTypedLists) {
  const auto policy = loadPolicy(policyYaml());
  TempDir dir;
  const auto pods =
      dir.write("pods.json", R"({"kind":"PodList","items":[)" +
                                 podJson({.ns = "nlp",
                                          .name = "i",
                                          .cls = "inference",
                                          .limits = {{"nvidia.com/mig-1g.10gb", "3"}}}) +
                                 "]}");
  const auto ns = dir.write(
      "ns.json",
      R"({"kind":"NamespaceList","items":[{"metadata":{"name":"nlp","labels":{"team":"nlp"}}}]})");
  const auto s = usageFromFiles({pods, ns}, *policy);
  EXPECT_NEAR(s.namespaces.at("nlp").gpuEquivalents, 3.0 / 7, 1e-9);
  EXPECT_NEAR(s.namespaces.at("nlp").byClass.at("inference"), 3.0 / 7, 1e-9);
  EXPECT_EQ(s.namespaceLabels.at("nlp").at("team"), "nlp");
}

TEST(UsageFile, ErrorsNameTheFileAndPlace) {
  const auto policy = loadPolicy(policyYaml());
  TempDir dir;
  const auto bad = dir.write("bad.json", "{\"items\": [}");
  try {
    usageFromFiles({bad}, *policy);
    FAIL() << "expected UsageFileError";
  } catch (const UsageFileError& e) {
    EXPECT_EQ(std::string(e.what()).rfind(bad + ": invalid JSON at byte offset 11", 0), 0u)
        << e.what();
  }
  EXPECT_THROW(usageFromFiles({dir.file("missing.json")}, *policy), UsageFileError);
  const auto scalar = dir.write("scalar.json", "42");
  EXPECT_THROW(usageFromFiles({scalar}, *policy), UsageFileError);
}

// Every real pod of the corpus counts exactly as the engine's podGpuUsage says.
TEST(UsageFile, CorpusPodsCountLikeTheEngine) {
  const std::filesystem::path corpus = std::string(GPUA_CORPUS) + "/pods";
  if (!std::filesystem::exists(corpus)) GTEST_SKIP() << "no corpus at " << corpus;
  const auto policy = loadPolicy(policyYaml());
  // One List as kubectl would print it; each pod gets a uid as the API server would give it.
  rapidjson::Document list(rapidjson::kObjectType);
  auto& a = list.GetAllocator();
  rapidjson::Value items(rapidjson::kArrayType);
  std::map<std::string, double> expected;
  for (const auto& entry : std::filesystem::directory_iterator(corpus)) {
    std::ifstream in(entry.path());
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    rapidjson::Document pod(&a);
    pod.Parse(text.data(), text.size());
    ASSERT_FALSE(pod.HasParseError()) << entry.path();
    if (!pod.HasMember("metadata"))
      pod.AddMember("metadata", rapidjson::Value(rapidjson::kObjectType), a);
    pod["metadata"].RemoveMember("uid");
    pod["metadata"].AddMember("uid", rapidjson::Value(entry.path().filename().string().c_str(), a),
                              a);
    const auto& meta = pod["metadata"];
    const std::string ns = meta.HasMember("namespace") && meta["namespace"].IsString()
                               ? meta["namespace"].GetString()
                               : "default";
    if (podHoldsResources(pod)) expected[ns] += engine::podGpuUsage(pod, *policy).gpuEquivalents;
    items.PushBack(rapidjson::Value(pod, a), a);
  }
  list.AddMember("items", items, a);
  const auto s = usageFromPodList(list, *policy);
  double total = 0;
  for (const auto& [ns, ge] : expected) {
    total += ge;
    const auto it = s.namespaces.find(ns);
    EXPECT_NEAR(it == s.namespaces.end() ? 0.0 : it->second.gpuEquivalents, ge, 1e-9) << ns;
  }
  EXPECT_GT(total, 10);  // the corpus has many GPU pods
}

}  // namespace
}  // namespace gpua::inventory
