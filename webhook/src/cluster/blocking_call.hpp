// One request to the apiserver from a thread that runs no io_context (a webhook handler, the
// CLI): the client's coroutine runs on an io_context of its own until it answers.
#pragma once

#include <chrono>
#include <string>

#include "cluster/api_client.hpp"

namespace gpua::cluster {

// A transport failure (connect, TLS, timeout) is status 0 with the error as the body; an HTTP
// error is its status and body, as the apiserver sent them.
ApiResponse callBlocking(ApiClient& client, const std::string& method, const std::string& target,
                         std::string body, std::chrono::milliseconds timeout);

}  // namespace gpua::cluster
