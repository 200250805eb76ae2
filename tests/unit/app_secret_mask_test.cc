// The secret mask in the forms text leaves the server in: any ASCII case (the egress proxy
// lowercases host names), and every string of a JSON message but those the protocol needs.

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "app/secret_mask.h"

namespace paddock::app::app_secret_mask_test {
namespace {

using json = nlohmann::json;

TEST(SecretMaskCase, MatchesAValueInAnyCase) {
  SecretMask mask({"TOKEN=MiXeD-Secret-42"});
  EXPECT_EQ(mask.apply("host mixed-secret-42.example.org"), "host ***.example.org");
  EXPECT_EQ(mask.apply("MIXED-SECRET-42 and MiXeD-Secret-42"), "*** and ***");
  EXPECT_EQ(mask.apply("cut at MIXED-SEC", true), "cut at ***");
  EXPECT_TRUE(mask.found_in(std::string("\0\1mixed-secret-42\2", 19)));
  EXPECT_FALSE(mask.found_in("mixed-secret-4"));
}

TEST(SecretMaskJson, MasksEveryStringAndKeyButTheProtocolsOwnFields) {
  SecretMask mask({"TOKEN=Secret123"});
  json message = {
      {"jsonrpc", "2.0"},
      {"id", "secret123"},  // the client's own id comes back as it was sent
      {"result",
       {{"content",
         json::array(
             {{{"type", "text"}, {"text", "denied secret123.example.org"}},
              {{"type", "image"}, {"data", "U2VjcmV0MTIz"}, {"mimeType", "image/png"}},
              {{"type", "resource"},
               {"resource", {{"uri", "file:///work/SECRET123.txt"}, {"blob", "secret123"}}}}})},
        {"structuredContent",
         {{"artifacts_omitted", json::array({{{"name", "out-SECRET123.csv"}}})},
          {"by_name", {{"Secret123.txt", 1}}},
          {"id", "Secret123"}}}}}};
  mask.apply_to(message);
  EXPECT_EQ(message["id"], "secret123");
  EXPECT_EQ(message["jsonrpc"], "2.0");
  const json& content = message["result"]["content"];
  EXPECT_EQ(content[0]["text"], "denied ***.example.org");
  EXPECT_EQ(content[1]["data"], "U2VjcmV0MTIz");  // base64: screened before it was encoded
  EXPECT_EQ(content[2]["resource"]["uri"], "file:///work/***.txt");
  EXPECT_EQ(content[2]["resource"]["blob"], "secret123");
  const json& structured = message["result"]["structuredContent"];
  EXPECT_EQ(structured["artifacts_omitted"][0]["name"], "out-***.csv");
  EXPECT_TRUE(structured["by_name"].contains("***.txt")) << structured.dump();
  EXPECT_EQ(structured["id"], "***");  // an id below the envelope is data like any other
}

TEST(SecretMaskJson, LeavesAMessageAloneWithoutSecrets) {
  json message = {{"result", {{"text", "Secret123"}}}};
  SecretMask({}).apply_to(message);
  EXPECT_EQ(message["result"]["text"], "Secret123");
}

}  // namespace
}  // namespace paddock::app::app_secret_mask_test
