#include "progress_observer.h"

#include "server_state.h"

namespace paddock::mcp {
namespace {

constexpr std::size_t kMaxPartialLine = 4096;
constexpr std::size_t kMaxMessage = 64 * 1024;

}  // namespace

void ProgressObserver::on_output(StreamId /*stream*/, std::string_view chunk) {
  pending_.append(chunk);
  auto end = pending_.rfind('\n');
  if (end != std::string::npos) {
    flush(end + 1);
  } else if (pending_.size() > kMaxPartialLine) {
    flush(pending_.size());  // a line that never ends still shows progress
  }
}

void ProgressObserver::flush(std::size_t length) {
  std::string lines = pending_.substr(0, std::min(length, kMaxMessage));
  pending_.erase(0, length);
  if (!lines.empty() && lines.back() == '\n') lines.pop_back();
  // Output goes out live too: passed-through secrets are masked here as in the result.
  context_.progress(context_.state.secrets.apply(std::move(lines)));
}

}  // namespace paddock::mcp
