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
//
// The parser lives in the floor (kube/) because both the loader (quantities written in a
// policy, e.g. cpu per GPU) and the engine (quantities in pods) read quantities;
// engine/pod/quantity.hpp adds the JSON side and re-exports these names into gpua::engine.
#pragma once

#include <compare>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace gpua::kube {

// An exact quantity: units + nanos / 1e9, with units = floor(value) and 0 <= nanos < 1e9, so
// that the default ordering compares values ("500m" == "0.5" < "1").
struct Quantity {
  int64_t units = 0;
  int32_t nanos = 0;

  static Quantity ofUnits(int64_t u) { return Quantity{u, 0}; }
  friend auto operator<=>(const Quantity&, const Quantity&) = default;

  bool whole() const { return nanos == 0; }
  bool negative() const { return units < 0; }
  bool zero() const { return units == 0 && nanos == 0; }
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

// Plain decimal text of the exact value: "1.5", "-0.25", "1000". For messages and tests.
std::string toDecimalString(const Quantity& q);

}  // namespace gpua::kube
