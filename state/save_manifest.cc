// The manifest a save leaves beside a generation: what it recorded of each file, so the next
// save links what did not change.
#include "state/workspace_parts.h"

namespace paddock::state::workspace_parts {

json manifest_json(const std::map<std::string, Identity>& files) {
  json entries = json::array();
  for (const auto& [path, identity] : files) {
    entries.push_back({path, identity.ino, identity.ctime_ns, identity.size, identity.digest});
  }
  return {{"version", 2}, {"files", std::move(entries)}};
}

// The manifest of a generation; empty when it has none or it cannot be read (then everything is
// copied: a manifest is only a way to copy less).
std::map<std::string, Identity> read_manifest(int generation_dir) {
  std::map<std::string, Identity> files;
  auto text = read_small(generation_dir, "manifest.json");
  if (!text) return files;
  try {
    // Held here: a range-for over a member of a temporary would read freed memory.
    json manifest = json::parse(*text);
    for (const auto& entry : manifest.at("files")) {
      files[entry.at(0).get<std::string>()] = {
          entry.at(1).get<std::uint64_t>(), entry.at(2).get<std::int64_t>(),
          entry.at(3).get<std::uint64_t>(), entry.size() > 4 ? entry.at(4).get<std::string>() : ""};
    }
  } catch (const json::exception&) {
    files.clear();
  }
  return files;
}

}  // namespace paddock::state::workspace_parts
