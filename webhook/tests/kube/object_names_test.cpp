#include "kube/object_names.hpp"

#include <gtest/gtest.h>

#include <string>

namespace gpua::kube {
namespace {

TEST(ObjectNames, DnsLabelIsWhatANamespaceMayBeCalled) {
  for (const char* ok : {"a", "ml", "team-a", "0", "a1-b2", "kube-system"})
    EXPECT_TRUE(isDnsLabel(ok)) << ok;
  EXPECT_TRUE(isDnsLabel(std::string(63, 'a')));
  EXPECT_FALSE(isDnsLabel(std::string(64, 'a')));
  for (const char* bad : {"", "-a", "a-", "A", "team_a", "a.b", "a b", "ä"})
    EXPECT_FALSE(isDnsLabel(bad)) << bad;
}

TEST(ObjectNames, DnsSubdomainIsWhatAPodMayBeCalled) {
  for (const char* ok : {"a", "trainer-0", "a.b", "web-7d4b9c.x-1"})
    EXPECT_TRUE(isDnsSubdomain(ok)) << ok;
  std::string longest;
  while (longest.size() + 64 <= 253) longest += std::string(63, 'a') + ".";
  longest += std::string(253 - longest.size(), 'b');
  EXPECT_TRUE(isDnsSubdomain(longest));
  EXPECT_FALSE(isDnsSubdomain(longest + "b"));
  for (const char* bad : {"", ".", "a.", ".a", "a..b", "a.-b", "A.b", "a_b"})
    EXPECT_FALSE(isDnsSubdomain(bad)) << bad;
}

}  // namespace
}  // namespace gpua::kube
