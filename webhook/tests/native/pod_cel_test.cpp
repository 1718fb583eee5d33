#include "native/pod_cel.hpp"

#include <gtest/gtest.h>

#include "policy/loader.hpp"

namespace gpua::native {
namespace {

policy::PolicySet load(const std::string& classes) {
  const std::string yaml =
      "apiVersion: gpu-admission.io/v1\nkind: GpuPolicy\nmetadata: {name: t}\nspec:\n"
      "  pools:\n  - {name: h100, gpu: H100-80GB, nodeSelector: {pool: h100}}\n"
      "  classes:\n" +
      classes;
  const auto r = policy::loadPolicySources({{"t.yaml", yaml}});
  EXPECT_TRUE(r.ok()) << (r.errors.empty() ? "" : r.errors.front().format());
  return r.ok() ? *r.policy : policy::PolicySet{};
}

const char* const kTwoClasses =
    "  - {name: a, match: {any: [{labels: {k: a}}]}, pools: [h100],\n"
    "     allowedNamespaces: {matchLabels: {serving: \"true\"}}}\n"
    "  - {name: b, match: {any: [{labels: {k: b}}]}, pools: [h100]}\n"
    "  - {name: etl, match: {any: [{labels: {k: etl}}]}, gpus: {request: forbidden}}\n";

TEST(PodCel, TheClassHintListsLabelClassesTheNamespaceMayUseAsGpuClassLabelsJoinsThem) {
  const auto p = load(kTwoClasses);
  const std::string hint = classLabelHint(p, nullptr, [](const auto&) { return "true"; });
  // Class a only where the namespace is a serving one; the forbidden class never.
  EXPECT_NE(hint.find(R"(? "k=a" : "")"), std::string::npos) << hint;
  EXPECT_NE(hint.find(R"(, "k=b"])"), std::string::npos) << hint;
  EXPECT_EQ(hint.find("k=etl"), std::string::npos) << hint;
  // One key: "k=<a|b>"; several: joined with " or ".
  EXPECT_NE(hint.find(R"(+ "=<" + hs.map(h, h.substring(size()"), std::string::npos) << hint;
  EXPECT_NE(hint.find(R"(hs.join(" or "))"), std::string::npos) << hint;
}

TEST(PodCel, TheClassHintOffersOnlyClassesBeforeTheOneJudged) {
  const auto p = load(kTwoClasses);
  EXPECT_EQ(classLabelHint(p, &p.classes[0], [](const auto&) { return "true"; }), "\"\"");
  const std::string hint = classLabelHint(p, &p.classes[1], [](const auto&) { return "x > 1"; });
  EXPECT_NE(hint.find(R"(((("serving" in variables.nsLabels))"), std::string::npos) << hint;
  EXPECT_NE(hint.find("&& x > 1) ? \"k=a\""), std::string::npos) << hint;
}

TEST(PodCel, ClassesAreMatchedInOrderFirstMatchWins) {
  const auto vars = podVariables(load(kTwoClasses));
  std::string cls;
  for (const auto& v : vars)
    if (v.name == "cls") cls = v.expression;
  EXPECT_EQ(
      cls,
      R"((variables.class0 ? "a" : (variables.class1 ? "b" : (variables.class2 ? "etl" : ""))))");
}

TEST(PodCel, AnImageMatcherIsNotCompilableAndSaysWhere) {
  const auto p = load("  - {name: a, match: {any: [{images: [\"nvcr.io/*\"]}]}, pools: [h100]}\n");
  try {
    podVariables(p);
    FAIL() << "compiled an image matcher";
  } catch (const NotCompilable& e) {
    EXPECT_STREQ(e.what(),
                 "class a match rule 1 matches container images, which the compiler cannot write "
                 "in CEL yet");
  }
}

// The classification cannot be written when a class matches by DRA device class: it once compiled
// into a rule that matched every pod, described as "" (CEL the apiserver refuses).
TEST(PodCel, ADeviceClassMatcherIsNotCompilableAndSaysWhere) {
  const auto r = policy::loadPolicySources({{"t.yaml", R"(apiVersion: gpu-admission.io/v1
kind: GpuPolicy
metadata: {name: t}
spec:
  dra:
    deviceClasses: [{name: gpu.nvidia.com, countsAs: nvidia.com/gpu}]
  pools:
  - {name: h100, gpu: H100-80GB, nodeSelector: {pool: h100}}
  classes:
  - {name: a, match: {any: [{labels: {c: a}}, {deviceClasses: [gpu.nvidia.com]}]}, pools: [h100]}
)"}});
  ASSERT_TRUE(r.ok()) << r.errors.front().format();
  try {
    podVariables(*r.policy);
    FAIL() << "compiled a device class matcher";
  } catch (const NotCompilable& e) {
    EXPECT_STREQ(e.what(),
                 "class a match rule 2 matches DRA device classes, which are read from the pod's "
                 "ResourceClaims and ResourceClaimTemplates (other objects)");
  }
}

TEST(PodCel, ContainersReadGpuUnitsFromLimits) {
  const auto p = load(kTwoClasses);
  const ContainerCel cc{p};
  EXPECT_EQ(cc.limits("c"),
            "(has(c.resources) && has(c.resources.limits) ? c.resources.limits : {})");
  EXPECT_NE(cc.units("c").find("quantity(lim[k]).asInteger()).sum()"), std::string::npos);
  EXPECT_EQ(cc.isGpu("k"),
            R"((k == "nvidia.com/gpu" || k.startsWith("nvidia.com/mig-") || k in []))");
}

}  // namespace
}  // namespace gpua::native
