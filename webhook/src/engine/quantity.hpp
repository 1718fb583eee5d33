// Kubernetes resource quantities (k8s.io/apimachinery resource.Quantity), parsed exactly.
//
// Grammar (apimachinery quantity.go):
//   <quantity> ::= <sign>? <number> <suffix>
//   <number>   ::= <digits> | <digits>.<digits> | <digits>. | .<digits>
//   <suffix>   ::= n | u | m | "" | k | M | G | T | P | E          (decimal SI)
//                | Ki | Mi | Gi | Ti | Pi | Ei                      (binary SI)
//                | e<sign>?<digits> | E<sign>?<digits>              (decimal exponent)
// Like Kubernetes, a value finer than 1n is rounded up (away from zero) to 1n, and the parts the
// Go parser tolerates ("1.", ".5", "+", a bare suffix such as "k") mean what they mean there.
// Unlike Kubernetes, which silently caps a value above 2^63-1 and truncates an exponent to 32
// bits, both are reported as out of range here.
#pragma once

#include <rapidjson/document.h>

#include <compare>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace gpua::engine {

// An exact quantity: units + nanos / 1e9, with units = floor(value) and 0 <= nanos < 1e9, so
// that the default ordering compares values ("500m" == "0.5" < "1").
struct Quantity {
  int64_t units = 0;
  int32_t nanos = 0;

  static Quantity ofUnits(int64_t u) { return Quantity{u, 0}; }
  friend auto operator<=>(const Quantity&, const Quantity&) = default;

  bool whole() const { return nanos == 0; }
  bool negative() const { return units < 0; }
  // Rounded up (away from zero) to thousandths, as Kubernetes' MilliValue(): "1.5" -> 1500,
  // "1n" -> 1. nullopt when the result does not fit int64 (above about 9.2e15 units).
  std::optional<int64_t> milliValue() const;
  // Rounded up (away from zero) to a whole number, as Kubernetes' Value(): "1.5" -> 2. Always
  // fits, since a parsed quantity lies within +-(2^63-1).
  int64_t value() const;
};

enum class QuantityError {
  Malformed,   // not the grammar above
  OutOfRange,  // |value| > 2^63-1, or an exponent beyond 32 bits
};

// Parses the quantity grammar exactly; no surrounding whitespace.
std::optional<Quantity> parseQuantity(std::string_view text, QuantityError* why = nullptr);

// A quantity as found in a pod: a JSON string (trimmed of ASCII whitespace, as Quantity's
// UnmarshalJSON does) or a JSON number (read as its shortest decimal text). Anything else is
// Malformed.
std::optional<Quantity> quantityFromJson(const rapidjson::Value& v, QuantityError* why = nullptr);

// Plain decimal text of the exact value: "1.5", "-0.25", "1000". For messages and tests.
std::string toDecimalString(const Quantity& q);

// The largest whole quantity an extended resource (a GPU count) may have here.
inline constexpr int64_t kMaxWholeQuantity = int64_t{1} << 53;

// The whole, non-negative value of an extended-resource quantity ("2", 2, "1k", "2000m", "1e3",
// "2T", "1Ti"); nullopt when it is fractional ("0.5", "500m"), negative, malformed or larger
// than kMaxWholeQuantity.
std::optional<int64_t> parseWholeQuantity(const rapidjson::Value& v);

}  // namespace gpua::engine
