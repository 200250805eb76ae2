// The manifest a save leaves beside a generation: what it recorded of each file, so the next
// save links what did not change. A session may hold a million entries, so neither direction
// builds the whole document in memory: each entry is written, or read and taken, on its own.
#include "core/base64.h"
#include "core/mime_types.h"
#include "state/workspace_parts.h"

namespace paddock::state::workspace_parts {
namespace {

// A path as the manifest records it. A name is whatever bytes the sandbox gave it, and JSON
// holds only UTF-8 text: a path that is not is written as {"base64": ...}, so that every name
// is recorded as it is and two never become one.
json path_value(const std::string& path) {
  if (core::looks_like_text(path)) return path;
  return json{{"base64", core::base64_encode(path)}};
}

std::optional<std::string> path_of(const json& value) {
  if (value.is_string()) return value.get<std::string>();
  if (value.is_object() && value.contains("base64") && value.at("base64").is_string()) {
    return core::base64_decode(value.at("base64").get<std::string>());
  }
  return std::nullopt;
}

}  // namespace

std::string manifest_text(const std::map<std::string, Identity>& files) {
  std::string text = R"({"version":2,"files":[)";
  bool first = true;
  for (const auto& [path, identity] : files) {
    if (!first) text += ',';
    first = false;
    text += json::array(
                {path_value(path), identity.ino, identity.ctime_ns, identity.size, identity.digest})
                .dump();
  }
  text += "]}";
  return text;
}

// The manifest of a generation; empty when it has none or it cannot be read (then everything is
// copied: a manifest is only a way to copy less).
std::map<std::string, Identity> read_manifest(int generation_dir) {
  std::map<std::string, Identity> files;
  auto text = read_small(generation_dir, "manifest.json");
  if (!text) return files;
  // Each entry ([path, ino, ctime, size, digest]) is taken as soon as it is parsed, and left
  // out of the document, which so never holds more than one.
  json::parser_callback_t take = [&files](int, json::parse_event_t event, json& parsed) {
    if (event != json::parse_event_t::array_end || parsed.size() < 4) return true;
    auto path = path_of(parsed.at(0));
    if (!path) return true;
    files[*path] = {parsed.at(1).get<std::uint64_t>(), parsed.at(2).get<std::int64_t>(),
                    parsed.at(3).get<std::uint64_t>(),
                    parsed.size() > 4 ? parsed.at(4).get<std::string>() : ""};
    return false;
  };
  try {
    json rest = json::parse(*text, take);  // the document without its entries
    if (!rest.is_object()) files.clear();
  } catch (const json::exception&) {
    files.clear();
  }
  return files;
}

}  // namespace paddock::state::workspace_parts
