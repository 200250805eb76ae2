#include "mcp/code_result.h"

#include <map>
#include <sstream>

#include "core/mime_types.h"
#include "core/text.h"
#include "core/units.h"
#include "language/install_diagnosis.h"
#include "language/refusal_lines.h"
#include "language/traceback_fold.h"
#include "mcp/content.h"
#include "mcp/network_result.h"
#include "mcp/repeat_fold.h"
#include "mcp/result_text.h"
#include "runtime/output_capture.h"

namespace paddock::mcp {
namespace {

constexpr std::size_t kResultBudget = 7u << 20;  // below the 8 MiB message cap, with room
// A stream longer than this appears in the text block as an excerpt of this size; the
// structured result has more of it.
constexpr std::uint64_t kTextStreamBytes = 8u << 10;
// A cell's traceback in the text block: its start and its end (where the error is).
constexpr std::uint64_t kTracebackShown = 8u << 10;
// Names of omitted files listed in the text per reason, and in the structured result (which
// counts them all): a program that writes ten thousand files must not fill the context.
constexpr std::size_t kOmittedNamesShown = 50;
constexpr std::size_t kOmittedNamed = 200;

int exit_code_of(const runtime::RunResult& result) {
  return result.outcome == runtime::Outcome::kTimedOut ? 124 : result.exit_code;
}

// "NameError: name 'y' is not defined". IRkernel names every error "ERROR" and its value
// already starts "Error in ...": that is said once, and without the value's own line break.
std::string error_line(const runtime::KernelError& error) {
  std::string value = core::trim(error.value);
  if (value.empty()) return error.name;
  if (core::to_lower(value).starts_with(core::to_lower(error.name))) return value;
  return error.name + ": " + value;
}

// How a live session's cell ended: what became of the interpreter's state matters most.
std::string describe_cell_ending(const app::CodeRun& run, const runtime::CellReport& cell) {
  const runtime::RunResult& result = run.result.run;
  std::ostringstream text;
  if (result.outcome == runtime::Outcome::kTimedOut) {
    text << "timed out after " << run.timeout_seconds << " s; the cell was interrupted";
  } else if (result.outcome == runtime::Outcome::kCancelled) {
    text << "cancelled; the cell was interrupted";
  } else if (cell.error) {
    text << "error: " << error_line(*cell.error);
  } else if (cell.state_lost.empty() || cell.lost_before_cell) {
    text << "ok";
  } else {
    text << "the cell did not finish";
  }
  if (!cell.state_lost.empty()) {
    text << "; " << cell.state_lost
         << (cell.lost_before_cell ? ", so this cell ran in a fresh interpreter: earlier "
                                     "variables and imports are gone, files in /work are kept"
                                   : ", so a fresh interpreter was started: variables and "
                                     "imports are gone, files in /work are kept");
  } else if (result.outcome != runtime::Outcome::kExited) {
    text << "; the interpreter recovered and its variables are kept";
  }
  text << " (" << run.result.language << " live session";
  if (cell.execution_count > 0) text << ", cell " << cell.execution_count;
  text << ", " << result.duration_ms << " ms)";
  return text.str();
}

// The cell's value and its error, as a notebook shows them below the output.
std::string cell_text(const runtime::CellReport& cell) {
  std::string text;
  if (!cell.result_text.empty()) {
    text += "Out";
    if (cell.execution_count > 0) text += "[" + std::to_string(cell.execution_count) + "]";
    text += ": " + cell.result_text + (cell.result_truncated ? " [...]" : "") + "\n";
  }
  if (cell.error) {
    std::string traceback;
    for (const auto& line : cell.error->traceback) traceback += line + "\n";
    if (traceback.empty()) traceback = cell.error->name + ": " + cell.error->value + "\n";
    runtime::CapturedOutput kept;
    runtime::capture_chunk(kept, traceback, kTracebackShown);
    text += runtime::shown_text(kept);
  }
  return text;
}

json cell_json(const runtime::CellReport& cell) {
  json fields = {{"live", true}, {"state_lost", !cell.state_lost.empty()}};
  if (cell.execution_count > 0) fields["execution_count"] = cell.execution_count;
  if (!cell.result_text.empty()) fields["result"] = cell.result_text;
  if (!cell.state_lost.empty()) fields["state_lost_reason"] = cell.state_lost;
  if (cell.error) {
    fields["error"] = {{"ename", cell.error->name},
                       {"evalue", cell.error->value},
                       {"traceback", cell.error->traceback}};
  }
  return fields;
}

std::string describe_ending(const app::CodeRun& run) {
  const runtime::RunResult& result = run.result.run;
  if (result.cell && run.result.phase == "run") return describe_cell_ending(run, *result.cell);
  std::ostringstream text;
  switch (result.outcome) {
    case runtime::Outcome::kTimedOut:
      text << "timed out after " << run.timeout_seconds << " s; the sandbox was killed";
      if (run.timeout_capped) text << " (the server caps timeouts at that)";
      break;
    case runtime::Outcome::kCancelled:
      text << "cancelled; the sandbox was killed";
      break;
    case runtime::Outcome::kExecFailed:
      text << result.exec_error;
      break;
    case runtime::Outcome::kSignaled:
      text << "killed by signal " << result.signal << (result.oom_killed ? " (out of memory)" : "");
      break;
    case runtime::Outcome::kExited:
      if (run.result.phase == "compile" && result.exit_code != 0) {
        text << "compile error, exit code " << result.exit_code;
      } else if (run.result.phase == "install" && result.exit_code != 0) {
        text << "library install failed, exit code " << result.exit_code;
      } else {
        text << "exit code " << result.exit_code;
      }
      break;
  }
  text << " (" << run.result.language << ", " << result.duration_ms << " ms)";
  return text.str();
}

// One stream in the text block, repeated lines folded: whole when that is short, else its start
// and its end, and where the rest is. Said in the text itself: many clients never show a model
// structuredContent.
std::string stream_text(const std::string& name, const runtime::CapturedOutput& carried,
                        const std::string& whole_file, bool in_session) {
  if (carried.total_bytes == 0) return "";
  // Folded on each side of the capture's marker, so that the cut below knows where it is:
  // tracebacks' library frames as a live cell's are, then repeated lines, back to back or
  // scattered (processes printing the same, interleaved).
  runtime::ShownParts parts = runtime::shown_parts(carried);
  auto fold = [](std::string_view part) {
    return fold_output(language::fold_library_frames(part));
  };
  std::string folded = fold(parts.start);
  InnerMarker inner{folded.size(), parts.marker.size(), runtime::omitted_bytes(carried)};
  folded += parts.marker + fold(parts.end);
  bool cut = carried.truncated || folded.size() > kTextStreamBytes;
  std::string text = name + ":\n" + keep_start_and_end(folded, kTextStreamBytes, inner);
  if (text.back() != '\n') text += '\n';
  if (cut) {
    text += "(" + name + " was " + std::to_string(carried.total_bytes) +
            " bytes; shown here: its start and its end";
    if (!whole_file.empty()) {
      // read_file takes paths relative to /work.
      std::string relative = whole_file.starts_with("/work/") ? whole_file.substr(6) : whole_file;
      text += "; all of it is in " + whole_file + ": read_file with path " + relative +
              " and an offset reads it";
    } else if (!in_session) {
      text +=
          "; to keep all of it, run the code in a session (create_session): its long "
          "streams are kept in files";
    } else {
      text += "; to read all of it, have the code write it to a file and use read_file";
    }
    text += ")\n";
  }
  return text;
}

// The omitted files, grouped by why, for the text block; `unlisted` more were only counted.
std::string omitted_text(const std::vector<runtime::OmittedArtifact>& omitted,
                         std::uint64_t unlisted) {
  std::map<std::string, std::vector<std::string>> by_reason;
  for (const auto& file : omitted) by_reason[file.reason].push_back(file.path);
  std::string text;
  for (auto& [reason, paths] : by_reason) {
    if (paths.size() == 1 && paths[0].empty()) {  // not a file: files that were never listed
      text += "files left out: " + reason + "\n";
      continue;
    }
    std::size_t count = paths.size();
    if (count > kOmittedNamesShown) {
      paths.resize(kOmittedNamesShown);
      paths.push_back("and " + std::to_string(count - kOmittedNamesShown) + " more");
    }
    text += core::counted(count, "file", "files") + " left out (" + reason +
            "): " + core::join(paths, ", ") + "\n";
  }
  if (unlisted > 0) {
    text += "and " + core::counted(unlisted, "more file", "more files") + " left out, not named\n";
  }
  return text;
}

json omitted_json(const std::vector<runtime::OmittedArtifact>& omitted) {
  json list = json::array();
  for (const auto& file : omitted) {
    if (list.size() == kOmittedNamed) break;
    list.push_back({{"name", file.path}, {"size", file.size}, {"reason", file.reason}});
  }
  return list;
}

std::string install_diagnosis_line(const runtime::RunResult& installed) {
  return language::install_diagnosis(installed.stderr_data.data, installed.network)
      .value_or("the library install failed");
}

// A text type whose bytes are UTF-8 (a Latin-1 CSV is text/csv, but not JSON text unchanged).
bool is_text_artifact(const runtime::Artifact& artifact) {
  return core::is_text_mime_type(artifact.mime_type) && core::looks_like_text(artifact.data);
}

}  // namespace

json code_output_schema() {
  // No descriptions: the text block says what each field means for this run, and a model that
  // reads structuredContent reads names like these well enough.
  return json::parse(R"({
    "type": "object",
    "properties": {
      "exit_code": {"type": "integer"},
      "phase": {"type": "string", "enum": ["install", "compile", "run", "screening"]},
      "step_exit_code": {"type": "integer"},
      "stdout": {"type": "string"},
      "stderr": {"type": "string"},
      "stdout_bytes": {"type": "integer"},
      "stderr_bytes": {"type": "integer"},
      "output_files": {"type": "object",
        "properties": {"stdout": {"type": "string"}, "stderr": {"type": "string"}}},
      "timed_out": {"type": "boolean"},
      "oom_killed": {"type": "boolean"},
      "duration_ms": {"type": "integer"},
      "timeout_seconds": {"type": "number"},
      "backend": {"type": "string", "enum": ["native", "docker", "podman", "kubernetes"]},
      "truncated": {"type": "boolean"},
      "artifacts": {"type": "array", "items": {"type": "object",
        "properties": {"name": {"type": "string"}, "mime_type": {"type": "string"},
          "size": {"type": "integer"}, "withheld": {"type": "string"}},
        "required": ["name", "mime_type", "size"]}},
      "artifacts_omitted_count": {"type": "integer"},
      "artifacts_omitted": {"type": "array", "items": {"type": "object",
        "properties": {"name": {"type": "string"}, "size": {"type": "integer"},
          "reason": {"type": "string"}},
        "required": ["name", "reason"]}},
      "screening": {"type": "object"},
      "network": {"type": "object",
        "properties": {"denied": {"type": "array", "items": {"type": "object",
          "properties": {"host": {"type": "string"}, "port": {"type": "integer"},
            "reason": {"type": "string"}},
          "required": ["host", "port", "reason"]}},
          "denied_omitted": {"type": "integer"},
          "allowed_by_user": {"type": "array", "items": {"type": "object",
            "properties": {"host": {"type": "string"}, "port": {"type": "integer"},
              "scope": {"type": "string"}},
            "required": ["host", "port", "scope"]}}},
        "required": ["denied"]},
      "refused": {"type": "object",
        "properties": {"system_calls": {"type": "object", "additionalProperties": {"type": "integer"}},
          "system_calls_unnamed": {"type": "integer"}, "process_limit": {"type": "integer"}}},
      "live": {"type": "boolean"},
      "execution_count": {"type": "integer"},
      "result": {"type": "string"},
      "error": {"type": "object",
        "properties": {"ename": {"type": "string"}, "evalue": {"type": "string"},
          "traceback": {"type": "array", "items": {"type": "string"}}},
        "required": ["ename", "evalue", "traceback"]},
      "state_lost": {"type": "boolean"},
      "state_lost_reason": {"type": "string"},
      "notes": {"type": "array", "items": {"type": "string"}}
    },
    "required": ["exit_code", "phase", "stdout", "stderr", "timed_out", "oom_killed", "duration_ms", "truncated", "artifacts", "artifacts_omitted"]
})");
}

