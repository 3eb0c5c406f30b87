#include "train/logging_policy.h"

#include <stdexcept>

namespace train {

void LoggingPolicy::validate() const {
  if (interval < 0) {
    throw std::invalid_argument("logging interval must be >= 0 (0 = never, 1 = every epoch), got " +
                                std::to_string(interval));
  }
}

int64_t LoggingPolicy::expected_item_calls(int64_t epochs) const {
  const int64_t per_record = interval >= 2 ? 2 : 1;
  return expected_records(epochs) * per_record + (print100 ? epochs / 100 : 0);
}

std::string LoggingPolicy::describe() const {
  std::string s;
  if (interval == 0)
    s = "never record";
  else if (interval == 1)
    s = "append every epoch";
  else
    s = "record every " + std::to_string(interval) + " (append+print)";
  return s + (print100 ? " + print every 100" : "");
}

}  // namespace train
