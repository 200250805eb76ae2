// Fuzzes paddock-init's decoder of its plan (runtime/native/init/init_plan.h): the bytes in the
// sealed memfd paddock hands the sandbox's init. paddock writes them, but the decoder must still
// refuse, never overrun, anything that is not a whole plan of this build.

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "runtime/native/init/init_plan.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  auto decoded = paddock::init::decode_child_plan(bytes);
  if (decoded) {
    // What a decoded plan holds must encode again: its pointers point into its own storage.
    (void)paddock::init::encode_child_plan(decoded->plan);
  }
  return 0;
}
