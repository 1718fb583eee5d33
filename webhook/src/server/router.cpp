#include "server/router.hpp"

#include <utility>

namespace gpua::server {

Router& Router::add(std::string method, std::string path, Handler handler) {
  routes_[std::move(path)][std::move(method)] = std::move(handler);
  return *this;
}

HttpResponse Router::route(const HttpRequest& request) const {
  const auto byPath = routes_.find(request.path);
  if (byPath == routes_.end())
    return HttpResponse::text(404, "unknown path \"" + request.path + "\"", "unknown-path");

  const auto& methods = byPath->second;
  const auto handler = methods.find(request.method);
  if (handler != methods.end()) return handler->second(request);

  std::string allow;
  for (const auto& [m, _] : methods) allow += (allow.empty() ? "" : ", ") + m;
  auto r = HttpResponse::text(
      405,
      "method " + request.method + " not allowed on " + request.path + " (allowed: " + allow + ")",
      "method-not-allowed");
  r.headers.emplace_back("Allow", allow);
  return r;
}

}  // namespace gpua::server
