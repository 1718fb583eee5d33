// DeviceClass and request selectors (CEL, resource.k8s.io/v1) read where their meaning is
// exact: a conjunction (&&) of `device.driver == 'd'` and attribute comparisons
// `device.attributes['<domain>'].<name> == 'v'` / `in ['a', 'b']` (either quote, `.name` or
// `['name']`). Any other form is unknown, never guessed: there is no CEL library for C++ here.
// Used by claim resolution (which profile a request pins) and DRA supply (which class a device
// of a ResourceSlice is in).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpua::engine {

// A device's attributes, names qualified by their domain ("gpu.nvidia.com/profile"), values as
// text.
using DeviceAttributes = std::map<std::string, std::string, std::less<>>;

// The values `expression` pins for `qualifiedAttribute` ("gpu.nvidia.com/profile"): those of
// `== 'v'` or `in [...]`, conjoined with anything else. Empty when it does not pin it or has a
// form that cannot be judged exactly ('||', '!').
std::vector<std::string> pinnedAttributeValues(std::string_view expression,
                                               std::string_view qualifiedAttribute);

// Whether a device of `driver` with `attributes` satisfies `expression`; nullopt when some
// conjunct has a form this reader does not judge. A missing attribute fails the comparison, as
// CEL's evaluation error makes the apiserver skip the device.
std::optional<bool> selectorHolds(std::string_view expression, std::string_view driver,
                                  const DeviceAttributes& attributes);

// All of `expressions` hold (a DeviceClass's or a request's selectors are ANDed); nullopt when
// one is unknown and none is false.
std::optional<bool> selectorsHold(const std::vector<std::string>& expressions,
                                  std::string_view driver, const DeviceAttributes& attributes);

}  // namespace gpua::engine
