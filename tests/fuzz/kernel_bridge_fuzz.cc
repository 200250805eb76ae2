// Fuzzes what paddock reads from a live session's kernel bridge (runtime/kernel_messages.h):
// lines as untrusted as the program's output (a cell can print anything to the bridge's
// stdout), gathered into a cell's result as LiveKernel::execute does, with small caps so the
// caps' edges are reached.

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "runtime/kernel_messages.h"

namespace {

class Observer final : public paddock::runtime::RunObserver {};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace paddock;
  std::string_view rest(reinterpret_cast<const char*>(data), size);
  runtime::CellRequest request;
  request.output_bytes = 256;
  request.max_figures = 2;
  request.max_figure_bytes = 512;
  runtime::RunResult result;
  result.cell = runtime::CellReport{};
  Observer observer;
  runtime::CellMessages cell(request, result, observer);
  while (!rest.empty()) {
    std::size_t end = rest.find('\n');
    std::string_view line = rest.substr(0, end);
    rest = end == std::string_view::npos ? std::string_view() : rest.substr(end + 1);
    auto message = runtime::parse_bridge_line(line);
    if (!message) continue;
    // Before a cell: what launch reads of a starting kernel.
    (void)runtime::bridge_string(*message, "failed");
    if (message->contains("ready"))
      (void)runtime::bridge_string((*message)["ready"], "implementation");
    if (cell.take(*message)) break;
  }
  runtime::CellEnd end = runtime::read_cell_end(cell.done());
  if (end.execution_count) result.cell->execution_count = *end.execution_count;
  return 0;
}
