#include "language/traceback_fold.h"

#include <re2/re2.h>

#include <vector>

namespace paddock::language {
namespace {

// One frame: its location line and the source and caret lines indented below it.
struct Frame {
  std::string_view location;  // '  File "...", line N, in NAME'
  std::size_t begin = 0;      // in the lines
  std::size_t end = 0;
};

std::vector<std::string_view> lines_of(std::string_view text) {
  std::vector<std::string_view> lines;
  while (!text.empty()) {
    auto end = text.find('\n');
    std::size_t take = end == std::string_view::npos ? text.size() : end + 1;
    lines.push_back(text.substr(0, take));
    text.remove_prefix(take);
  }
  return lines;
}

bool is_frame(std::string_view line) {
  return line.starts_with("  File \"");
}

// The user's own code: the call's files in /work, and code given on the command line or stdin.
bool is_users(std::string_view location) {
  std::string_view file = location.substr(8);
  return file.starts_with("/work/") || file.starts_with("<string>") ||
         file.starts_with("<stdin>") || file.starts_with("main.");
}

// "urllib/request.py:216 in urlopen": the path below the library root, as the bridge names it.
std::string frame_name(std::string_view location) {
  static const RE2 kLocation(R"re(  File "(.+?)", line (\d+)(?:, in (\S+))?)re");
  static const RE2 kLibraryRoot(R"(.*/(?:site-packages|dist-packages|lib/python[\d.]+)/)");
  std::string file, line, name;
  if (!RE2::PartialMatch(location, kLocation, &file, &line, &name)) {
    return std::string(location.substr(2, 120));
  }
  RE2::Replace(&file, kLibraryRoot, "");
  return file + ":" + line + (name.empty() ? "" : " in " + name);
}

std::string folded_line(const std::vector<Frame>& run) {
  std::string names;
  for (std::size_t i = 0; i < run.size() && i < 3; ++i) {
    names += (i > 0 ? ", " : "") + frame_name(run[i].location);
  }
  if (run.size() > 3) names += ", ...";
  return "  [... " + std::to_string(run.size()) + " library " +
         (run.size() == 1 ? "frame" : "frames") + " left out: " + names + "]\n";
}

}  // namespace

std::string fold_library_frames(std::string_view text) {
  if (text.find("  File \"") == std::string_view::npos) return std::string(text);
  std::vector<std::string_view> lines = lines_of(text);
  std::string out;
  out.reserve(text.size());
  std::size_t at = 0;
  while (at < lines.size()) {
    if (!is_frame(lines[at])) {
      out += lines[at++];
      continue;
    }
    // A traceback's frames, back to back, up to the line that names the exception.
    std::vector<Frame> frames;
    while (at < lines.size() && is_frame(lines[at])) {
      Frame frame{lines[at], at, at + 1};
      while (frame.end < lines.size() && lines[frame.end].starts_with("    ")) ++frame.end;
      frames.push_back(frame);
      at = frame.end;
    }
    std::vector<Frame> run;
    auto close_run = [&] {
      if (run.empty()) return;
      out += folded_line(run);
      run.clear();
    };
    for (std::size_t i = 0; i < frames.size(); ++i) {
      if (!is_users(frames[i].location) && i + 1 < frames.size()) {
        run.push_back(frames[i]);
        continue;
      }
      close_run();
      for (std::size_t line = frames[i].begin; line < frames[i].end; ++line) out += lines[line];
    }
    close_run();
  }
  return out;
}

}  // namespace paddock::language
