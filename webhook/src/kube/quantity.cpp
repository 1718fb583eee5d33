#include "kube/quantity.hpp"

#include <limits>

namespace gpua::kube {

namespace {

// GCC and Clang provide 128-bit integers; __extension__ keeps -pedantic quiet about them.
__extension__ typedef unsigned __int128 U128;

constexpr int64_t kNanoPerUnit = 1000000000;
constexpr int64_t kMaxUnits = std::numeric_limits<int64_t>::max();
// The largest magnitude in nano units: (2^63-1) units, which Kubernetes also treats as its cap.
constexpr U128 kMaxNano = static_cast<U128>(kMaxUnits) * kNanoPerUnit;

bool isDigit(char c) {
  return c >= '0' && c <= '9';
}

// What a suffix scales the number by: 10^decimalExp * 2^binaryExp.
struct Scale {
  int64_t decimalExp = 0;
  int binaryExp = 0;
};

// Kubernetes' suffixHandler.interpret: the SI tables first, then e/E with a signed integer.
std::optional<Scale> interpretSuffix(std::string_view s, QuantityError& why) {
  struct Entry {
    std::string_view suffix;
    Scale scale;
  };
  static constexpr Entry table[] = {
      {"n", {-9, 0}},  {"u", {-6, 0}},  {"m", {-3, 0}},  {"", {0, 0}},
      {"k", {3, 0}},   {"M", {6, 0}},   {"G", {9, 0}},   {"T", {12, 0}},
      {"P", {15, 0}},  {"E", {18, 0}},  {"Ki", {0, 10}}, {"Mi", {0, 20}},
      {"Gi", {0, 30}}, {"Ti", {0, 40}}, {"Pi", {0, 50}}, {"Ei", {0, 60}},
  };
  for (const auto& e : table)
    if (e.suffix == s) return e.scale;
  if (s.size() < 2 || (s[0] != 'e' && s[0] != 'E')) return std::nullopt;
  // Go's strconv.ParseInt: optional sign, decimal digits, must fit int64.
  std::string_view digits = s.substr(1);
  const bool minus = digits.front() == '-';
  if (digits.front() == '-' || digits.front() == '+') digits.remove_prefix(1);
  if (digits.empty()) return std::nullopt;
  int64_t exp = 0;
  bool beyondInt32 = false;
  for (char c : digits) {
    if (!isDigit(c)) return std::nullopt;
    if (exp > (kMaxUnits - (c - '0')) / 10) return std::nullopt;  // ParseInt fails: ErrSuffix
    exp = exp * 10 + (c - '0');
    beyondInt32 = beyondInt32 || exp > std::numeric_limits<int32_t>::max();
  }
  if (beyondInt32) {  // Kubernetes would truncate it to int32 and mean another number
    why = QuantityError::OutOfRange;
    return std::nullopt;
  }
  return Scale{minus ? -exp : exp, 0};
}

// The pieces of a quantity, split the way Kubernetes' parseQuantityString does.
struct Parts {
  bool negative = false;
  std::string_view whole;     // digits before the point
  std::string_view fraction;  // digits after it
  std::string_view suffix;
};

std::optional<Parts> split(std::string_view s) {
  Parts p;
  std::size_t i = 0;
  if (i < s.size() && (s[i] == '-' || s[i] == '+')) p.negative = s[i++] == '-';
  const std::size_t wholeStart = i;
  while (i < s.size() && isDigit(s[i])) ++i;
  p.whole = s.substr(wholeStart, i - wholeStart);
  if (i < s.size() && s[i] == '.') {
    const std::size_t fractionStart = ++i;
    while (i < s.size() && isDigit(s[i])) ++i;
    p.fraction = s.substr(fractionStart, i - fractionStart);
  }
  // The suffix: letters of the SI and exponent suffixes, an optional sign, then digits.
  const std::size_t suffixStart = i;
  while (i < s.size() && std::string_view("eEinumkKMGTP").find(s[i]) != std::string_view::npos) ++i;
  if (i < s.size() && (s[i] == '-' || s[i] == '+')) ++i;
  while (i < s.size() && isDigit(s[i])) ++i;
  if (i != s.size()) return std::nullopt;
  p.suffix = s.substr(suffixStart);
  return p;
}

// The digit at position i of whole followed by fraction.
char digitAt(const Parts& p, std::size_t i) {
  return i < p.whole.size() ? p.whole[i] : p.fraction[i - p.whole.size()];
}

// |value| in nano units, rounded up; nullopt above kMaxNano. The decimal point sits
// `pointAt` digits into whole+fraction once the suffix's power of ten is applied.
std::optional<U128> magnitudeNano(const Parts& p, const Scale& scale) {
  const int64_t length = static_cast<int64_t>(p.whole.size() + p.fraction.size());
  const int64_t pointAt = static_cast<int64_t>(p.whole.size()) + scale.decimalExp + 9;
  // The integer part of the nano value: the digits before the point, then zeros if the point
  // lies beyond them. Each step multiplies by ten, so a non-zero value overflows within ~30.
  U128 integer = 0;
  const int64_t integerDigits = pointAt < length ? pointAt : length;
  for (int64_t i = 0; i < integerDigits; ++i) {
    integer = integer * 10 + static_cast<unsigned>(digitAt(p, i) - '0');
    if (integer > kMaxNano) return std::nullopt;
  }
  for (int64_t i = length; i < pointAt && integer != 0; ++i) {
    integer *= 10;
    if (integer > kMaxNano) return std::nullopt;
  }
  const U128 factor = U128{1} << scale.binaryExp;
  if (integer > kMaxNano / factor) return std::nullopt;
  integer *= factor;
  // The fractional digits times 2^binaryExp, from the last digit up: `carry` ends as the whole
  // part of the product, `inexact` says whether anything is left below it (round up then).
  U128 carry = 0;
  bool inexact = false;
  const int64_t firstFraction = pointAt > 0 ? pointAt : 0;
  for (int64_t i = length - 1; i >= firstFraction; --i) {
    const U128 t = static_cast<unsigned>(digitAt(p, i) - '0') * factor + carry;
    inexact = inexact || t % 10 != 0;
    carry = t / 10;
  }
  // Zeros between the point and the first digit: 10^-19 * 2^60 < 1, so 19 of them leave no carry.
  for (int64_t zeros = pointAt < 0 ? -pointAt : 0; zeros > 0 && carry != 0; --zeros) {
    inexact = inexact || carry % 10 != 0;
    carry /= 10;
  }
  const U128 total = integer + carry + (inexact ? 1 : 0);
  if (total > kMaxNano) return std::nullopt;
  return total;
}

Quantity fromNano(U128 magnitude, bool negative) {
  const auto units = static_cast<int64_t>(magnitude / kNanoPerUnit);
  const auto nanos = static_cast<int32_t>(magnitude % kNanoPerUnit);
  if (!negative || magnitude == 0) return Quantity{units, nanos};
  if (nanos == 0) return Quantity{-units, 0};
  return Quantity{-units - 1, static_cast<int32_t>(kNanoPerUnit - nanos)};
}

// |q| in nano units and its sign.
U128 toNano(const Quantity& q, bool& negative) {
  negative = q.units < 0;
  if (!negative) return static_cast<U128>(q.units) * kNanoPerUnit + static_cast<U128>(q.nanos);
  // -(units + nanos/1e9) = (-units - 1) + (1e9 - nanos)/1e9 when nanos > 0.
  const U128 whole = static_cast<U128>(-(q.units + 1)) + 1;  // |units| without overflow
  return whole * kNanoPerUnit - static_cast<U128>(q.nanos);
}

// |q| rounded up to a multiple of `step` nano units, as a count of steps.
U128 roundedUp(const Quantity& q, int64_t step, bool& negative) {
  const U128 nano = toNano(q, negative);
  return (nano + static_cast<U128>(step - 1)) / static_cast<U128>(step);
}

}  // namespace

std::optional<int64_t> Quantity::milliValue() const {
  bool negative = false;
  const U128 milli = roundedUp(*this, 1000000, negative);
  if (milli > static_cast<U128>(kMaxUnits)) return std::nullopt;
  return negative ? -static_cast<int64_t>(milli) : static_cast<int64_t>(milli);
}

int64_t Quantity::value() const {
  bool negative = false;
  const auto units = static_cast<int64_t>(roundedUp(*this, kNanoPerUnit, negative));
  return negative ? -units : units;
}

std::optional<Quantity> parseQuantity(std::string_view text, QuantityError* why) {
  QuantityError error = QuantityError::Malformed;
  auto fail = [&]() -> std::optional<Quantity> {
    if (why != nullptr) *why = error;
    return std::nullopt;
  };
  if (text.empty()) return fail();
  const auto parts = split(text);
  if (!parts) return fail();
  const auto scale = interpretSuffix(parts->suffix, error);
  if (!scale) return fail();
  const auto nano = magnitudeNano(*parts, *scale);
  if (!nano) {
    error = QuantityError::OutOfRange;
    return fail();
  }
  return fromNano(*nano, parts->negative);
}

std::string toDecimalString(const Quantity& q) {
  bool negative = false;
  const U128 nano = toNano(q, negative);
  std::string out = negative ? "-" : "";
  out += std::to_string(static_cast<uint64_t>(nano / kNanoPerUnit));
  auto fraction = static_cast<int64_t>(nano % kNanoPerUnit);
  if (fraction == 0) return out;
  std::string digits = std::to_string(fraction);
  digits.insert(0, 9 - digits.size(), '0');
  while (digits.back() == '0') digits.pop_back();
  return out + "." + digits;
}

}  // namespace gpua::kube
