#pragma once

// What a live session's kernel bridge (kernel/kernel_bridge.py) says, read into a cell's
// RunResult (runtime/live_kernel.h has the messages). Apart from the bridge's process and pipes,
// so that the reading of these untrusted lines can be tested and fuzzed as plain values.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "runtime/live_kernel.h"
#include "runtime/run_result.h"
#include "runtime/session.h"

namespace paddock::runtime {

// One line from the bridge as a message: a JSON object, or nothing (a stray print).
std::optional<nlohmann::json> parse_bridge_line(std::string_view line);

// The string `key` of a message (or of a part of one), or empty when it is missing or no string.
std::string bridge_string(const nlohmann::json& object, const char* key);

// Gathers one cell's messages into its result: output, figures within the request's caps, the
// result's text and the error.
class CellMessages {
 public:
  // `result.cell` must be set.
  CellMessages(const CellRequest& request, RunResult& result, RunObserver& observer)
      : request_(request), result_(result), observer_(observer) {}
  // Takes one message; true when it was the cell's last ("done"), kept in `done()`.
  bool take(const nlohmann::json& message);
  [[nodiscard]] const nlohmann::json& done() const { return done_; }

 private:
  void take_display(const nlohmann::json& message);
  void take_error(const nlohmann::json& message);

  const CellRequest& request_;
  RunResult& result_;
  RunObserver& observer_;
  std::uint64_t figure_bytes_ = 0;
  nlohmann::json done_;
};

// What the "done" message says of how the cell ended.
struct CellEnd {
  std::string status;      // ok, error, timed_out, cancelled, lost; empty when not said
  std::string state_lost;  // why the kernel's state was lost; empty when it was not
  std::optional<int> execution_count;
};
CellEnd read_cell_end(const nlohmann::json& done);

}  // namespace paddock::runtime
