// What a model reads is bounded and not repetitive: the cap on a tool result's text, its cut
// (start and end, UTF-8 kept whole) and the folding of repeated lines.

#include <algorithm>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include <string>

#include "mcp/repeat_fold.h"
#include "mcp/result_text.h"
#include "runtime/output_capture.h"

namespace paddock::mcp::mcp_result_text_test {
namespace {

std::string repeated(const std::string& line, int times) {
  std::string text;
  for (int i = 0; i < times; ++i) text += line;
  return text;
}

TEST(McpRepeatFold, ARunOfOneLineIsShownOnceAndCounted) {
  std::string text = "start\n" + repeated("warning: x\n", 1413) + "end\n";
  EXPECT_EQ(fold_repeats(text), "start\nwarning: x\n… the same line 1,412 more times\nend\n");
}

TEST(McpRepeatFold, ARepeatedBlockIsShownOnceAndCounted) {
  std::string traceback =
      "Traceback (most recent call last):\n  File \"/work/main.py\", line 3, in <module>\n"
      "    os.fork()\nBlockingIOError: [Errno 11] Resource temporarily unavailable\n";
  std::string folded = fold_repeats("ok\n" + repeated(traceback, 300));
  EXPECT_EQ(folded, "ok\n" + traceback + "… the same 4 lines 299 more times\n");
}

TEST(McpRepeatFold, ShortRunsAndDifferentLinesStayAsTheyAre) {
  for (const std::string text :
       {"a\na\nb\n", "a\nb\na\nb\nc", "", "no newline", "x\nx", "1\n2\n3\n4\n5\n"}) {
    EXPECT_EQ(fold_repeats(text), text);
  }
  EXPECT_EQ(fold_repeats("a\na\na\nb"), "a\n… the same line 2 more times\nb");
}

// Issue 55: a fork bomb's processes each printed the same traceback, their lines interleaved.
TEST(McpRepeatFold, InterleavedCopiesOfTheSameLinesAreShownOnceAndCounted) {
  const std::vector<std::string> traceback = {
      "Traceback (most recent call last):\n", "  File \"/work/main.py\", line 3, in <module>\n",
      "    os.fork()\n", "BlockingIOError: [Errno 11] Resource temporarily unavailable\n"};
  // 40 processes, each a line at a time, taking turns in a random but fixed order.
  std::string text = "started\n";
  std::vector<std::size_t> next(40, 0);
  std::size_t left = 40 * traceback.size();
  std::mt19937 turns(55);
  while (left > 0) {
    std::size_t process = turns() % 40;
    if (next[process] < traceback.size()) {
      text += traceback[next[process]++];
      --left;
    }
  }
  // Lines written in pieces by several processes at once, run together: copies too.
  const std::string run_together =
      "BlockingIOErroros.fork()  File \"/work/main.py\", line 3, in <module>\n"
      "BlockingIOError    : os.fork()[Errno 11] Resource temporarily unavailable\n";
  text += run_together + "ended\n";
  std::string folded = fold_scattered_repeats(text);
  EXPECT_EQ(folded.rfind("started\n", 0), 0u) << folded;
  EXPECT_EQ(folded.find("BlockingIOErroros"), std::string::npos) << folded;
  EXPECT_EQ(folded.find("BlockingIOError    :"), std::string::npos) << folded;
  EXPECT_NE(folded.find("ended\n"), std::string::npos) << folded;
  for (const auto& line : traceback) {
    auto first = folded.find(line);
    EXPECT_NE(first, std::string::npos) << line;
    EXPECT_EQ(folded.find(line, first + 1), std::string::npos) << line << folded;
  }
  EXPECT_NE(folded.find("… and 158 more lines, each a copy of a line above"), std::string::npos)
      << folded;
  EXPECT_LT(folded.size(), text.size() / 10);
  // What a result shows takes the shorter of the two foldings: this one here, and the runs'
  // where the copies come back to back.
  EXPECT_EQ(fold_output(text), folded);
  std::string runs = "start\n" + repeated("warning: x\n", 1413) + "end\n";
  EXPECT_EQ(fold_output(runs), fold_repeats(runs));
  std::string block = "ok\n";
  for (int i = 0; i < 300; ++i) {
    for (const auto& line : traceback) block += line;
  }
  EXPECT_EQ(fold_output(block), fold_repeats(block));
}

TEST(McpRepeatFold, OutputOfMostlyDistinctLinesIsNotScatterFolded) {
  std::string text;
  for (int i = 0; i < 100; ++i)
    text += "row " + std::to_string(i) + "\n" + (i % 10 == 0 ? "--\n" : "");
  EXPECT_EQ(fold_scattered_repeats(text), text);
  EXPECT_EQ(fold_scattered_repeats("a\nb\na\nb\na\n"), "a\nb\na\nb\na\n");  // short
}

TEST(McpResultText, KeepStartAndEndStaysWithinTheCapAndSaysWhatItLeftOut) {
  std::string text;
  for (int i = 0; i < 20000; ++i) text += "line " + std::to_string(i) + "\n";
  std::string kept = keep_start_and_end(text, 4096);
  EXPECT_LE(kept.size(), 4096u);
  EXPECT_EQ(kept.rfind("line 0\n", 0), 0u);
  EXPECT_TRUE(kept.ends_with("line 19999\n")) << kept;
  EXPECT_NE(kept.find(" bytes left out here ...]\n"), std::string::npos) << kept;
  EXPECT_EQ(keep_start_and_end("short", 4096), "short");
}

// A 50 MB print: the capture kept 64 KiB around its own marker, and the text cut takes that
// marker with its middle. The line then counts the 50 MB the capture left out too, not the 57 KB
// between what the text shows (issue 55: "57434 bytes left out" of a 50 MB print).
TEST(McpResultText, ACutThatTakesTheCapturesMarkerCountsWhatItStoodFor) {
  runtime::CapturedOutput captured;
  runtime::capture_chunk(captured, std::string(50'000'000, 'x') + "\n", 64 << 10);
  runtime::ShownParts parts = runtime::shown_parts(captured);
  std::string text = parts.start + parts.marker + parts.end;
  InnerMarker inner{parts.start.size(), parts.marker.size(), runtime::omitted_bytes(captured)};
  std::string kept = keep_start_and_end(text, 8192, inner);
  EXPECT_LE(kept.size(), 8192u);
  auto x_bytes = static_cast<std::uint64_t>(std::count(kept.begin(), kept.end(), 'x'));
  std::uint64_t newlines_shown = 1;  // the print's own line break, at the end
  EXPECT_NE(kept.find("[... " + std::to_string(50'000'001 - x_bytes - newlines_shown) +
                      " bytes left out here ...]"),
            std::string::npos)
      << kept.substr(kept.find("[..."), 60) << " expected "
      << 50'000'001 - x_bytes - newlines_shown;
  // A cut that leaves the inner marker alone counts only its own bytes.
  std::string plain(100'000, 'y');
  EXPECT_NE(keep_start_and_end(plain, 8192, InnerMarker{99'000, 10, 5'000'000})
                .find(" bytes left out here ...]"),
            std::string::npos);
}

TEST(McpResultText, CutsNeverSplitAUtf8Character) {
  std::string text = repeated("é", 50000);  // two bytes each, no line breaks
  std::string kept = keep_start_and_end(text, 1001);
  EXPECT_LE(kept.size(), 1001u);
  auto marker = kept.find("\n[... ");
  ASSERT_NE(marker, std::string::npos);
  EXPECT_EQ(marker % 2, 0u) << "the start ends between characters";
  auto end = kept.find("...]\n") + 5;
  EXPECT_EQ((kept.size() - end) % 2, 0u) << "the end starts at a character";
  EXPECT_EQ(static_cast<unsigned char>(kept[end]), 0xC3u);
  EXPECT_EQ(utf8_prefix("aé", 2), 1u);
  EXPECT_EQ(utf8_prefix("aé", 3), 3u);
}

TEST(McpResultText, AResultsTextIsCappedAcrossItsBlocksAndSaysSo) {
  ToolResult result;
  result.content.push_back({{"type", "text"}, {"text", std::string(50000, 'a')}});
  result.content.push_back({{"type", "image"}, {"data", std::string(200000, 'A')}});
  result.content.push_back({{"type", "text"}, {"text", std::string(50000, 'b')}});
  bound_result_text(result);
  std::size_t total = 0;
  for (const auto& block : result.content) {
    if (block["type"] == "text") total += block["text"].get<std::string>().size();
  }
  EXPECT_LE(total, kResultTextBytes);
  EXPECT_EQ(result.content[1]["data"].get<std::string>().size(), 200000u) << "images are not text";
  std::string last = result.content[2]["text"];
  EXPECT_NE(last.find("this result's text was 100000 bytes: tool results are capped at 65536"),
            std::string::npos)
      << last;

  ToolResult small;
  small.content.push_back({{"type", "text"}, {"text", "fine"}});
  bound_result_text(small);
  EXPECT_EQ(small.content[0]["text"], "fine");
}

}  // namespace
}  // namespace paddock::mcp::mcp_result_text_test