namespace {

// The notes of a run: what the server changed or could not keep, and what the proxy did with
// brokered secrets' placeholders (names and hosts, never a value).
std::vector<std::string> run_notes(const app::CodeRun& run, const CodeCallFacts& facts) {
  const runtime::RunResult& result = run.result.run;
  std::vector<std::string> notes;
  if (run.timeout_capped && facts.asked_timeout) {
    notes.push_back("timeout " + core::seconds_text(*facts.asked_timeout) +
                    " is over this server's cap: " + core::seconds_text(run.timeout_seconds) +
                    " applied");
  }
  if (!run.preinstalled.empty()) {
    notes.push_back("already there (preinstalled), not installed again: " +
                    core::join(run.preinstalled, ", "));
  }
  if (!run.output_file_error.empty()) {
    notes.push_back("the whole output could not be kept: " + run.output_file_error);
  }
  for (const auto& use : result.network.secrets) {
    std::string where = use.host + ":" + std::to_string(use.port);
    notes.push_back(use.substituted ? "secret " + use.name +
                                          ": its placeholder was replaced by the real value "
                                          "in a request to " +
                                          where
                                    : "secret " + use.name + ": its placeholder went to " + where +
                                          " (" + use.reason + ")");
  }
  return notes;
}

// The streams cut for the result, and the notes: what the text and the structured result share.
struct RunFacts {
  runtime::CapturedOutput out;
  runtime::CapturedOutput err;
  std::vector<std::string> notes;
};

bool install_failed(const app::CodeRun& run) {
  const runtime::RunResult& result = run.result.run;
  return run.result.phase == "install" && result.outcome == runtime::Outcome::kExited &&
         result.exit_code != 0;
}

// The text block up to the files: the install's diagnosis first, the streams, the cell, the
// screening's warnings, the notes, and what was refused.
std::string summary_text(const app::CodeRun& run, const language::ScreeningVerdict& screening,
                         const RunFacts& facts, bool in_session) {
  const runtime::RunResult& result = run.result.run;
  std::string text;
  bool failed_install = install_failed(run);
  if (failed_install) {
    // The one line that matters first; the installer's own words after it.
    text += install_diagnosis_line(result) + "\n";
  }
  text += stream_text("stdout", facts.out, run.stdout_file, in_session);
  text += stream_text("stderr", facts.err, run.stderr_file, in_session);
  if (result.cell) text += cell_text(*result.cell);
  for (const auto* finding : language::findings_to_show(screening)) {
    text += "screening warning: " + language::describe(*finding) + "\n";
  }
  for (const auto& note : facts.notes) text += "note: " + note + "\n";
  text += network_lines(result.network);
  for (const auto& line : language::refusal_lines(
           result, language::RefusalContext{.program_output = !failed_install})) {
    text += line + "\n";
  }
  return text;
}

// The run's files as content blocks within what the message has room for; those without room
// join the omitted ones, and a withheld file is a line of `text`.
struct RunFiles {
  json artifacts = json::array();  // the structured result's entries
  json blocks = json::array();     // the content blocks after the text
  std::vector<runtime::OmittedArtifact> omitted;
};

RunFiles file_content(const runtime::RunResult& result, const RunFacts& facts, std::string& text) {
  RunFiles files;
  files.omitted = result.artifacts_omitted;
  std::size_t budget =
      kResultBudget - std::min(kResultBudget, 2 * (facts.out.data.size() + facts.err.data.size()));
  for (const auto& artifact : result.artifacts) {
    json entry = {
        {"name", artifact.path}, {"mime_type", artifact.mime_type}, {"size", artifact.size}};
    if (!artifact.withheld.empty()) {
      entry["withheld"] = artifact.withheld;
      text += artifact.path + " " + artifact.withheld + "\n";
      files.artifacts.push_back(std::move(entry));
      continue;
    }
    std::size_t encoded = (artifact.data.size() + 2) / 3 * 4;
    if (encoded > budget) {
      files.omitted.push_back({artifact.path, artifact.size, "over the message size limit"});
      continue;
    }
    budget -= encoded;
    files.artifacts.push_back(std::move(entry));
    if (is_displayable_image(artifact.mime_type)) {
      files.blocks.push_back(image_block(artifact.data, artifact.mime_type));
    } else if (is_text_artifact(artifact)) {
      files.blocks.push_back(
          text_resource_block("file:///work/" + artifact.path, artifact.data, artifact.mime_type));
    } else {
      files.blocks.push_back(
          blob_resource_block("file:///work/" + artifact.path, artifact.data, artifact.mime_type));
    }
  }
  return files;
}

// The structuredContent, as code_output_schema() describes it.
json structured_result(const app::CodeRun& run, const language::ScreeningVerdict& screening,
                       const RunFacts& facts, RunFiles& files) {
  const runtime::RunResult& result = run.result.run;
  std::uint64_t omitted_count = files.omitted.size() + result.artifacts_omitted_unlisted;
  json structured = {{"exit_code", exit_code_of(result)},
                     {"phase", run.result.phase},
                     {"step_exit_code", result.exit_code},
                     {"stdout", runtime::shown_text(facts.out)},
                     {"stderr", runtime::shown_text(facts.err)},
                     {"stdout_bytes", result.stdout_data.total_bytes},
                     {"stderr_bytes", result.stderr_data.total_bytes},
                     {"timed_out", result.outcome == runtime::Outcome::kTimedOut},
                     {"oom_killed", result.oom_killed},
                     {"duration_ms", result.duration_ms},
                     {"timeout_seconds", run.timeout_seconds},
                     {"backend", result.backend},
                     {"truncated", facts.out.truncated || facts.err.truncated},
                     {"artifacts", std::move(files.artifacts)},
                     {"artifacts_omitted", omitted_json(files.omitted)},
                     {"artifacts_omitted_count", omitted_count}};
  json output_files = json::object();
  if (!run.stdout_file.empty()) output_files["stdout"] = run.stdout_file;
  if (!run.stderr_file.empty()) output_files["stderr"] = run.stderr_file;
  if (!output_files.empty()) structured["output_files"] = std::move(output_files);
  if (!screening.findings.empty()) structured["screening"] = language::to_json(screening);
  if (auto network = network_json(result.network); !network.is_null()) {
    structured["network"] = std::move(network);
  }
  if (result.refused.any()) structured["refused"] = runtime::refusals_json(result.refused);
  if (!facts.notes.empty()) structured["notes"] = facts.notes;
  if (result.cell) structured.update(cell_json(*result.cell));
  return structured;
}

}  // namespace

