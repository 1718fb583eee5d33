#include "cluster/reservation_store.hpp"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <cmath>
#include <ctime>
#include <fstream>

#include "cluster/blocking_call.hpp"
#include "kube/json.hpp"
#include "kube/json_parse.hpp"
#include "kube/rfc3339.hpp"

namespace gpua::cluster {

namespace json = kube::json;
using Writer = rapidjson::Writer<rapidjson::StringBuffer>;

namespace {

void writeString(Writer& w, std::string_view s) {
  w.String(s.data(), static_cast<rapidjson::SizeType>(s.size()));
}

void writeEntry(Writer& w, const engine::Reservation& r) {
  w.StartObject();
  w.Key("pod");
  writeString(w, r.pod);
  w.Key("namespace");
  writeString(w, r.namespaceName);
  w.Key("class");
  writeString(w, r.className);
  w.Key("gpuEquivalents");
  w.Double(r.gpuEquivalents);
  w.Key("units");
  w.StartObject();
  for (const auto& [resource, n] : r.units) {
    writeString(w, resource);
    w.Int64(n);
  }
  w.EndObject();
  w.Key("quotas");
  w.StartArray();
  for (const auto& q : r.quotas) writeString(w, q);
  w.EndArray();
  w.Key("since");
  writeString(w, rfc3339Millis(r.sinceUnixMs));
  w.Key("replica");
  writeString(w, r.replica);
  w.EndObject();
}

std::string readEntry(const rapidjson::Value& v, engine::Reservation& r) {
  if (!v.IsObject()) return "not a JSON object";
  r.pod = json::stringMember(&v, "pod");
  r.namespaceName = json::stringMember(&v, "namespace");
  r.className = json::stringMember(&v, "class");
  if (r.namespaceName.empty()) return "\"namespace\" is missing";
  const auto* ge = json::member(v, "gpuEquivalents");
  if (ge == nullptr || !ge->IsNumber() || ge->GetDouble() < 0)
    return "\"gpuEquivalents\" is not a non-negative number";
  r.gpuEquivalents = ge->GetDouble();
  if (const auto* units = json::objectMember(&v, "units")) {
    for (const auto& m : units->GetObject()) {
      if (!m.value.IsInt64() || m.value.GetInt64() < 0)
        return "units of \"" + std::string(json::view(m.name)) + "\" is not a count";
      r.units.emplace(std::string(json::view(m.name)), m.value.GetInt64());
    }
  }
  if (const auto* quotas = json::arrayMember(&v, "quotas"))
    for (const auto& q : quotas->GetArray())
      if (q.IsString()) r.quotas.emplace_back(json::view(q));
  const auto since = kube::parseRfc3339(json::stringMember(&v, "since"));
  if (!since) return "\"since\" is not an RFC 3339 time";
  r.sinceUnixMs = static_cast<int64_t>(std::llround(*since * 1000.0));
  r.replica = json::stringMember(&v, "replica");
  return {};
}

}  // namespace

std::string rfc3339Millis(int64_t unixMs) {
  const std::time_t seconds = static_cast<std::time_t>(unixMs / 1000);
  std::tm tm{};
  gmtime_r(&seconds, &tm);
  char buf[40];
  const auto n = std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
  char ms[8];
  std::snprintf(ms, sizeof ms, ".%03dZ", static_cast<int>(unixMs % 1000));
  return std::string(buf, n) + ms;
}

std::string encodeReservation(const engine::Reservation& r) {
  rapidjson::StringBuffer out;
  Writer w(out);
  writeEntry(w, r);
  return {out.GetString(), out.GetSize()};
}

std::variant<engine::Reservation, std::string> decodeReservation(std::string_view podUid,
                                                                 std::string_view text) {
  rapidjson::Document d;
  if (const auto parsed = kube::parseJson(text, d); !parsed.ok()) return parsed.message;
  engine::Reservation r;
  r.podUid = podUid;
  if (auto error = readEntry(d, r); !error.empty()) return error;
  return r;
}

DecodedBook decodeReservationConfigMap(std::string_view text) {
  rapidjson::Document d;
  const std::string where = "ConfigMap " + std::string(kReservationConfigMap);
  if (const auto parsed = kube::parseJson(text, d); !parsed.ok())
    return {{}, where + ": " + parsed.message};
  DecodedBook out;
  out.book.version = json::path(d, "metadata", "resourceVersion");
  if (out.book.version.empty()) return {{}, where + ": metadata.resourceVersion is missing"};
  const auto* data = json::objectMember(&d, "data");
  if (data == nullptr) return out;  // an empty ConfigMap: no reservations
  for (const auto& m : data->GetObject()) {
    const auto key = json::view(m.name);
    auto entry = decodeReservation(key, json::view(m.value));
    if (auto* error = std::get_if<std::string>(&entry))
      return {{}, where + ": data." + std::string(key) + ": " + *error};
    out.book.entries.push_back(std::move(std::get<engine::Reservation>(entry)));
  }
  return out;
}

std::string encodeReservationConfigMap(std::string_view namespaceName, std::string_view version,
                                       const std::vector<engine::Reservation>& entries) {
  rapidjson::StringBuffer out;
  Writer w(out);
  w.StartObject();
  w.Key("apiVersion");
  w.String("v1");
  w.Key("kind");
  w.String("ConfigMap");
  w.Key("metadata");
  w.StartObject();
  w.Key("name");
  writeString(w, kReservationConfigMap);
  w.Key("namespace");
  writeString(w, namespaceName);
  w.Key("labels");
  w.StartObject();
  w.Key("app.kubernetes.io/name");
  w.String("gpu-admission");
  w.EndObject();
  if (!version.empty()) {
    w.Key("resourceVersion");
    writeString(w, version);
  }
  w.EndObject();
  w.Key("data");
  w.StartObject();
  for (const auto& r : entries) {
    writeString(w, r.podUid);
    writeString(w, encodeReservation(r));
  }
  w.EndObject();
  w.EndObject();
  return {out.GetString(), out.GetSize()};
}

std::string serviceAccountNamespace(const std::string& serviceAccountDir) {
  const std::string path = serviceAccountDir + "/namespace";
  std::ifstream in(path);
  std::string ns;
  if (!(in >> ns) || ns.empty())
    throw ClusterConfigError("cannot read the webhook's namespace from " + path +
                             ": set --reservation-namespace");
  return ns;
}

ConfigMapReservationStore::ConfigMapReservationStore(ApiConfig api, std::string namespaceName)
    : client_(std::move(api)), namespace_(std::move(namespaceName)) {}

std::string ConfigMapReservationStore::where() const {
  return "ConfigMap " + namespace_ + "/" + std::string(kReservationConfigMap);
}

ApiResponse ConfigMapReservationStore::call(const std::string& method, const std::string& target,
                                            std::string body,
                                            std::chrono::steady_clock::time_point deadline) {
  using namespace std::chrono;
  const auto left = duration_cast<milliseconds>(deadline - steady_clock::now());
  if (left <= milliseconds(0)) return {0, "no time left before the webhook's deadline"};
  return callBlocking(client_, method, target, std::move(body), left);
}

std::string ConfigMapReservationStore::failure(const std::string& method,
                                               const ApiResponse& r) const {
  if (r.status == 0) return method + " " + where() + ": " + r.body;
  std::string what = method + " " + where() + " answered " + std::to_string(r.status);
  if (r.status == 403)
    what +=
        ": grant the webhook's service account get, create and update on configmaps in "
        "namespace " +
        namespace_ + " (deploy/base/reservations-rbac.yaml)";
  const auto message = r.message();
  return message.empty() ? what : what + ": " + message;
}

engine::ReservationStore::ReadResult ConfigMapReservationStore::read(
    std::chrono::steady_clock::time_point deadline) {
  const auto r =
      call("GET",
           "/api/v1/namespaces/" + namespace_ + "/configmaps/" + std::string(kReservationConfigMap),
           {}, deadline);
  if (r.status == 404) return engine::ReservationBook{};  // created by the first write
  if (r.status != 200) return Failure{failure("GET", r)};
  auto decoded = decodeReservationConfigMap(r.body);
  if (!decoded.error.empty()) return Failure{decoded.error};
  return std::move(decoded.book);
}

engine::ReservationStore::WriteResult ConfigMapReservationStore::write(
    const std::string& version, const std::vector<engine::Reservation>& entries,
    std::chrono::steady_clock::time_point deadline) {
  const std::string collection = "/api/v1/namespaces/" + namespace_ + "/configmaps";
  const bool create = version.empty();
  const std::string method = create ? "POST" : "PUT";
  const auto r =
      call(method, create ? collection : collection + "/" + std::string(kReservationConfigMap),
           encodeReservationConfigMap(namespace_, version, entries), deadline);
  // 409: a newer version (PUT) or it exists now (POST). 404 on PUT: someone deleted it since
  // it was read; the next read finds none and creates it.
  if (r.status == 409 || (r.status == 404 && !create)) return Conflict{};
  if (r.status != 200 && r.status != 201) return Failure{failure(method, r)};
  rapidjson::Document d;
  if (!kube::parseJson(r.body, d).ok()) return Failure{method + " " + where() + ": invalid JSON"};
  return Written{std::string(json::path(d, "metadata", "resourceVersion"))};
}

}  // namespace gpua::cluster
