// Image patterns (docs/policy-reference.md): normalisation, exact and prefix matching, match
// rules by image, exemptions from the whole policy and from single rules.
#include <gtest/gtest.h>

#include "engine/pod/image_match.hpp"
#include "test_support.hpp"

namespace gpua::engine {
namespace {

using namespace testing;

TEST(ImageMatch, NormalisesDockerHubNames) {
  EXPECT_EQ(normalizeImage("nginx"), "docker.io/library/nginx");
  EXPECT_EQ(normalizeImage("nginx:1.27"), "docker.io/library/nginx:1.27");
  EXPECT_EQ(normalizeImage("library/nginx"), "docker.io/library/nginx");
  EXPECT_EQ(normalizeImage("docker.io/nginx"), "docker.io/library/nginx");
  EXPECT_EQ(normalizeImage("index.docker.io/library/nginx"), "docker.io/library/nginx");
  EXPECT_EQ(normalizeImage("pytorch/pytorch:2.3.0-cuda12.1"),
            "docker.io/pytorch/pytorch:2.3.0-cuda12.1");
  EXPECT_EQ(normalizeImage("nvcr.io/nvidia/pytorch:24.01-py3"), "nvcr.io/nvidia/pytorch:24.01-py3");
  EXPECT_EQ(normalizeImage("localhost:5000/app"), "localhost:5000/app");
  EXPECT_EQ(normalizeImage("localhost/app"), "localhost/app");
}

TEST(ImageMatch, ExactAndPrefixPatterns) {
  EXPECT_TRUE(imageMatches("docker.io/library/busybox:1.36", "busybox:1.36"));
  EXPECT_TRUE(imageMatches("busybox:1.36", "docker.io/library/busybox:1.36"));
  EXPECT_FALSE(imageMatches("busybox:1.36", "busybox"));  // tags compare as written
  EXPECT_TRUE(imageMatches("busybox:1.36", "busybox*"));
  EXPECT_TRUE(imageMatches("nvcr.io/nvidia/k8s/cuda-sample:vectoradd", "nvcr.io/nvidia/*"));
  EXPECT_FALSE(imageMatches("nvcr.io/nvidia-evil/x", "nvcr.io/nvidia/*"));
  EXPECT_TRUE(imageMatches("nvcr.io/nvidia/x", "nvcr*"));  // a registry prefix, as written
  EXPECT_TRUE(imageMatches("my-image-7", "my-image-*"));   // Gatekeeper's own example
  EXPECT_TRUE(imageMatches("pytorch/pytorch:2.3", "docker.io/pytorch/*"));
  EXPECT_TRUE(imageMatches("anything", "*"));
  EXPECT_FALSE(imageMatches("ghcr.io/nginx", "nginx*"));  // another registry's nginx
}

const std::string kValidatorPod =
    R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"cuda-validator"},"spec":{)"
    R"("initContainers":[{"name":"init","image":"nvcr.io/nvidia/cloud-native/gpu-operator-validator:v24.3.0"}],)"
    R"("containers":[{"name":"v","image":"nvcr.io/nvidia/k8s/cuda-sample:vectoradd-cuda12.5.0",)"
    R"("resources":{"limits":{"nvidia.com/gpu":1}}}]}})";

TEST(ImageMatch, ExemptImagesExemptAPodWhoseEveryImageMatches) {
  auto p = makePolicy();
  p.exemptImages = {"nvcr.io/nvidia/cloud-native/*", "nvcr.io/nvidia/k8s/cuda-sample:*"};
  rapidjson::Document pod = parse(kValidatorPod);
  const Decision d = decide(pod, podContext(), p, emptyUsage());
  EXPECT_EQ(d.outcome, Decision::Outcome::Exempt);
  EXPECT_TRUE(d.allowed());
  EXPECT_EQ(d.reason, "every container image is exempt (spec.exempt.images)");
  // One container outside the list: the pod is judged (an unclassified GPU pod here).
  p.exemptImages = {"nvcr.io/nvidia/cloud-native/*"};
  rapidjson::Document again = parse(kValidatorPod);
  EXPECT_EQ(decide(again, podContext(), p, emptyUsage()).outcome, Decision::Outcome::Unclassified);
}

TEST(ImageMatch, RuleExemptionDropsOnlyThatRule) {
  auto p = makePolicy();
  policy::RuleExemption e;
  e.rules = {"max-per-pod"};
  e.images = {"nvcr.io/nvidia/tritonserver:*"};
  p.ruleExemptions = {e};
  const std::string labels = R"({"gpu-admission.io/class":"training"})";
  std::string big = gpuPod(labels, R"({"limits":{"nvidia.com/gpu":16}})");
  const auto imageAt = big.find(R"("image":"pytorch")");
  big.replace(imageAt, 17, R"("image":"nvcr.io/nvidia/tritonserver:24.05-py3")");
  rapidjson::Document pod = parse(big);
  const Decision d = decide(pod, podContext(), p, emptyUsage());
  EXPECT_TRUE(d.allowed()) << d.denial->message;
  EXPECT_TRUE(d.violations.empty());
  // Another image: the rule applies.
  rapidjson::Document other = parse(gpuPod(labels, R"({"limits":{"nvidia.com/gpu":16}})"));
  EXPECT_FALSE(decide(other, podContext(), p, emptyUsage()).allowed());
  // A namespace-scoped exemption applies only there.
  p.ruleExemptions[0].namespaces = policy::NamespaceSelector{};
  p.ruleExemptions[0].namespaces->names = {"serving"};
  rapidjson::Document again = parse(big);
  EXPECT_FALSE(decide(again, podContext(), p, emptyUsage()).allowed());
}

TEST(ImageMatch, MatchRuleByImageClassifies) {
  auto p = makePolicy();
  policy::MatchRule r;
  r.images = {"nvcr.io/nvidia/pytorch:*"};
  p.classes[0].match.any = {r};
  std::string pod = gpuPod("{}", R"({"limits":{"nvidia.com/gpu":1}})");
  pod.replace(pod.find(R"("image":"pytorch")"), 17,
              R"("image":"nvcr.io/nvidia/pytorch:24.01-py3")");
  rapidjson::Document d = parse(pod);
  const Decision decided = decide(d, podContext(), p, emptyUsage());
  EXPECT_EQ(decided.className, "training");
  EXPECT_EQ(decided.reason, "image nvcr.io/nvidia/pytorch:* (class training, match rule 1)");
}

}  // namespace
}  // namespace gpua::engine
