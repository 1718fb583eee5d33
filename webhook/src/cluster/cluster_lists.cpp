#include "cluster/cluster_lists.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>

#include <exception>
#include <string>

#include "cluster/api_client.hpp"
#include "kube/json.hpp"
#include "kube/json_parse.hpp"
#include "cluster/list_watch.hpp"

namespace gpua::cluster {

namespace json = kube::json;

namespace asio = boost::asio;

namespace {

// `resource` under /api/v1, or "<group>/<version>/<plural>" under /apis. With `kind`, each item
// gets it (items of a typed list carry none).
asio::awaitable<void> listInto(ApiClient& client, const std::string& resource,
                               std::chrono::milliseconds timeout, int pageSize,
                               rapidjson::Document& out, const char* kind = nullptr) {
  std::string next;
  const std::string base =
      resource.find('/') == std::string::npos ? "/api/v1/" + resource : "/apis/" + resource;
  do {
    std::string target = base + "?limit=" + std::to_string(pageSize);
    if (!next.empty()) target += "&continue=" + urlEncode(next);
    const auto body = co_await client.get(target, timeout);
    rapidjson::Document page;
    if (!kube::parseJson(body, page).ok() || !page.IsObject())
      throw std::runtime_error("malformed " + resource + " list from " + client.config().url());
    if (const auto* items = json::member(page, "items"); items != nullptr && items->IsArray())
      for (const auto& item : items->GetArray()) {
        rapidjson::Value copy(item, out.GetAllocator());
        if (kind != nullptr && copy.IsObject() && !copy.HasMember("kind"))
          copy.AddMember("kind", rapidjson::StringRef(kind), out.GetAllocator());
        out.PushBack(std::move(copy), out.GetAllocator());
      }
    next = std::string(json::path(page, "metadata", "continue"));
  } while (!next.empty());
}

// A plain function, not a capturing lambda: the coroutine frame keeps its parameters, while a
// lambda's captures die with the temporary closure.
asio::awaitable<void> listAll(ApiClient& client, std::chrono::milliseconds timeout, int pageSize,
                              ClusterObjects& objects) {
  co_await listInto(client, "pods", timeout, pageSize, objects.pods);
  co_await listInto(client, "namespaces", timeout, pageSize, objects.namespaces);
  co_await listInto(client, "nodes", timeout, pageSize, objects.nodes);
  if (!objects.dra) co_return;
  co_await listInto(client, "resource.k8s.io/v1/deviceclasses", timeout, pageSize, *objects.dra,
                    "DeviceClass");
  co_await listInto(client, "resource.k8s.io/v1/resourceclaims", timeout, pageSize, *objects.dra,
                    "ResourceClaim");
  co_await listInto(client, "resource.k8s.io/v1/resourceslices", timeout, pageSize, *objects.dra,
                    "ResourceSlice");
}

}  // namespace

ClusterObjects listClusterObjects(const ApiConfig& api, std::chrono::milliseconds requestTimeout,
                                  int pageSize, bool withDra) {
  ClusterObjects objects;
  if (withDra) objects.dra.emplace(rapidjson::kArrayType);
  ApiClient client(api);
  asio::io_context io(1);
  std::exception_ptr failure;
  asio::co_spawn(io, listAll(client, requestTimeout, pageSize, objects),
                 [&failure](std::exception_ptr e) { failure = e; });
  io.run();
  if (failure) std::rethrow_exception(failure);
  return objects;
}

}  // namespace gpua::cluster
