// Exact-path routing with per-method handlers. Unknown paths get 404, a known path with a
// method it does not serve gets 405 with an Allow header, so every miss names the problem.
#pragma once

#include <map>
#include <string>

#include "server/http_types.hpp"

namespace gpua::server {

class Router {
 public:
  // Registers `handler` for `method` on `path` (exact match, query ignored). A later
  // registration of the same pair replaces the earlier one.
  Router& add(std::string method, std::string path, Handler handler);

  // Dispatches the request; never throws for an unknown route. Misses carry errorKind
  // "unknown-path" (404) or "method-not-allowed" (405).
  HttpResponse route(const HttpRequest& request) const;

 private:
  std::map<std::string, std::map<std::string, Handler>, std::less<>> routes_;  // path -> method
};

}  // namespace gpua::server
