// The DRA ledger: the DeviceClasses, ResourceClaims, ResourceClaimTemplates and ResourceSlices
// the watch sees, plus what it needs of pods (their class, and the claims the scheduler made for
// their extended resources), read as immutable engine::DraObjects shared until the next change.
// Each resource is one StagedList, so a half-read list never shows.
//
// Not thread-safe: one owner applies lists and events; readers get snapshots.
#pragma once

#include <rapidjson/document.h>

#include <map>
#include <memory>
#include <string>

#include "engine/context/dra_objects.hpp"
#include "inventory/dra_decode.hpp"
#include "inventory/event_type.hpp"
#include "inventory/list_sink.hpp"
#include "inventory/staged_list.hpp"

namespace gpua::inventory {

class DraLedger {
 public:
  // One sink per watched resource (the pods sink reads only uid, class annotation and
  // status.extendedResourceClaimStatus).
  ListSink deviceClassSink();
  ListSink claimSink();
  ListSink templateSink();
  ListSink sliceSink();
  ListSink podSink();

  // The objects as they stand; the same pointer until something changes.
  std::shared_ptr<const engine::DraObjects> objects();

  std::size_t claimCount() const { return claims_.live().size(); }

 private:
  // What the ledger keeps of one pod.
  struct PodFacts {
    std::string className;
    std::string extendedResourceClaim;  // "<namespace>/<name>", "" when none
    bool operator==(const PodFacts&) const = default;
  };
  template <class Map, class Decode>
  ListSink sinkFor(StagedList<Map>& list, Decode decode);

  StagedList<std::map<std::string, engine::DeviceClassInfo>> classes_;
  StagedList<std::map<std::string, engine::ResourceClaimInfo>> claims_;
  StagedList<std::map<std::string, engine::ClaimTemplateInfo>> templates_;
  StagedList<std::map<std::string, SliceInfo>> slices_;     // by slice name
  StagedList<std::map<std::string, PodFacts>> pods_;        // by uid
  std::shared_ptr<const engine::DraObjects> objects_;       // null when something changed
};

}  // namespace gpua::inventory
