// Holistic Trace Analysis' get_comm_comp_overlap of one rank (communication_analysis.py, the
// same in 0.5.0 and 0.6.1 but for the kernel classes, hta_rows.h):
//  - the rows with stream != -1 of each class (get_kernel_type: COMMUNICATION, COMPUTATION),
//    each merged into disjoint intervals (utils.py, merge_kernel_intervals: sorted by ts, a new
//    interval where ts > the running max of the ends before it; its min ts and max end);
//  - both sets' bounds as +1/-1 (communication) and +2/-2 (computation), communication's
//    starts, its ends, then computation's, sorted by time; where the running sum is 3 both run
//    until the next bound: those spans summed over the communication intervals' total length.
//    No communication: NaN (0 / 0).
#pragma once

#include "trace/analyze/hta_frames.h"
#include "trace/analyze/hta_numeric.h"

namespace trace {

struct HtaCommOverlap {
  double ratio = kHtaNaN;  // comp_comm_overlap_ratio
  double pctg = kHtaNaN;   // comp_comm_overlap_pctg: round(100 * ratio, 2)
};

HtaCommOverlap hta_comm_comp_overlap(const HtaFrame& frame, const HtaTsOrder& order);

}  // namespace trace
