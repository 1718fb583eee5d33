// The review round trip: an object through admission::review() as the API server's request,
// the response decoded and its patch applied.
#include "authoring/review_roundtrip.hpp"

#include <gtest/gtest.h>
#include <rapidjson/pointer.h>

#include "authoring_test_support.hpp"

namespace gpua::authoring {
namespace {

using testing::json;
using testing::testPolicy;
using testing::trainingPod;

class ReviewRoundtripTest : public ::testing::Test {
 protected:
  ReviewReport review(const rapidjson::Value& object, const std::string& ns = "") {
    ReviewRequest req;
    req.object = &object;
    req.namespaceName = ns;
    return runReview(req, *policy_, emptyUsage());
  }
  std::shared_ptr<const policy::PolicySet> policy_ = testPolicy();
};

TEST_F(ReviewRoundtripTest, TrainingPodIsMutatedAndThePatchApplied) {
  const auto pod = json(trainingPod());
  const auto r = review(pod);
  EXPECT_TRUE(r.allowed);
  ASSERT_TRUE(r.decision);
  EXPECT_EQ(r.decision->className, "training");
  EXPECT_EQ(r.namespaceName, "team-a");
  EXPECT_EQ(r.displayName, "worker-0");
  EXPECT_FALSE(r.patch.empty());
  const auto* priority = rapidjson::Pointer("/spec/priorityClassName").Get(r.patched);
  ASSERT_NE(priority, nullptr);
  EXPECT_STREQ(priority->GetString(), "gpu-training");
  EXPECT_EQ(rapidjson::Pointer("/spec/priorityClassName").Get(r.sent), nullptr);
}

TEST_F(ReviewRoundtripTest, DeniedPodCarriesTheStatus) {
  const auto pod = json(trainingPod(9));
  const auto r = review(pod);
  EXPECT_FALSE(r.allowed);
  EXPECT_EQ(r.statusCode, 403);
  EXPECT_NE(r.statusMessage.find("9"), std::string::npos) << r.statusMessage;
  ASSERT_TRUE(r.decision);
  ASSERT_EQ(r.decision->violations.size(), 1u);
  EXPECT_EQ(r.decision->violations[0].rule, "max-per-pod");
  EXPECT_TRUE(r.patch.empty());
}

TEST_F(ReviewRoundtripTest, NamespaceIsFilledInAndGeneratedNamesShown) {
  const auto pod = json(R"({"apiVersion": "v1", "kind": "Pod",
      "metadata": {"generateName": "web-"}, "spec": {"containers": [{"name": "c"}]}})");
  const auto r = review(pod, "apps");
  EXPECT_EQ(r.namespaceName, "apps");
  EXPECT_EQ(r.displayName, "web-*");
  EXPECT_STREQ(r.sent["metadata"]["namespace"].GetString(), "apps");
  EXPECT_EQ(requestNamespace(pod, ""), "default");
  EXPECT_EQ(requestNamespace(json(trainingPod()), ""), "team-a");
  EXPECT_EQ(requestNamespace(json(trainingPod()), "other"), "other");
}

TEST_F(ReviewRoundtripTest, ObjectsThatCannotBeReviewedAreReviewErrors) {
  const auto configMap = json(R"({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {}})");
  EXPECT_THROW(review(configMap), ReviewError);
  EXPECT_THROW(review(json("[1]")), ReviewError);
  const auto pod = json(trainingPod());
  try {
    review(pod, "team-b");
    FAIL() << "a namespace that disagrees with metadata.namespace was accepted";
  } catch (const ReviewError& e) {
    EXPECT_NE(std::string(e.what()).find("does not match --namespace \"team-b\""),
              std::string::npos)
        << e.what();
  }
}

TEST_F(ReviewRoundtripTest, PatchPrintsAsPrettyJson) {
  const auto pod = json(trainingPod());
  const auto r = review(pod);
  const auto patch = json(patchToPrettyJson(r));
  ASSERT_TRUE(patch.IsArray());
  EXPECT_EQ(patch.Size(), r.patch.size());
  const auto plain = json(R"({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
      "spec": {"containers": [{"name": "c"}]}})");
  EXPECT_EQ(patchToPrettyJson(review(plain, "kube-system")), "[]");
}

}  // namespace
}  // namespace gpua::authoring
