// CUPTI activity records (CUDA 13: Kernel10, Memcpy6, Memset4, Synchronization2, API)
// -> plain records. Pure translation, no CUPTI calls, so the tests feed it hand-built
// CUPTI structs. Needs the CUPTI headers (IRIS_HAVE_CUPTI).
#pragma once

#include <cupti.h>

#include <functional>
#include <string>

#include "trace/model/records.h"

namespace trace {

// Name of an API call from its domain and callback id (cuptiGetCallbackName in the session).
using ApiNameFn = std::function<std::string(bool driver, uint32_t cbid)>;

// Appends the record if it is of a kind we use; returns false for kinds we ignore.
bool append_cupti_record(const CUpti_Activity* record, const ApiNameFn& api_name, RecordSet& out);

CopyKind copy_kind_from_cupti(uint8_t kind);
MemoryKind memory_kind_from_cupti(uint8_t kind);

}  // namespace trace
