// Standard (RFC 4648 section 4) padded base64: the encoding the apiserver expects for
// AdmissionResponse.patch. Decoding is here for tests and for the CLI showing a response's patch.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace gpua::kube {

// Appends the padded base64 encoding of `bytes` to `out`.
void base64Append(std::string& out, std::string_view bytes);

std::string base64Encode(std::string_view bytes);

// nullopt on any character outside the alphabet, bad padding or a length not a multiple of 4.
std::optional<std::string> base64Decode(std::string_view text);

}  // namespace gpua::kube
