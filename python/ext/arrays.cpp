#include "arrays.h"

#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

namespace pyiris {

nb::dict table_to_python(trace::ColumnTable&& t) {
  nb::dict out;
  for (trace::Column& c : t.columns()) {
    const char* name = c.name.c_str();
    switch (c.kind) {
      case trace::Column::Kind::F64:
        out[name] = to_numpy(std::move(c.f64));
        break;
      case trace::Column::Kind::I64:
        out[name] = to_numpy(std::move(c.i64));
        break;
      case trace::Column::Kind::Bool: {
        out[name] = nb::make_tuple("bool", to_numpy(std::move(c.flags)));
        break;
      }
      case trace::Column::Kind::Text:
        out[name] = nb::make_tuple("text", to_numpy(std::move(c.codes)), nb::cast(c.categories));
        break;
    }
  }
  return out;
}

}  // namespace pyiris