ToolResult code_result(const app::CodeRun& run, const language::ScreeningVerdict& screening,
                       const app::ServerOptions& options, const CodeCallFacts& facts) {
  const runtime::RunResult& result = run.result.run;
  RunFacts run_facts{runtime::shortened(result.stdout_data, options.result_stream_bytes),
                     runtime::shortened(result.stderr_data, options.result_stream_bytes),
                     run_notes(run, facts)};
  std::string text = summary_text(run, screening, run_facts, facts.in_session);
  RunFiles files = file_content(result, run_facts, text);
  text += omitted_text(files.omitted, result.artifacts_omitted_unlisted);
  text += describe_ending(run);
  ToolResult tool;
  tool.content.push_back(text_block(std::move(text)));
  for (auto& block : files.blocks) tool.content.push_back(std::move(block));
  tool.structured = structured_result(run, screening, run_facts, files);
  tool.is_error = !(result.outcome == runtime::Outcome::kExited && result.exit_code == 0);
  return tool;
}

ToolResult blocked_code_result(const language::ScreeningVerdict& verdict) {
  std::string text = "blocked by code screening before anything ran (" +
                     language::blocking_summary(verdict) + "):\n";
  for (const auto* finding : language::findings_to_show(verdict))
    text += language::describe(*finding) + "\n";
  ToolResult tool = tool_error(text);
  tool.structured = {{"exit_code", language::kScreeningBlockedExitCode},
                     {"phase", "screening"},
                     {"stdout", ""},
                     {"stderr", text},
                     {"timed_out", false},
                     {"oom_killed", false},
                     {"duration_ms", 0},
                     {"truncated", false},
                     {"artifacts", json::array()},
                     {"artifacts_omitted", json::array()},
                     {"screening", language::to_json(verdict)}};
  return tool;
}

}  // namespace paddock::mcp
