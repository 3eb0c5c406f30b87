// Kineto's numbers from their JSON text, exactly: its timestamps are microseconds written as
// integers or as decimals with nanosecond digits (4203669604595.407), which a double would
// round, so they go to integer nanoseconds without a float multiply.
#pragma once

#include <cstdint>
#include <string_view>

namespace trace {

// Microseconds as JSON number text -> integer ns, exactly for up to 3 decimals (rounded to
// the nearest ns beyond). False when the text is not a number or does not fit.
bool us_text_to_ns(std::string_view text, int64_t* ns);

// A number's text as a double, the way Python's json reads it: correctly rounded when the text
// has a fraction or an exponent, else the integer (exact below 2^53).
double text_to_double(std::string_view text);

// A string holding an integer (surrounding blanks allowed) -> that integer, else -1.
int64_t string_to_int(std::string_view text);

}  // namespace trace
