#include "native/yaml_out.hpp"

#include <gtest/gtest.h>

namespace gpua::native {
namespace {

TEST(YamlOut, WritesMapsListsAndQuotedScalarsInInsertionOrder) {
  Yaml doc = Yaml::map();
  Yaml items = Yaml::list();
  items.push(Yaml::str("a"));
  Yaml entry = Yaml::map();
  entry.set("name", "x").set("n", Yaml::integer(3)).set("on", Yaml::boolean(true));
  items.push(std::move(entry));
  doc.set("kind", "K")
      .set("items", std::move(items))
      .set("empty", Yaml::map())
      .set("none", Yaml::list());
  EXPECT_EQ(doc.render(),
            "kind: \"K\"\n"
            "items:\n"
            "  - \"a\"\n"
            "  - name: \"x\"\n"
            "    n: 3\n"
            "    on: true\n"
            "empty: {}\n"
            "none: []\n");
}

TEST(YamlOut, ScalarsAreQuotedSoNoTextReadsAsYaml) {
  EXPECT_EQ(quotedScalar("a: \"b\" # c\\\n"), R"("a: \"b\" # c\\\n")");
  EXPECT_EQ(quotedScalar(std::string("\x01", 1)), R"("\u0001")");
}

}  // namespace
}  // namespace gpua::native
