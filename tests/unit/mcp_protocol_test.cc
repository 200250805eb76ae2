#include "mcp/protocol.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace paddock::mcp::mcp_protocol_test {
namespace {

json meta_params(const json& version) {
  return json{{"_meta", {{kVersionMetaKey, version}}}, {"name", "execute_code"}};
}

TEST(McpProtocol, NegotiatesEveryLegacyVersion) {
  for (const char* version : {"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}) {
    EXPECT_EQ(negotiate_version(json(version)), version);
  }
}

TEST(McpProtocol, UnknownVersionsGetTheNewestLegacyOne) {
  for (const json& requested : {json("2023-01-01"), json("2026-07-28"), json(""), json(20251125),
                                json(nullptr), json::object(), json::array({"2025-06-18"})}) {
    EXPECT_EQ(negotiate_version(requested), "2025-11-25") << requested.dump();
  }
}

TEST(McpProtocol, SupportedVersionsNewestFirst) {
  EXPECT_EQ(supported_versions(),
            (std::vector<std::string>{"2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26",
                                      "2024-11-05"}));
}

TEST(McpProtocol, StatelessEraFromMeta) {
  EraChoice choice = era_from_meta(meta_params("2026-07-28"));
  EXPECT_TRUE(choice.from_meta);
  EXPECT_FALSE(choice.unsupported);
  EXPECT_TRUE(choice.era.stateless);
  EXPECT_EQ(choice.era.version, "2026-07-28");
}

TEST(McpProtocol, NoMetaMeansTheLegacyEra) {
  for (const json& params :
       {json(nullptr), json::object(), json{{"name", "x"}}, json{{"_meta", {{"progressToken", 1}}}},
        json{{"_meta", "v"}}, json::array()}) {
    EraChoice choice = era_from_meta(params);
    EXPECT_FALSE(choice.from_meta) << params.dump();
    EXPECT_FALSE(choice.unsupported) << params.dump();
    EXPECT_FALSE(choice.era.stateless) << params.dump();
  }
}

TEST(McpProtocol, UnsupportedMetaVersionIsAnError) {
  EraChoice choice = era_from_meta(meta_params("2027-01-01"));
  EXPECT_TRUE(choice.from_meta);
  EXPECT_TRUE(choice.unsupported);
  EXPECT_EQ(choice.error.code, -32022);
  EXPECT_EQ(choice.error.code, kUnsupportedProtocolVersion);
  EXPECT_NE(choice.error.message.find("2027-01-01"), std::string::npos) << choice.error.message;
  EXPECT_EQ(choice.error.data,
            (json{{"requested", "2027-01-01"},
                  {"supported",
                   {"2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}}}));
}

TEST(McpProtocol, LegacyVersionsInMetaAreNotStateless) {
  // Per-request _meta belongs to 2026-07-28; a legacy version there is refused, not honoured.
  EraChoice choice = era_from_meta(meta_params("2025-11-25"));
  EXPECT_TRUE(choice.unsupported);
  EXPECT_EQ(choice.error.data["requested"], "2025-11-25");
}

TEST(McpProtocol, NonStringMetaVersionIsAnError) {
  EraChoice choice = era_from_meta(meta_params(20260728));
  EXPECT_TRUE(choice.unsupported);
  EXPECT_EQ(choice.error.code, kUnsupportedProtocolVersion);
  EXPECT_EQ(choice.error.data["requested"], "20260728");
}

TEST(McpProtocol, LegacyResultsAreUntouched) {
  json result{{"content", json::array()}};
  Era legacy{"2025-11-25", false};
  EXPECT_EQ(finish_result(result, legacy), result);
  EXPECT_EQ(finish_result(result, legacy, CachePolicy{true, 1000, true}), result);
}

TEST(McpProtocol, StatelessResultsSayTheirType) {
  Era stateless{"2026-07-28", true};
  json finished = finish_result(json{{"content", json::array()}}, stateless);
  EXPECT_EQ(finished["resultType"], "complete");
  EXPECT_EQ(finished["content"], json::array());
  EXPECT_FALSE(finished.contains("ttlMs")) << finished.dump();
  EXPECT_FALSE(finished.contains("cacheScope")) << finished.dump();
}

TEST(McpProtocol, CacheableStatelessResultsSayHowLong) {
  Era stateless{"2026-07-28", true};
  json shared = finish_result(json{{"tools", json::array()}}, stateless, {true, 60000, true});
  EXPECT_EQ(shared["resultType"], "complete");
  EXPECT_EQ(shared["ttlMs"], 60000);
  EXPECT_EQ(shared["cacheScope"], "public");

  json own = finish_result(json::object(), stateless, {true, 5, false});
  EXPECT_EQ(own["ttlMs"], 5);
  EXPECT_EQ(own["cacheScope"], "private");
}

}  // namespace
}  // namespace paddock::mcp::mcp_protocol_test
