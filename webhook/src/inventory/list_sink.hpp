// Where the objects of one watched resource go: a full list (begun, fed page by page, committed;
// a failed list is never committed) or one watch event at a time. Each ledger hands out one sink
// per resource it keeps, and the cluster client registers each sink with the list/watch loop of
// its resource, so a new watched resource is one more registration.
#pragma once

#include <rapidjson/document.h>

#include <functional>

#include "inventory/event_type.hpp"

namespace gpua::inventory {

struct ListSink {
  std::function<void()> beginList;
  std::function<void(const rapidjson::Value& items)> addPage;
  std::function<void()> commitList;
  std::function<void(EventType type, const rapidjson::Value& object)> applyEvent;
};

// The sink of one resource of `owner`, from its four member functions.
template <class Owner>
ListSink sinkOf(Owner& owner, void (Owner::*begin)(),
                void (Owner::*addPage)(const rapidjson::Value&), void (Owner::*commit)(),
                void (Owner::*apply)(EventType, const rapidjson::Value&)) {
  return {[&owner, begin] { (owner.*begin)(); },
          [&owner, addPage](const rapidjson::Value& items) { (owner.*addPage)(items); },
          [&owner, commit] { (owner.*commit)(); },
          [&owner, apply](EventType type, const rapidjson::Value& object) {
            (owner.*apply)(type, object);
          }};
}

}  // namespace gpua::inventory
