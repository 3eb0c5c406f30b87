// NumPy arrays that own a moved std::vector (no copy, no Python object per element), and a
// ColumnTable (trace/export/column_table.h) as a dict of them: Python builds each DataFrame column
// from one array.
#pragma once

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>

#include <utility>
#include <vector>

#include "trace/export/column_table.h"

namespace pyiris {

namespace nb = nanobind;

template <typename T>
nb::object to_numpy(std::vector<T>&& v) {
  auto* owned = new std::vector<T>(std::move(v));
  nb::capsule owner(owned, [](void* p) noexcept { delete static_cast<std::vector<T>*>(p); });
  const size_t shape[1] = {owned->size()};
  return nb::cast(nb::ndarray<nb::numpy, T, nb::ndim<1>>(owned->data(), 1, shape, owner));
}

// {"name": array} for numbers and flags; text as ("text", codes, categories) for
// pandas.Categorical.from_codes. Columns keep the order they were made in.
nb::dict table_to_python(trace::ColumnTable&& t);

}  // namespace pyiris
