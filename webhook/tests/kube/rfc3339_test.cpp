#include "kube/rfc3339.hpp"

#include <gtest/gtest.h>

namespace gpua::kube {
namespace {

TEST(Rfc3339, ParsesKubernetesTimestamps) {
  EXPECT_EQ(parseRfc3339("1970-01-01T00:00:00Z"), 0.0);
  EXPECT_EQ(parseRfc3339("2026-12-01T08:40:00Z"), 1796114400.0);
  EXPECT_EQ(parseRfc3339("2000-02-29T12:00:00Z"), 951825600.0);
  EXPECT_EQ(parseRfc3339("2026-12-01T10:40:00+02:00"), 1796114400.0);
  EXPECT_EQ(parseRfc3339("2026-12-01T07:40:00-01:00"), 1796114400.0);
  EXPECT_NEAR(*parseRfc3339("2026-12-01T08:40:00.250000Z"), 1796114400.25, 1e-6);
}

TEST(Rfc3339, RejectsWhatIsNotADateTime) {
  for (const char* bad :
       {"", "2026-12-01", "2026-13-01T00:00:00Z", "2026-12-01T24:00:00Z", "2026-12-01T00:00:00",
        "2026-12-01T00:00:00.Z", "2026-12-01T00:00:00+0200", "20x6-12-01T00:00:00Z",
        "2026-12-01T00:00:00Zjunk"})
    EXPECT_EQ(parseRfc3339(bad), std::nullopt) << bad;
}

}  // namespace
}  // namespace gpua::kube
