// A kept stream holds its start and its end within the cap, and says what it left out.

#include "runtime/output_capture.h"

#include <gtest/gtest.h>

namespace paddock::output_capture_test {
namespace {

runtime::CapturedOutput capture(const std::string& stream, std::size_t chunk, std::uint64_t cap) {
  runtime::CapturedOutput output;
  for (std::size_t at = 0; at < stream.size(); at += chunk) {
    runtime::capture_chunk(output, std::string_view(stream).substr(at, chunk), cap);
  }
  return output;
}

std::string numbered(int lines) {
  std::string text;
  for (int i = 1; i <= lines; ++i) text += "line " + std::to_string(i) + "\n";
  return text;
}

TEST(OutputCapture, WhatFitsIsKeptWhole) {
  std::string stream = numbered(10);
  for (std::size_t chunk : {std::size_t{1}, std::size_t{7}, std::size_t{1000}}) {
    runtime::CapturedOutput output = capture(stream, chunk, stream.size());
    EXPECT_EQ(output.data, stream);
    EXPECT_FALSE(output.truncated);
    EXPECT_EQ(runtime::omitted_bytes(output), 0u);
    EXPECT_EQ(runtime::shown_text(output), stream);
  }
}

TEST(OutputCapture, ALongStreamKeepsItsStartAndItsEnd) {
  std::string stream = numbered(100000);
  for (std::size_t chunk :
       {std::size_t{1}, std::size_t{13}, std::size_t{4096}, std::size_t{65536}, stream.size()}) {
    runtime::CapturedOutput output = capture(stream, chunk, 1000);
    ASSERT_EQ(output.data.size(), 1000u) << chunk;
    EXPECT_TRUE(output.truncated);
    EXPECT_EQ(output.total_bytes, stream.size());
    EXPECT_EQ(output.head_bytes, 500u);
    EXPECT_EQ(output.data.substr(0, 500), stream.substr(0, 500)) << chunk;
    EXPECT_EQ(output.data.substr(500), stream.substr(stream.size() - 500)) << chunk;
    EXPECT_EQ(runtime::omitted_bytes(output), stream.size() - 1000);
  }
}

TEST(OutputCapture, TheShownTextMarksTheGapWithItsSize) {
  std::string stream = numbered(1000);
  runtime::CapturedOutput output = capture(stream, 100, 200);
  std::string shown = runtime::shown_text(output);
  EXPECT_EQ(shown.rfind("line 1\n", 0), 0u);
  EXPECT_NE(shown.find("[... " + std::to_string(stream.size() - 200) + " bytes left out here, of " +
                       std::to_string(stream.size()) + " ...]\n"),
            std::string::npos)
      << shown;
  EXPECT_EQ(shown.substr(shown.size() - 10), "line 1000\n");
}

TEST(OutputCapture, ShorteningKeepsTheStartsStartAndTheEndsEnd) {
  std::string stream = numbered(100000);
  runtime::CapturedOutput kept = capture(stream, 4096, 10000);
  runtime::CapturedOutput cut = runtime::shortened(kept, 100);
  EXPECT_EQ(cut.data.size(), 100u);
  EXPECT_EQ(cut.data.substr(0, 50), stream.substr(0, 50));
  EXPECT_EQ(cut.data.substr(50), stream.substr(stream.size() - 50));
  EXPECT_EQ(cut.total_bytes, stream.size());
  EXPECT_EQ(runtime::omitted_bytes(cut), stream.size() - 100);
  // A stream that was whole is cut the same way, and one that fits stays whole.
  runtime::CapturedOutput whole = capture("abcdefghij", 3, 100);
  runtime::CapturedOutput half = runtime::shortened(whole, 4);
  EXPECT_EQ(half.data, "abij");
  EXPECT_EQ(runtime::shortened(whole, 10).data, "abcdefghij");
  EXPECT_FALSE(runtime::shortened(whole, 10).truncated);
}

TEST(OutputCapture, EarlierStepsOutputJoinsTheStart) {
  runtime::CapturedOutput output = capture(numbered(1000), 100, 200);
  std::string end = output.data.substr(output.head_bytes);
  runtime::put_in_front(output, "compiler: ok\n");
  EXPECT_EQ(output.data.rfind("compiler: ok\nline 1\n", 0), 0u);
  EXPECT_EQ(output.data.substr(output.head_bytes), end);
  runtime::CapturedOutput short_one = capture("ran\n", 4, 200);
  runtime::put_in_front(short_one, "installed\n");
  EXPECT_EQ(runtime::shown_text(short_one), "installed\nran\n");
}

TEST(OutputCapture, AZeroCapKeepsNothingAndCountsEverything) {
  runtime::CapturedOutput output = capture("some output", 3, 0);
  EXPECT_TRUE(output.data.empty());
  EXPECT_EQ(output.total_bytes, 11u);
  EXPECT_TRUE(output.truncated);
}

}  // namespace
}  // namespace paddock::output_capture_test
