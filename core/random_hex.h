// Unguessable names and tokens: random bytes from the kernel, as lowercase hex.

#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "core/result.h"

namespace paddock::core {

// `bytes` random bytes (getrandom) as 2 * `bytes` hex digits. `purpose` names what the draw was
// for in the error, e.g. "drawing a preview's token".
Result<std::string> random_hex(std::size_t bytes, std::string_view purpose);

}  // namespace paddock::core
