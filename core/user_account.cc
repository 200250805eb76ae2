#include "core/user_account.h"

#include <charconv>
#include <fstream>
#include <sstream>
#include <vector>

namespace paddock::core {
namespace {

std::optional<std::uint32_t> parse_id(std::string_view text) {
  std::uint32_t value = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || text.empty()) return std::nullopt;
  return value;
}

// name:password:uid:gid:gecos:home:shell, split on ':'.
std::vector<std::string_view> fields_of(std::string_view line) {
  std::vector<std::string_view> fields;
  std::size_t start = 0;
  for (std::size_t colon; (colon = line.find(':', start)) != std::string_view::npos;) {
    fields.push_back(line.substr(start, colon - start));
    start = colon + 1;
  }
  fields.push_back(line.substr(start));
  return fields;
}

}  // namespace

std::optional<PasswdEntry> find_passwd_entry(std::string_view passwd_text, uid_t uid) {
  std::size_t start = 0;
  while (start < passwd_text.size()) {
    std::size_t end = passwd_text.find('\n', start);
    if (end == std::string_view::npos) end = passwd_text.size();
    auto fields = fields_of(passwd_text.substr(start, end - start));
    start = end + 1;
    if (fields.size() < 4 || fields[0].empty()) continue;
    auto entry_uid = parse_id(fields[2]);
    auto entry_gid = parse_id(fields[3]);
    if (!entry_uid || !entry_gid || *entry_uid != uid) continue;
    return PasswdEntry{std::string(fields[0]), *entry_uid, *entry_gid};
  }
  return std::nullopt;
}

std::optional<PasswdEntry> passwd_entry(uid_t uid) {
  std::ifstream file("/etc/passwd");
  if (!file) return std::nullopt;
  std::ostringstream text;
  text << file.rdbuf();
  return find_passwd_entry(text.str(), uid);
}

std::optional<gid_t> primary_group_of(uid_t uid) {
  auto entry = passwd_entry(uid);
  if (!entry) return std::nullopt;
  return entry->gid;
}

}  // namespace paddock::core
