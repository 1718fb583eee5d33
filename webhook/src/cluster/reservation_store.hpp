// Quota reservations kept in one ConfigMap in the webhook's namespace, written with the
// apiserver's optimistic concurrency (PUT with metadata.resourceVersion; 409 = someone wrote
// first). One data key per reserved pod (its uid), the value one JSON object, so
// `kubectl get configmap gpu-admission-quota-reservations -o yaml` shows what is reserved, for
// which pod, by which replica and since when (docs/runbook.md).
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <string_view>
#include <variant>

#include "cluster/api_client.hpp"
#include "engine/context/reservations.hpp"

namespace gpua::cluster {

inline constexpr std::string_view kReservationConfigMap = "gpu-admission-quota-reservations";

// The ConfigMap as stored: the book, or an error naming the key and what is wrong with it.
struct DecodedBook {
  engine::ReservationBook book;
  std::string error;  // empty when decoded
};
DecodedBook decodeReservationConfigMap(std::string_view json);

// The ConfigMap object to PUT (version set) or POST (version "").
std::string encodeReservationConfigMap(std::string_view namespaceName, std::string_view version,
                                       const std::vector<engine::Reservation>& entries);

// One entry's JSON value, and back (nullopt names nothing: the caller says which key).
std::string encodeReservation(const engine::Reservation& r);
std::variant<engine::Reservation, std::string> decodeReservation(std::string_view podUid,
                                                                 std::string_view json);

// "2026-12-04T09:40:00.123Z"
std::string rfc3339Millis(int64_t unixMs);

// The namespace of a pod's service account (`<dir>/namespace`), where the webhook runs; throws
// ClusterConfigError naming the file when it cannot be read.
std::string serviceAccountNamespace(const std::string& serviceAccountDir);

class ConfigMapReservationStore final : public engine::ReservationStore {
 public:
  // Throws ClusterConfigError when the CA or client certificate cannot be loaded.
  ConfigMapReservationStore(ApiConfig api, std::string namespaceName);

  ReadResult read(std::chrono::steady_clock::time_point deadline) override;
  WriteResult write(const std::string& version, const std::vector<engine::Reservation>& entries,
                    std::chrono::steady_clock::time_point deadline) override;
  std::string where() const override;

 private:
  // Runs one request to completion on this thread; a transport failure becomes ApiResponse
  // status 0 with the error as its body.
  ApiResponse call(const std::string& method, const std::string& target, std::string body,
                   std::chrono::steady_clock::time_point deadline);
  std::string failure(const std::string& method, const ApiResponse& r) const;

  ApiClient client_;
  std::string namespace_;
};

}  // namespace gpua::cluster
