// The audit log's line for a call that `paddock wrap` passed to the server it wraps (issue 52,
// item 5): the server, the tool, the argument names and sizes, the values only when recorded and
// then masked whatever their names, and the code runs' lines as they were.

#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "app/audit_log.h"
#include "support/temp_folder.h"

namespace paddock::app::app_audit_log_test {
namespace {

using json = nlohmann::json;

std::vector<json> log_lines(const std::string& path) {
  std::ifstream file(path);
  std::vector<json> lines;
  for (std::string line; std::getline(file, line);) lines.push_back(json::parse(line));
  return lines;
}

AuditRecord wrapped_record() {
  AuditRecord record;
  record.outcome = "ok";
  record.duration_ms = 12;
  record.wrapped = WrappedCallAudit{"filesystem", "read_file", {{"path", 14}, {"head", 2}}, {}};
  return record;
}

TEST(AuditLogWrappedCall, IsOneLineWithNamesAndSizesButNoValues) {
  testing::TempFolder folder("audit-wrapped");
  auto log = AuditLog::open(folder / "audit.jsonl");
  ASSERT_TRUE(log) << log.error().message;
  (*log)->record(wrapped_record(), SecretMask({}));
  auto lines = log_lines(folder / "audit.jsonl");
  ASSERT_EQ(lines.size(), 1u);
  const json& line = lines[0];
  EXPECT_EQ(line["tool"], "tools/call");
  EXPECT_EQ(line["server"], "filesystem");
  EXPECT_EQ(line["wrapped_tool"], "read_file");
  EXPECT_EQ(line["arguments"], (json{{"path", 14}, {"head", 2}}));
  EXPECT_EQ(line["outcome"], "ok");
  EXPECT_EQ(line["duration_ms"], 12);
  EXPECT_TRUE(line["time"].is_string());
  EXPECT_FALSE(line.contains("values"));
  EXPECT_FALSE(line.contains("error"));
  EXPECT_FALSE(line.contains("language"));  // a code run's fields are not a wrapped call's
  EXPECT_FALSE(line.contains("limits"));
}

TEST(AuditLogWrappedCall, ValuesAndErrorsAreMaskedWhateverTheirNames) {
  testing::TempFolder folder("audit-wrapped-values");
  auto log = AuditLog::open(folder / "audit.jsonl");
  ASSERT_TRUE(log) << log.error().message;
  AuditRecord record = wrapped_record();
  record.outcome = "error";
  record.error = "no such file: /work/Secret123.txt";
  record.wrapped->values = json{{"path", "/work/SECRET123.txt"},
                                {"type", "secret123"},  // kept by the protocol's own mask
                                {"blob", "Secret123"},
                                {"nested", {{"Secret123", {1, "x secret123 y"}}}}};
  (*log)->record(record, SecretMask({"TOKEN=Secret123"}));
  auto lines = log_lines(folder / "audit.jsonl");
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0]["values"], (json{{"path", "/work/***.txt"},
                                      {"type", "***"},
                                      {"blob", "***"},
                                      {"nested", {{"***", {1, "x *** y"}}}}}));
  EXPECT_EQ(lines[0]["error"], "no such file: /work/***.txt");
  EXPECT_EQ(lines[0]["outcome"], "error");
}

TEST(AuditLogWrappedCall, ACodeRunsLineIsUnchanged) {
  testing::TempFolder folder("audit-run");
  auto log = AuditLog::open(folder / "audit.jsonl");
  ASSERT_TRUE(log) << log.error().message;
  AuditRecord record;
  record.tool = "execute_code";
  record.language = "python";
  record.code = "print(1)";
  record.backend = "native";
  record.outcome = "exited";
  record.exit_code = 0;
  (*log)->record(record, SecretMask({}));
  auto lines = log_lines(folder / "audit.jsonl");
  ASSERT_EQ(lines.size(), 1u);
  std::vector<std::string> keys;
  for (const auto& [key, value] : lines[0].items()) keys.push_back(key);
  EXPECT_EQ(keys, (std::vector<std::string>{"backend", "code_sha256", "duration_ms", "exit_code",
                                            "language", "libraries", "limits", "outcome", "session",
                                            "time", "tool"}));
  EXPECT_EQ(lines[0]["tool"], "execute_code");
}

}  // namespace
}  // namespace paddock::app::app_audit_log_test
