// `review`'s two renderings of one ReviewReport: text for people, one JSON object for scripts.
#include "authoring/review_output.hpp"

#include <gtest/gtest.h>

#include "authoring_test_support.hpp"

namespace gpua::authoring {
namespace {

using testing::json;
using testing::testPolicy;
using testing::trainingPod;

ReviewReport reviewOf(const rapidjson::Value& object, const policy::PolicySet& policy) {
  ReviewRequest req;
  req.object = &object;
  return runReview(req, policy, emptyUsage());
}

TEST(ReviewOutput, TextOfAnAdmittedPodShowsClassPatchAndPatchedObject) {
  const auto policy = testPolicy();
  const auto pod = json(trainingPod());
  const std::string text = reportText(reviewOf(pod, *policy));
  EXPECT_EQ(text.rfind("Pod team-a/worker-0: ADMITTED\n", 0), 0u) << text;
  EXPECT_NE(text.find("outcome: Classified, class training, mode enforce\n"), std::string::npos)
      << text;
  EXPECT_NE(text.find("patch ("), std::string::npos) << text;
  EXPECT_NE(text.find("patched Pod:\n---\n"), std::string::npos) << text;
  EXPECT_NE(text.find("priorityClassName: gpu-training"), std::string::npos) << text;
}

TEST(ReviewOutput, TextOfADeniedPodShowsStatusAndRule) {
  const auto policy = testPolicy();
  const auto pod = json(trainingPod(9));
  const std::string text = reportText(reviewOf(pod, *policy));
  EXPECT_NE(text.find(": DENIED (403 "), std::string::npos) << text;
  EXPECT_NE(text.find("rule broken: max-per-pod: "), std::string::npos) << text;
  EXPECT_NE(text.find("patch: none\n"), std::string::npos) << text;
}

TEST(ReviewOutput, JsonHasEveryField) {
  const auto policy = testPolicy();
  const auto pod = json(trainingPod(9));
  rapidjson::Document out;
  reportJson(reviewOf(pod, *policy), out, out.GetAllocator());
  for (const char* key : {"object", "allowed", "status", "outcome", "class", "reason", "mode",
                          "violations", "warnings", "auditAnnotations", "patch", "patchedObject"})
    EXPECT_TRUE(out.HasMember(key)) << key;
  EXPECT_FALSE(out["allowed"].GetBool());
  EXPECT_EQ(out["status"]["code"].GetInt(), 403);
  EXPECT_STREQ(out["violations"][0]["rule"].GetString(), "max-per-pod");
  EXPECT_STREQ(out["object"]["name"].GetString(), "worker-0");
  EXPECT_TRUE(out["patch"].IsArray());
}

}  // namespace
}  // namespace gpua::authoring
