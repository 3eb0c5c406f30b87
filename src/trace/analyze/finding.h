// One piece of advice about a trace (advice.h): what is happening, the usual fix, and what the
// fix saves in the replay.
#pragma once

#include <cstdint>
#include <string>

namespace trace {

struct Finding {
  enum class Kind : uint8_t { ValueRead, Sync, PageableCopies, DeviceSync, LaunchBound, HostWork };
  Kind kind = Kind::Sync;
  std::string where;                    // the site's label, the op, or "" for the whole trace
  std::string what;                     // what is happening, with its figures
  std::string fix;                      // the usual fix
  std::string what_if;                  // the --what-if that replays it
  int64_t saving_ns = 0, total_ns = 0;  // replayed saving and the replayed total it is of
  std::string assumed;                  // what the what-if assumed (its note), "" if nothing
};

const char* to_string(Finding::Kind k);

// "12.3 ms" or "45.6 us": a duration as the advice words it.
std::string ms_or_us(int64_t ns);

}  // namespace trace
