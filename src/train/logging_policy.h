// The article's loss-logging patterns, as data. Each pattern fixes which epochs call
// loss.item() and how often, so the loop's .item() count follows a formula the tests pin.
#pragma once

#include <cstdint>
#include <string>

namespace train {

struct LoggingPolicy {
  // 0: never record.
  // 1: the article's first run: `losses.append(loss.item())` every epoch (1 call).
  // k >= 2: the article's table code: every k epochs `losses.append(loss.item())` and a
  //    print of `loss.item()` (2 calls).
  int64_t interval = 0;
  // The article's `if (epoch+1) % 100 == 0: print(..., loss.item())`, 1 call, kept in
  // every GPU run of its table.
  bool print100 = true;

  // Throws std::invalid_argument naming the field when interval < 0.
  void validate() const;

  // What the loop does after epoch `epoch1` (1-based).
  bool records_at(int64_t epoch1) const { return interval > 0 && epoch1 % interval == 0; }
  bool prints_record_at(int64_t epoch1) const { return interval >= 2 && records_at(epoch1); }
  bool prints100_at(int64_t epoch1) const { return print100 && epoch1 % 100 == 0; }
  int item_calls_at(int64_t epoch1) const {
    return (records_at(epoch1) ? 1 : 0) + (prints_record_at(epoch1) ? 1 : 0) +
           (prints100_at(epoch1) ? 1 : 0);
  }

  // Closed form of the sum of item_calls_at over epochs 1..epochs.
  int64_t expected_item_calls(int64_t epochs) const;
  // Records kept in the losses list after `epochs`.
  int64_t expected_records(int64_t epochs) const { return interval > 0 ? epochs / interval : 0; }

  std::string describe() const;  // e.g. "record every 200 (append+print) + print every 100"
};

}  // namespace train
