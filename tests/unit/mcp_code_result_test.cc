// execute_code's result for a model: a long stream goes once (whole in structuredContent, an
// excerpt in the text), and what the caps leave out is counted in full but named within bounds.

#include "mcp/code_result.h"

#include <gtest/gtest.h>

#include "runtime/output_capture.h"

namespace paddock::mcp::mcp_code_result_test {
namespace {

app::CodeRun run_with_stdout(const std::string& stream) {
  app::CodeRun run;
  run.result.language = "python";
  run.result.phase = "run";
  run.result.run.backend = "native";
  runtime::capture_chunk(run.result.run.stdout_data, stream, 1u << 20);
  run.timeout_seconds = 30;
  return run;
}

std::string text_of(const ToolResult& result) {
  return result.content[0]["text"];
}

TEST(McpCodeResult, ALongStreamIsInTheStructuredResultOnceAndExcerptedInTheText) {
  std::string stream;
  for (int i = 0; i < 20000; ++i) stream += "line " + std::to_string(i) + "\n";
  app::ServerOptions options;  // result_stream_bytes 64 KiB
  ToolResult result = code_result(run_with_stdout(stream), {}, options, {});
  std::string structured = result.structured["stdout"];
  EXPECT_LT(structured.size(), 64u * 1024 + 100);
  EXPECT_EQ(structured.rfind("line 0\n", 0), 0u);
  EXPECT_EQ(structured.substr(structured.size() - 11), "line 19999\n");
  EXPECT_EQ(result.structured["stdout_bytes"], stream.size());
  EXPECT_EQ(result.structured["truncated"], true);
  std::string text = text_of(result);
  EXPECT_LT(text.size(), 10u * 1024);
  EXPECT_EQ(text.find(structured), std::string::npos);
  EXPECT_NE(text.find("line 19999"), std::string::npos) << "the text keeps the end too";
  EXPECT_NE(text.find("run the code in a session"), std::string::npos) << text;
}

TEST(McpCodeResult, AShortStreamIsWholeInBoth) {
  ToolResult result = code_result(run_with_stdout("42\n"), {}, app::ServerOptions{}, {});
  EXPECT_EQ(result.structured["stdout"], "42\n");
  EXPECT_EQ(text_of(result), "stdout:\n42\nexit code 0 (python, 0 ms)");
  EXPECT_EQ(result.structured["phase"], "run");
  EXPECT_EQ(result.is_error, false);
}

TEST(McpCodeResult, OmittedFilesAreCountedAllAndNamedWithinBounds) {
  app::CodeRun run = run_with_stdout("");
  for (int i = 0; i < 5000; ++i) {
    run.result.run.artifacts_omitted.push_back(
        {"outputs/f" + std::to_string(i), 1, "over the limit of 20 files per call"});
  }
  ToolResult result = code_result(run, {}, app::ServerOptions{}, {});
  EXPECT_EQ(result.structured["artifacts_omitted_count"], 5000);
  EXPECT_EQ(result.structured["artifacts_omitted"].size(), 200u);
  std::string text = text_of(result);
  EXPECT_NE(text.find("5000 files left out (over the limit of 20 files per call): outputs/f0, "),
            std::string::npos);
  EXPECT_NE(text.find("and 4950 more"), std::string::npos);
  EXPECT_LT(text.size(), 2000u);
}

// What a run leaves out past the list is only counted (a live cell's display flood made a
// million of them), and the result still says how many there were.
TEST(McpCodeResult, OmittedFilesPastTheListAreCountedNotKept) {
  app::CodeRun run = run_with_stdout("");
  for (int i = 0; i < 100000; ++i) {
    run.result.run.omit_artifact(
        {"figure-" + std::to_string(i) + ".png", 70, "over the per-call count of figures"});
  }
  run.result.run.omit_artifact({"", 0, "a note on files never listed"});
  EXPECT_EQ(run.result.run.artifacts_omitted.size(), runtime::kMaxOmittedListed + 1);
  EXPECT_EQ(run.result.run.artifacts_omitted_count(), 100001u);
  ToolResult result = code_result(run, {}, app::ServerOptions{}, {});
  EXPECT_EQ(result.structured["artifacts_omitted_count"], 100001);
  EXPECT_EQ(result.structured["artifacts_omitted"].size(), 200u);
  std::string text = text_of(result);
  EXPECT_NE(text.find("200 files left out (over the per-call count of figures): figure-0.png"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("and 99800 more files left out, not named"), std::string::npos) << text;
  EXPECT_LT(text.size(), 2000u);
}

}  // namespace
}  // namespace paddock::mcp::mcp_code_result_test

namespace paddock::mcp::mcp_code_result_test {
namespace {

// A live session's cell: the value, the error and a lost state reach both the text and the
// structured result, and an error is isError.
TEST(McpCodeResult, ACellsValueErrorAndLostStateAreReported) {
  app::CodeRun run = run_with_stdout("");
  run.result.run.exit_code = 1;
  run.result.run.cell = runtime::CellReport{};
  runtime::CellReport& cell = *run.result.run.cell;
  cell.execution_count = 4;
  cell.result_text = "41";
  cell.error =
      runtime::KernelError{"NameError", "name 'y' is not defined", {"Traceback", "NameError: y"}};
  ToolResult result = code_result(run, {}, app::ServerOptions{}, {});
  EXPECT_EQ(result.is_error, true);
  EXPECT_EQ(result.structured["live"], true);
  EXPECT_EQ(result.structured["execution_count"], 4);
  EXPECT_EQ(result.structured["result"], "41");
  EXPECT_EQ(result.structured["error"]["ename"], "NameError");
  EXPECT_EQ(result.structured["error"]["traceback"].size(), 2u);
  EXPECT_EQ(result.structured["state_lost"], false);
  std::string text = text_of(result);
  EXPECT_NE(text.find("Out[4]: 41\n"), std::string::npos) << text;
  EXPECT_NE(text.find("NameError: y\n"), std::string::npos) << text;
  EXPECT_NE(text.find("error: NameError: name 'y' is not defined"), std::string::npos) << text;

  cell.error.reset();
  cell.result_text.clear();
  cell.state_lost = "the interpreter exited with code 1";
  ToolResult lost = code_result(run, {}, app::ServerOptions{}, {});
  EXPECT_EQ(lost.structured["state_lost"], true);
  EXPECT_EQ(lost.structured["state_lost_reason"], cell.state_lost);
  EXPECT_NE(text_of(lost).find("variables and imports are gone, files in /work are kept"),
            std::string::npos)
      << text_of(lost);
}

// A fork loop's stderr: the same traceback from every child. The text says it once and counts
// the rest, and its notes never send the model to structuredContent, which many clients do not
// show it.
TEST(McpCodeResult, RepeatedLinesAreFoldedAndNotesStayInTheText) {
  std::string traceback =
      "Traceback (most recent call last):\n  File \"/work/main.py\", line 4, in <module>\n"
      "    os.fork()\nBlockingIOError: [Errno 11] Resource temporarily unavailable\n";
  std::string stream;
  for (int i = 0; i < 400; ++i) stream += traceback;
  app::CodeRun run = run_with_stdout("");
  runtime::capture_chunk(run.result.run.stderr_data, stream, 1u << 20);
  ToolResult result = code_result(run, {}, app::ServerOptions{}, {});
  std::string text = text_of(result);
  EXPECT_NE(text.find(traceback + "… the same 4 lines 399 more times\n"), std::string::npos)
      << text;
  EXPECT_LT(text.size(), 1000u) << text;

  std::string lines;
  for (int i = 0; i < 20000; ++i) lines += "line " + std::to_string(i) + "\n";
  for (bool in_session : {false, true}) {
    app::CodeRun loud = run_with_stdout(lines);
    if (in_session) loud.stdout_file = "/work/.paddock/output/1.stdout";
    std::string note = text_of(code_result(loud, {}, app::ServerOptions{}, {{}, in_session}));
    EXPECT_EQ(note.find("structuredContent"), std::string::npos) << note;
    EXPECT_NE(note.find("(stdout was " + std::to_string(lines.size()) +
                        " bytes; shown here: its start and its end"),
              std::string::npos)
        << note;
    if (in_session) {
      EXPECT_NE(note.find("all of it is in /work/.paddock/output/1.stdout: read_file with path "
                          ".paddock/output/1.stdout and an offset reads it"),
                std::string::npos)
          << note;
    }
  }
}

// IRkernel names every error ERROR, and its value starts "Error in": the line says it once.
TEST(McpCodeResult, AnRErrorIsNamedOnce) {
  app::CodeRun run = run_with_stdout("");
  run.result.language = "r";
  run.result.run.exit_code = 1;
  run.result.run.cell = runtime::CellReport{};
  run.result.run.cell->error =
      runtime::KernelError{"ERROR", "Error in f(): boom\n", {"Error in f(): boom\n", "Traceback:"}};
  std::string text = text_of(code_result(run, {}, app::ServerOptions{}, {}));
  EXPECT_EQ(text.find("ERROR"), std::string::npos) << text;
  EXPECT_NE(text.find("error: Error in f(): boom (r live session"), std::string::npos) << text;
}

TEST(McpCodeResult, RefusedSystemCallsAreOneLineAndAnObject) {
  app::CodeRun run = run_with_stdout("");
  run.result.run.refused.system_calls = {{"ptrace", 2}, {"mount", 1}};
  run.result.run.refused.system_calls_counted = true;
  ToolResult result = code_result(run, {}, app::ServerOptions{}, {});
  EXPECT_NE(text_of(result).find("refused by the sandbox: ptrace \u00d72, mount \u00d71 ("),
            std::string::npos)
      << text_of(result);
  EXPECT_EQ(result.structured["refused"]["system_calls"]["ptrace"], 2);
  EXPECT_EQ(result.structured["refused"]["system_calls"]["mount"], 1);
  EXPECT_TRUE(code_output_schema()["properties"].contains("refused"));
  // Nothing refused: no object, no line.
  ToolResult quiet = code_result(run_with_stdout("ok\n"), {}, app::ServerOptions{}, {});
  EXPECT_FALSE(quiet.structured.contains("refused"));
  EXPECT_EQ(text_of(quiet).find("refused"), std::string::npos);
}

}  // namespace
}  // namespace paddock::mcp::mcp_code_result_test
