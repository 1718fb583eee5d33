// What a watch event did to an object: the three event types of the Kubernetes watch API
// (BOOKMARK and ERROR never reach the inventory: the list/watch loop handles them).
#pragma once

namespace gpua::inventory {

enum class EventType { Added, Modified, Deleted };

}  // namespace gpua::inventory
