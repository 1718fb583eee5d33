#include "native/cel_text.hpp"

#include <gtest/gtest.h>

namespace gpua::native::cel {
namespace {

TEST(CelText, StringLiteralsEscapeQuotesBackslashesAndControlBytes) {
  EXPECT_EQ(str("pod \"a\""), R"("pod \"a\"")");
  EXPECT_EQ(str("a\\b"), R"("a\\b")");
  EXPECT_EQ(str(std::string("a\nb")), R"("a\x0Ab")");
  EXPECT_EQ(strList({"x", "y"}), R"(["x", "y"])");
  EXPECT_EQ(strList({}), "[]");
}

TEST(CelText, AllOfAndAnyOfDropEmptyPartsAndSayWhatNothingMeans) {
  EXPECT_EQ(allOf({}), "true");
  EXPECT_EQ(anyOf({"", ""}), "false");
  EXPECT_EQ(allOf({"a", "", "b"}), "(a && b)");
  EXPECT_EQ(anyOf({"a"}), "a");
}

TEST(CelText, LabelSelectorsFollowKubernetesSemantics) {
  kube::LabelSelector s;
  s.matchLabels = {{"env", "dev"}};
  s.matchExpressions = {{"tier", kube::SelectorOperator::NotIn, {"x"}},
                        {"gpu", kube::SelectorOperator::Exists, {}},
                        {"old", kube::SelectorOperator::DoesNotExist, {}}};
  EXPECT_EQ(labelSelector(s, "L"),
            R"(((("env" in L) && L["env"] in ["dev"]) && (!("tier" in L) || !(L["tier"] in ["x"])))"
            R"( && ("gpu" in L) && !("old" in L)))");
  EXPECT_EQ(labelSelector({}, "L"), "true");
}

TEST(CelText, NamespaceSelectorsAndExemptionsReadTheDeclaredVariables) {
  policy::NamespaceSelector sel;
  sel.names = {"a"};
  sel.labels.matchLabels = {{"team", "x"}};
  EXPECT_EQ(namespaceSelector(sel),
            R"(((variables.nsName in ["a"]) && (("team" in variables.nsLabels) && )"
            R"(variables.nsLabels["team"] in ["x"])))");
  policy::NamespaceExemption ex;
  ex.names = {"kube-system"};
  ex.labels.matchLabels = {{"off", "true"}};
  EXPECT_EQ(namespaceExemption(ex),
            R"(((variables.nsName in ["kube-system"]) || (("off" in variables.nsLabels) && )"
            R"(variables.nsLabels["off"] in ["true"])))");
}

TEST(CelText, CutsLikeTheEnginesQuotedNames) {
  EXPECT_EQ(cut("n", 80), R"((size(n) > 80 ? n.substring(0, 80) + "..." : n))");
}

TEST(CelText, BindsAreLoweredToAOneElementMap) {
  EXPECT_EQ(lowerBinds("cel.bind(x, a + 1, x * x)"), "[a + 1].map(x, x * x)[0]");
  EXPECT_EQ(lowerBinds("f(cel.bind(x, g(1, 2), cel.bind(y, [x, 3], y[0])))"),
            "f([g(1, 2)].map(x, [[x, 3]].map(y, y[0])[0])[0])");
  // Text inside a string literal is not code.
  EXPECT_EQ(lowerBinds(R"x("cel.bind(" + cel.bind(s, ")", s))x"),
            R"x("cel.bind(" + [")"].map(s, s)[0])x");
  EXPECT_EQ(lowerBinds("no binds"), "no binds");
}

TEST(CelText, AMalformedBindIsAnErrorNotAGuess) {
  EXPECT_THROW(lowerBinds("cel.bind(x, 1"), std::invalid_argument);
  EXPECT_THROW(lowerBinds("cel.bind(x, 1)"), std::invalid_argument);
}

}  // namespace
}  // namespace gpua::native::cel
