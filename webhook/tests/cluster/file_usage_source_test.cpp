// `serve --usage-from`: a fixed snapshot from kubectl JSON files, recounted when the policy
// changes (GPU-equivalents per unit are policy), and errors that name the file.
#include "cluster/file_usage_source.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <regex>

#include "inventory/usage_file.hpp"
#include "support/cluster_fixtures.hpp"

namespace gpua::cluster {
namespace {

using testing::loadPolicy;
using testing::podJson;
using testing::PodSpec;
using testing::policyYaml;
using testing::TempDir;

class FileUsageSourceTest : public ::testing::Test {
 protected:
  TempDir dir;
  std::shared_ptr<const policy::PolicySet> policy = loadPolicy(policyYaml());
  PolicyProvider provider = [this] { return policy; };

  std::string podsFile() {
    return dir.write(
        "pods.json",
        R"({"kind":"List","items":[)" +
            podJson({.name = "t", .cls = "training", .limits = {{"nvidia.com/gpu", "3"}}}) + "," +
            podJson(
                {.name = "d", .cls = "interactive", .limits = {{"nvidia.com/gpu.shared", "1"}}}) +
            R"(,{"kind":"Namespace","metadata":{"name":"vision","labels":{"team":"vision"}}}]})");
  }
};

TEST_F(FileUsageSourceTest, CountsThePodsAndIsSyncedAndAvailable) {
  FileUsageSource source({podsFile()}, provider);
  EXPECT_TRUE(source.synced());
  const auto s = source.current();
  EXPECT_TRUE(s->available);
  EXPECT_NEAR(s->namespaces.at("vision").gpuEquivalents, 3.25, 1e-9);  // 3 + 1/4 replica
  EXPECT_EQ(s->namespaceLabels.at("vision").at("team"), "vision");
  EXPECT_EQ(source.current(), s) << "the same policy reuses the snapshot";
}

TEST_F(FileUsageSourceTest, RecountsUnderANewPolicy) {
  FileUsageSource source({podsFile()}, provider);
  EXPECT_NEAR(source.current()->namespaces.at("vision").gpuEquivalents, 3.25, 1e-9);
  // Two time-slice replicas per L4 instead of four: the shared unit is now half a GPU.
  policy = loadPolicy(std::regex_replace(policyYaml(), std::regex("replicas: 4"), "replicas: 2"));
  EXPECT_NEAR(source.current()->namespaces.at("vision").gpuEquivalents, 3.5, 1e-9);
}

TEST_F(FileUsageSourceTest, KeepsTheLastSnapshotWhenTheFilesVanishLater) {
  const auto path = podsFile();
  FileUsageSource source({path}, provider);
  std::filesystem::remove(path);
  policy = loadPolicy(std::regex_replace(policyYaml(), std::regex("replicas: 4"), "replicas: 2"));
  const auto s = source.current();
  EXPECT_TRUE(s->available);
  EXPECT_NEAR(s->namespaces.at("vision").gpuEquivalents, 3.25, 1e-9);
}

TEST_F(FileUsageSourceTest, AnUnreadableFileIsAnErrorNamingIt) {
  const auto missing = dir.file("nope.json");
  try {
    FileUsageSource source({missing}, provider);
    FAIL() << "expected UsageFileError";
  } catch (const inventory::UsageFileError& e) {
    EXPECT_NE(std::string(e.what()).find(missing), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace gpua::cluster
