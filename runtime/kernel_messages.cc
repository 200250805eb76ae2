#include "runtime/kernel_messages.h"

#include <limits>

#include "core/base64.h"
#include "runtime/output_capture.h"

namespace paddock::runtime {
namespace {

using json = nlohmann::json;

constexpr std::size_t kResultTextBytes = 64u << 10;

// Terminal colour and cursor codes (ESC [ ... letter), as IPython puts in tracebacks.
std::string strip_ansi(const std::string& text) {
  std::string plain;
  plain.reserve(text.size());
  for (std::size_t at = 0; at < text.size(); ++at) {
    if (text[at] == '\x1b' && at + 1 < text.size() && text[at + 1] == '[') {
      at += 2;
      while (at < text.size() && !(text[at] >= '@' && text[at] <= '~')) ++at;
      continue;
    }
    plain += text[at];
  }
  return plain;
}

std::string without_whitespace(const std::string& text) {
  std::string compact;
  compact.reserve(text.size());
  for (char c : text) {
    if (c != '\n' && c != '\r' && c != ' ') compact += c;
  }
  return compact;
}

}  // namespace

std::optional<json> parse_bridge_line(std::string_view line) {
  json message = json::parse(line, nullptr, false);
  if (message.is_discarded() || !message.is_object()) return std::nullopt;
  return message;
}

std::string bridge_string(const json& object, const char* key) {
  if (!object.is_object()) return {};
  auto found = object.find(key);
  return found != object.end() && found->is_string() ? found->get<std::string>() : std::string{};
}

bool CellMessages::take(const json& said) {
  if (said.contains("stream")) {
    // A notebook renders colour codes; the text a reader gets (a model) would show them raw.
    std::string text = strip_ansi(bridge_string(said, "text"));
    bool to_stderr = bridge_string(said, "stream") == "stderr";
    capture_chunk(to_stderr ? result_.stderr_data : result_.stdout_data, text,
                  request_.output_bytes);
    observer_.on_output(to_stderr ? StreamId::kStderr : StreamId::kStdout, text);
  } else if (said.contains("display")) {
    take_display(said);
  } else if (said.contains("omitted")) {
    result_.omit_artifact(
        {"display of " + bridge_string(said["omitted"], "mime"), 0, "over the bridge's size cap"});
  } else if (said.contains("error")) {
    take_error(said);
  } else if (said.contains("done") && said["done"].is_object()) {
    done_ = said["done"];
    return true;
  }
  return false;
}

// Adds one display message to the result: figures as artifacts (within the caps, what does not
// fit named), text as the notebook would show it.
void CellMessages::take_display(const json& message) {
  const json& data = message["display"];
  if (!data.is_object()) return;
  bool is_result =
      message.contains("result") && message["result"].is_boolean() && message["result"].get<bool>();
  std::string png = bridge_string(data, "image/png");
  if (!png.empty()) {
    auto decoded = core::base64_decode(without_whitespace(png));
    if (!decoded) return;
    std::string name =
        "figure-" +
        std::to_string(result_.artifacts.size() + result_.artifacts_omitted_count() + 1) + ".png";
    std::uint64_t size = decoded->size();
    if (result_.artifacts.size() >= request_.max_figures) {
      result_.omit_artifact({name, size, "over the per-call count of figures"});
    } else if (figure_bytes_ + size > request_.max_figure_bytes) {
      result_.omit_artifact({name, size, "over the per-call bytes of figures"});
    } else {
      figure_bytes_ += size;
      result_.artifacts.push_back({name, "image/png", size, std::move(*decoded), {}});
    }
    return;
  }
  std::string text = bridge_string(data, "text/plain");
  if (text.empty()) return;
  if (is_result) {
    CellReport& cell = *result_.cell;
    cell.result_truncated = text.size() > kResultTextBytes;
    cell.result_text = text.substr(0, kResultTextBytes);
    return;
  }
  text += "\n";
  capture_chunk(result_.stdout_data, text, request_.output_bytes);
  observer_.on_output(StreamId::kStdout, text);
}

void CellMessages::take_error(const json& message) {
  const json& error = message["error"];
  KernelError taken{
      strip_ansi(bridge_string(error, "ename")), strip_ansi(bridge_string(error, "evalue")), {}};
  if (error.is_object() && error.contains("traceback") && error["traceback"].is_array()) {
    for (const auto& line : error["traceback"]) {
      if (line.is_string() && taken.traceback.size() < 200) {
        taken.traceback.push_back(strip_ansi(line.get<std::string>()).substr(0, 8192));
      }
    }
  }
  result_.cell->error = std::move(taken);
}

CellEnd read_cell_end(const json& done) {
  CellEnd end;
  end.status = bridge_string(done, "status");
  end.state_lost = bridge_string(done, "state_lost");
  if (done.is_object() && done.contains("execution_count") &&
      done["execution_count"].is_number_integer()) {
    end.execution_count = done["execution_count"].get<int>();
  }
  return end;
}

}  // namespace paddock::runtime
