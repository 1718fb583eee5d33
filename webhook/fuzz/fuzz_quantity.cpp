// The Kubernetes quantity parser against the reference table and against a second, deliberately
// naive implementation (decimal strings, digit by digit) for every input of up to 64 bytes.
// Any disagreement, a value outside the documented range, or a round trip that changes the value
// aborts.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>

#include "engine/pod/quantity.hpp"
#include "quantity_reference.hpp"

namespace {

using gpua::engine::parseQuantity;
using gpua::engine::Quantity;
using gpua::engine::QuantityError;
using gpua::engine::toDecimalString;

[[noreturn]] void fail(std::string_view input, const std::string& what) {
  std::fprintf(stderr, "quantity oracle: input \"%.*s\": %s\n", static_cast<int>(input.size()),
               input.data(), what.c_str());
  std::abort();
}

bool digit(char c) {
  return c >= '0' && c <= '9';
}

// Decimal string arithmetic on non-negative integers without leading zeros ("0" for zero).
std::string stripZeros(std::string s) {
  const auto first = s.find_first_not_of('0');
  return first == std::string::npos ? "0" : s.substr(first);
}

std::string doubled(const std::string& s) {
  std::string out(s.size() + 1, '0');
  int carry = 0;
  for (std::size_t i = s.size(); i-- > 0;) {
    const int d = (s[i] - '0') * 2 + carry;
    out[i + 1] = static_cast<char>('0' + d % 10);
    carry = d / 10;
  }
  out[0] = static_cast<char>('0' + carry);
  return stripZeros(out);
}

std::string incremented(std::string s) {
  for (std::size_t i = s.size(); i-- > 0;) {
    if (s[i] != '9') {
      ++s[i];
      return s;
    }
    s[i] = '0';
  }
  return "1" + s;
}

bool greater(const std::string& a, const std::string& b) {
  return a.size() != b.size() ? a.size() > b.size() : a > b;
}

struct Expected {
  std::optional<std::string> exact;  // toDecimalString form
  QuantityError error = QuantityError::Malformed;
};

Expected malformed() {
  return {};
}
Expected outOfRange() {
  return {std::nullopt, QuantityError::OutOfRange};
}

// The grammar read the plain way, then value = digits * 10^exp10 * 2^exp2 in decimal strings.
Expected reference(std::string_view s) {
  if (s.empty()) return malformed();
  std::size_t i = 0;
  bool negative = false;
  if (s[i] == '+' || s[i] == '-') negative = s[i++] == '-';
  std::string digits;
  while (i < s.size() && digit(s[i])) digits += s[i++];
  int64_t exp10 = 0;
  if (i < s.size() && s[i] == '.') {
    ++i;
    while (i < s.size() && digit(s[i])) {
      digits += s[i++];
      --exp10;
    }
  }
  const std::string_view suffix = s.substr(i);
  int exp2 = 0;
  static const std::pair<std::string_view, int> decimal[] = {
      {"n", -9}, {"u", -6}, {"m", -3}, {"", 0},   {"k", 3},
      {"M", 6},  {"G", 9},  {"T", 12}, {"P", 15}, {"E", 18}};
  static const std::pair<std::string_view, int> binary[] = {{"Ki", 10}, {"Mi", 20}, {"Gi", 30},
                                                            {"Ti", 40}, {"Pi", 50}, {"Ei", 60}};
  bool known = false;
  for (const auto& [name, e] : decimal)
    if (suffix == name) exp10 += e, known = true;
  for (const auto& [name, e] : binary)
    if (suffix == name) exp2 = e, known = true;
  if (!known) {
    if (suffix.size() < 2 || (suffix[0] != 'e' && suffix[0] != 'E')) return malformed();
    std::string_view e = suffix.substr(1);
    const bool minus = e[0] == '-';
    if (e[0] == '+' || e[0] == '-') e.remove_prefix(1);
    if (e.empty()) return malformed();
    for (char c : e)
      if (!digit(c)) return malformed();
    const std::string magnitude = stripZeros(std::string(e));
    if (greater(magnitude, "9223372036854775807")) return malformed();  // Go's ParseInt fails
    if (greater(magnitude, "2147483647")) return outOfRange();          // beyond int32
    const int64_t value = std::stoll(magnitude);
    exp10 += minus ? -value : value;
  }
  std::string x = stripZeros(digits.empty() ? "0" : digits);
  if (x == "0") return {std::string("0")};
  for (int k = 0; k < exp2; ++k) x = doubled(x);
  const int64_t shift = exp10 + 9;  // to nano units
  std::string nano;
  if (shift >= 0) {
    if (static_cast<int64_t>(x.size()) + shift > 40) return outOfRange();
    nano = x + std::string(static_cast<std::size_t>(shift), '0');
  } else {
    const int64_t keep = static_cast<int64_t>(x.size()) + shift;
    nano = keep > 0 ? x.substr(0, static_cast<std::size_t>(keep)) : "0";
    const std::string rest = keep > 0 ? x.substr(static_cast<std::size_t>(keep)) : x;
    if (rest.find_first_not_of('0') != std::string::npos) nano = incremented(nano);
    nano = stripZeros(nano);
  }
  if (greater(nano, "9223372036854775807000000000")) return outOfRange();
  if (nano.size() < 10) nano.insert(0, 10 - nano.size(), '0');
  std::string whole = stripZeros(nano.substr(0, nano.size() - 9));
  std::string fraction = nano.substr(nano.size() - 9);
  while (!fraction.empty() && fraction.back() == '0') fraction.pop_back();
  std::string out = (negative && (whole != "0" || !fraction.empty()) ? "-" : "") + whole;
  if (!fraction.empty()) out += "." + fraction;
  return {out};
}

void check(std::string_view input) {
  QuantityError why{};
  const auto q = parseQuantity(input, &why);
  if (q) {
    if (q->nanos < 0 || q->nanos >= 1000000000) fail(input, "nanos out of [0, 1e9)");
    const std::string text = toDecimalString(*q);
    const auto again = parseQuantity(text);
    if (!again || *again != *q) fail(input, "round trip through \"" + text + "\" changed it");
    const int64_t v = q->value();
    if ((q->whole() && v != q->units) ||
        (!q->whole() && v != (q->negative() ? q->units : q->units + 1)))
      fail(input, "value() is not the value rounded away from zero");
    if (const auto milli = q->milliValue();
        milli && (*milli / 1000 > v + 1 || *milli / 1000 < v - 1))
      fail(input, "milliValue() disagrees with value()");
  }
  if (input.size() > 64) return;  // the naive reference is quadratic
  const Expected want = reference(input);
  if (want.exact.has_value() != q.has_value())
    fail(input, q ? "parsed as " + toDecimalString(*q) + " but the reference rejects it"
                  : "rejected but the reference reads " + *want.exact);
  if (q && toDecimalString(*q) != *want.exact)
    fail(input, "parsed as " + toDecimalString(*q) + ", reference " + *want.exact);
  if (!q && why != want.error) fail(input, "wrong error kind");
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  for (const auto& row : gpua::engine::reference::kValid) {
    const auto q = parseQuantity(row.text);
    if (!q || toDecimalString(*q) != row.exact) fail(row.text, "reference table row fails");
    check(row.text);
  }
  for (const auto& row : gpua::engine::reference::kInvalid) {
    QuantityError why{};
    if (parseQuantity(row.text, &why) || why != row.error) fail(row.text, "reference table row");
    check(row.text);
  }
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  check(std::string_view(reinterpret_cast<const char*>(data), size));
  return 0;
}
