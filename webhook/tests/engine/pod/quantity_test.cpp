// Kubernetes quantities against the reference table (quantity_reference.hpp); Value() and
// MilliValue() round up away from zero, as Kubernetes' do.
#include "engine/pod/quantity.hpp"

#include <gtest/gtest.h>

#include <string>

#include "quantity_reference.hpp"
#include "test_support.hpp"

namespace gpua::engine {
namespace {

using namespace reference;

TEST(Quantity, ReferenceTableValid) {
  for (const auto& row : kValid) {
    SCOPED_TRACE(row.text);
    const auto q = parseQuantity(row.text);
    ASSERT_TRUE(q.has_value());
    EXPECT_EQ(toDecimalString(*q), row.exact);
    EXPECT_GE(q->nanos, 0);
    EXPECT_LT(q->nanos, 1000000000);
  }
}

TEST(Quantity, ReferenceTableInvalid) {
  for (const auto& row : kInvalid) {
    SCOPED_TRACE(row.text);
    QuantityError why{};
    EXPECT_FALSE(parseQuantity(row.text, &why).has_value());
    EXPECT_EQ(why, row.error);
  }
}

TEST(Quantity, ComparesExactly) {
  EXPECT_EQ(*parseQuantity("500m"), *parseQuantity("0.5"));
  EXPECT_EQ(*parseQuantity("1Gi"), *parseQuantity("1073741824"));
  EXPECT_EQ(*parseQuantity("1e9"), *parseQuantity("1G"));
  EXPECT_LT(*parseQuantity("1G"), *parseQuantity("1Gi"));
  EXPECT_LT(*parseQuantity("-1.5"), *parseQuantity("-1"));
  EXPECT_LT(*parseQuantity("999m"), *parseQuantity("1"));
  EXPECT_LT(*parseQuantity("1"), *parseQuantity("1001m"));
}

TEST(Quantity, MilliValueAndValueRoundUpLikeKubernetes) {
  EXPECT_EQ(parseQuantity("500m")->milliValue(), 500);
  EXPECT_EQ(parseQuantity("1.5")->milliValue(), 1500);
  EXPECT_EQ(parseQuantity("1n")->milliValue(), 1);
  EXPECT_EQ(parseQuantity("1.0001")->milliValue(), 1001);
  EXPECT_EQ(parseQuantity("-1.5")->milliValue(), -1500);
  EXPECT_EQ(parseQuantity("-1.0001")->milliValue(), -1001);
  EXPECT_EQ(parseQuantity("9223372036854775")->milliValue(), 9223372036854775000);
  EXPECT_FALSE(parseQuantity("9223372036854776")->milliValue().has_value());
  EXPECT_EQ(parseQuantity("1.1")->value(), 2);
  EXPECT_EQ(parseQuantity("-1.1")->value(), -2);
  EXPECT_EQ(parseQuantity("1Gi")->value(), 1073741824);
  EXPECT_EQ(parseQuantity("9223372036854775807")->value(), 9223372036854775807);
  EXPECT_EQ(parseQuantity("9223372036854775806.5")->value(), 9223372036854775807);
  EXPECT_EQ(parseQuantity("-9223372036854775807")->value(), -9223372036854775807);
}

TEST(Quantity, FromJson) {
  using testing::parse;
  auto from = [](const std::string& json) {
    rapidjson::Document d = parse(R"({"v":)" + json + "}");
    const auto q = quantityFromJson(d["v"]);
    return q ? toDecimalString(*q) : std::string("invalid");
  };
  EXPECT_EQ(from(R"("1Gi")"), "1073741824");
  EXPECT_EQ(from(R"(" 2 ")"), "2");  // UnmarshalJSON trims spaces
  EXPECT_EQ(from("2"), "2");
  EXPECT_EQ(from("1.5"), "1.5");
  EXPECT_EQ(from("1e3"), "1000");
  EXPECT_EQ(from("-0.25"), "-0.25");
  EXPECT_EQ(from("18446744073709551615"), "invalid");
  EXPECT_EQ(from("-9223372036854775808"), "invalid");
  EXPECT_EQ(from("true"), "invalid");
  EXPECT_EQ(from("null"), "invalid");
  EXPECT_EQ(from(R"({})"), "invalid");
}

TEST(Quantity, WholeQuantitiesForGpus) {
  using testing::parse;
  auto whole = [](const std::string& json) {
    rapidjson::Document d = parse(R"({"v":)" + json + "}");
    return parseWholeQuantity(d["v"]);
  };
  EXPECT_EQ(whole(R"("1e3")"), 1000);
  EXPECT_EQ(whole(R"("2T")"), 2000000000000);
  EXPECT_EQ(whole(R"("1Ti")"), 1099511627776);
  EXPECT_EQ(whole(R"("2000m")"), 2);
  EXPECT_EQ(whole(R"("1.0")"), 1);
  EXPECT_EQ(whole(R"("0")"), 0);
  EXPECT_EQ(whole("4"), 4);
  EXPECT_EQ(whole(R"("9007199254740992")"), kMaxWholeQuantity);
  for (const char* bad : {R"("1.5")", R"("500m")", R"("-1")", R"("9007199254740993")", R"("8Ei")",
                          R"("1e30")", R"("abc")", "1.5", "-2", "true"})
    EXPECT_FALSE(whole(bad).has_value()) << bad;
}

TEST(Quantity, WholeValues) {
  auto q = [](const char* json) { return parseWholeQuantity(testing::parse(json)); };
  EXPECT_EQ(q("2"), 2);
  EXPECT_EQ(q(R"("2")"), 2);
  EXPECT_EQ(q(R"("1k")"), 1000);
  EXPECT_EQ(q(R"("3000m")"), 3);
  EXPECT_EQ(q(R"("1.5k")"), 1500);
  EXPECT_EQ(q("4.0"), 4);
  EXPECT_FALSE(q(R"("0.5")"));
  EXPECT_FALSE(q(R"("500m")"));
  EXPECT_FALSE(q("-1"));
  EXPECT_FALSE(q(R"("")"));
  EXPECT_FALSE(q(R"("1x")"));
  EXPECT_FALSE(q(R"("99999999999999999999")"));
  EXPECT_FALSE(q("1e300"));
  EXPECT_FALSE(q("null"));
}

}  // namespace
}  // namespace gpua::engine
