// The reference table of Kubernetes quantities, shared by the unit test and the quantity fuzz
// target. Expected values follow apimachinery's resource.ParseQuantity
// (k8s.io/apimachinery/pkg/api/resource/quantity.go): the exact value, rounded up to 1n. Where
// Kubernetes caps (above 2^63-1) or truncates (exponents beyond int32), the parser says
// OutOfRange instead.
#pragma once

#include "engine/pod/quantity.hpp"

namespace gpua::engine::reference {

struct Row {
  const char* text;
  const char* exact;  // toDecimalString of the parsed value
};

// Valid quantities and their exact values.
inline constexpr Row kValid[] = {
    {"0", "0"},
    {"1", "1"},
    {"+2", "2"},
    {"-1", "-1"},
    {"007", "7"},
    {"1.5", "1.5"},
    {"-1.5", "-1.5"},
    {"0.5", "0.5"},
    {"500m", "0.5"},
    {"1500m", "1.5"},
    {"100u", "0.0001"},
    {"1n", "0.000000001"},
    {"2000m", "2"},
    {"1k", "1000"},
    {"1.5k", "1500"},
    {"1M", "1000000"},
    {"1G", "1000000000"},
    {"2T", "2000000000000"},
    {"1P", "1000000000000000"},
    {"1E", "1000000000000000000"},
    {"1Ki", "1024"},
    {"1.5Ki", "1536"},
    {"0.5Ki", "512"},
    {"1Mi", "1048576"},
    {"1.1Mi", "1153433.6"},
    {"1Gi", "1073741824"},
    {"1Ti", "1099511627776"},
    {"1Pi", "1125899906842624"},
    {"1Ei", "1152921504606846976"},
    {"7Ei", "8070450532247928832"},
    {"1e3", "1000"},
    {"1E3", "1000"},
    {"1e+3", "1000"},
    {"1e-3", "0.001"},
    {"1.5e3", "1500"},
    {"0.5e3", "500"},
    {"12e-1", "1.2"},
    {"1e9", "1000000000"},
    {"1e18", "1000000000000000000"},
    {"1e0", "1"},
    {".5", "0.5"},
    {"1.", "1"},
    {"1.G", "1000000000"},
    {"9223372036854775807", "9223372036854775807"},
    {"9223372036854775.807k", "9223372036854775807"},
    // Finer than 1n rounds up (away from zero) to the next nano, as Kubernetes does.
    {"0.0000000001", "0.000000001"},
    {"1.0000000001", "1.000000001"},
    {"0.9999999999", "1"},
    {"-0.0000000001", "-0.000000001"},
    {"0.1n", "0.000000001"},
    {"1e-10", "0.000000001"},
    {"0.0000000001Ki", "0.000000103"},  // 1.024e-7
    {"1.0000000001Ki", "1024.000000103"},
    {"0e99", "0"},
    // What Go's parser tolerates: an empty number is 0.
    {".", "0"},
    {"+", "0"},
    {"-", "0"},
    {"k", "0"},
    {"Mi", "0"},
};

struct Bad {
  const char* text;
  QuantityError error;
};

inline constexpr Bad kInvalid[] = {
    {"", QuantityError::Malformed},
    {"abc", QuantityError::Malformed},
    {"aoeu", QuantityError::Malformed},
    {"1.1.M", QuantityError::Malformed},
    {"1+1.0M", QuantityError::Malformed},
    {"0.1mi", QuantityError::Malformed},
    {"0.1am", QuantityError::Malformed},
    {".5i", QuantityError::Malformed},
    {"1i", QuantityError::Malformed},
    {"-3.01i", QuantityError::Malformed},
    {"-3.01e-", QuantityError::Malformed},
    {" 1", QuantityError::Malformed},
    {"1 ", QuantityError::Malformed},
    {"1KiB", QuantityError::Malformed},
    {"1K", QuantityError::Malformed},
    {"1e", QuantityError::Malformed},
    {"1ee3", QuantityError::Malformed},
    {"1e3m", QuantityError::Malformed},
    {"1Ki5", QuantityError::Malformed},
    {"1m3", QuantityError::Malformed},
    {"--1", QuantityError::Malformed},
    {"1e99999999999999999999", QuantityError::Malformed},  // ParseInt fails in Go too
    {"0x10", QuantityError::Malformed},
    {"1,5", QuantityError::Malformed},
    {"9223372036854775808", QuantityError::OutOfRange},
    {"-9223372036854775808", QuantityError::OutOfRange},
    {"9223372036854775807.1", QuantityError::OutOfRange},
    {"8Ei", QuantityError::OutOfRange},
    {"10E", QuantityError::OutOfRange},
    {"1e19", QuantityError::OutOfRange},
    {"1e3000000000", QuantityError::OutOfRange},  // Kubernetes truncates it to int32
    {"99999999999999999999999999999999999999999", QuantityError::OutOfRange},
};

}  // namespace gpua::engine::reference
