// The timings and page size of one list/watch loop (cluster/list_watch.hpp), apart from it so the
// cluster client's options can hold them without the coroutine headers.
#pragma once

#include <chrono>

namespace gpua::cluster {

struct ListWatchOptions {
  std::chrono::milliseconds backoffInitial{250};
  std::chrono::milliseconds backoffMax{30'000};
  std::chrono::milliseconds requestTimeout{30'000};
  std::chrono::milliseconds watchIdleTimeout{120'000};  // bookmarks arrive about every minute
  int watchTimeoutSeconds = 300;                        // server-side end of each watch
  int listPageSize = 500;
};

}  // namespace gpua::cluster
