#include "app/output_progress.h"

#include <algorithm>

#include "app/log.h"

namespace paddock::app {
namespace {

constexpr std::size_t kMaxPartialLine = 4096;
constexpr std::size_t kMaxMessage = 64 * 1024;

}  // namespace

void ProgressLines::take(std::string_view chunk) {
  pending_.append(chunk);
  auto end = pending_.rfind('\n');
  if (end != std::string::npos) {
    flush(end + 1);
  } else if (pending_.size() > kMaxPartialLine) {
    // A line that never ends still shows progress. The secrets it holds whole are masked where
    // they lie, and its last bytes wait for the next chunk: they may begin one that has not
    // come whole yet, which this cut would split past the mask.
    pending_ = secrets_.apply(std::move(pending_));
    std::size_t held = std::min(pending_.size(), secrets_.longest());
    if (held > 0) held -= 1;
    flush(pending_.size() - held);
  }
}

void ProgressLines::flush(std::size_t length) {
  // Masked before a long message is cut: a cut secret would no longer match.
  std::string lines = secrets_.apply(pending_.substr(0, length));
  pending_.erase(0, length);
  if (lines.size() > kMaxMessage) lines.resize(kMaxMessage);
  if (!lines.empty() && lines.back() == '\n') lines.pop_back();
  send_(lines);
}

void ProgressPacer::offer(const std::string& message) {
  if (message.empty()) return;
  // Messages are masked whole, so cutting a joined one cannot uncover a secret.
  if (waiting_.size() < kMaxMessage) {
    if (!waiting_.empty()) waiting_ += '\n';
    waiting_.append(message, 0, kMaxMessage - std::min(kMaxMessage, waiting_.size()));
  }
  auto now = std::chrono::steady_clock::now();
  if (last_sent_ && now - *last_sent_ < interval_) return;
  last_sent_ = now;
  send_(std::exchange(waiting_, {}));
}

void ProgressPacer::finish() {
  if (!waiting_.empty()) send_(std::exchange(waiting_, {}));
}

OutputProgress::OutputProgress(Send send, const SecretMask& secrets, std::uint64_t stream_bytes,
                               const runtime::CancellationToken& cancellation,
                               std::chrono::milliseconds interval)
    : cancellation_(cancellation),
      pacer_(std::move(send), interval),
      lines_(secrets, [this](const std::string& lines) { pacer_.offer(lines); }),
      room_{stream_bytes, stream_bytes} {}

void OutputProgress::on_output(runtime::StreamId stream, std::string_view chunk) {
  std::uint64_t& room = room_[stream == runtime::StreamId::kStdout ? 0 : 1];
  std::string_view sent =
      chunk.substr(0, static_cast<std::size_t>(std::min<std::uint64_t>(room, chunk.size())));
  room -= sent.size();
  if (!sent.empty()) lines_.take(sent);
}

OutputProgress::~OutputProgress() {
  try {
    pacer_.finish();
  } catch (const std::exception& failure) {  // a destructor must not throw; progress may be lost
    log(LogLevel::kWarning, std::string("last progress not sent: ") + failure.what());
  }
}

}  // namespace paddock::app
