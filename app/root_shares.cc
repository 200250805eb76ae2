#include "app/root_shares.h"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstring>

namespace paddock::app {
namespace {

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

// A folder's name as a share's: what is_share_name refuses becomes '_', and a name must start
// with a letter or digit ("My Project" is My_Project, ".config" is config).
std::string share_name_for(const std::string& folder) {
  std::string base = folder.substr(folder.rfind('/') + 1);
  std::string name;
  for (char c : base) {
    bool kept =
        std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '.' || c == '_' || c == '-';
    if (name.empty() && std::isalnum(static_cast<unsigned char>(c)) == 0) continue;
    name += kept ? c : '_';
  }
  if (name.size() > 64) name.resize(64);
  return name;
}

// Why `folder` may not be shared beside `other`, or empty: a share in a share would be reachable
// by two names, and one in a read-write share could be replaced by its code.
std::string overlap(const std::string& folder, const Share& other) {
  if (folder_within(folder, other.host_dir)) return "lies in the share '" + other.name + "'";
  if (folder_within(other.host_dir, folder)) return "holds the share '" + other.name + "'";
  return "";
}

}  // namespace

core::Result<std::string> local_path_of(const std::string& uri) {
  constexpr std::string_view kScheme = "file://";
  if (uri.size() < kScheme.size() ||
      !std::equal(kScheme.begin(), kScheme.end(), uri.begin(), [](char a, char b) {
        return a == std::tolower(static_cast<unsigned char>(b));
      })) {
    return core::invalid_input("is not a file:// URI");
  }
  std::string rest = uri.substr(kScheme.size());
  std::size_t slash = rest.find('/');
  std::string host = rest.substr(0, slash);
  if (!host.empty() && host != "localhost") return core::invalid_input("is on another host");
  if (slash == std::string::npos) return core::invalid_input("names no path");
  if (rest.find_first_of("?#") != std::string::npos) {
    return core::invalid_input("has a query or fragment, which a folder does not");
  }
  std::string path;
  for (std::size_t at = slash; at < rest.size(); ++at) {
    if (rest[at] != '%') {
      path += rest[at];
      continue;
    }
    int high = at + 2 < rest.size() ? hex_value(rest[at + 1]) : -1;
    int low = at + 2 < rest.size() ? hex_value(rest[at + 2]) : -1;
    if (high < 0 || low < 0) return core::invalid_input("has a broken %-escape");
    char decoded = static_cast<char>(high * 16 + low);
    if (decoded == '\0') return core::invalid_input("has a NUL in its path");
    path += decoded;
    at += 2;
  }
  return path;
}

RootShares shares_from_roots(const std::vector<ClientRoot>& roots, const Shares::List& fixed,
                             bool writable, const Shares::List& current) {
  RootShares made;
  Shares::List taken = fixed;
  for (std::size_t index = 0; index < roots.size(); ++index) {
    const ClientRoot& root = roots[index];
    std::string shown = "root " + root.uri.substr(0, 512) +
                        (root.name.empty() ? "" : " (" + root.name.substr(0, 128) + ")");
    auto skip = [&](const std::string& why) {
      made.log_lines.push_back(shown + " is not shared: it " + why);
    };
    // Counted in roots looked at, not shares made: a list of a million roots that are no folders
    // would otherwise cost a million lookups and log lines.
    if (index == kMaxRootShares) {
      made.log_lines.push_back(std::to_string(roots.size() - index) +
                               " more roots are not shared: " + std::to_string(kMaxRootShares) +
                               " at most");
      break;
    }
    auto path = local_path_of(root.uri);
    if (!path) {
      skip(path.error().message);
      continue;
    }
    // A path through a read-write share's folder may lead anywhere its code pointed a symlink
    // (/etc, as the server's user): it is not followed, whatever the client lists.
    auto planted = std::find_if(current.begin(), current.end(), [&](const SharePtr& share) {
      return share->writable && folder_within(*path, share->host_dir);
    });
    if (planted != current.end()) {
      skip("lies in the read-write share '" + (*planted)->name +
           "', where sandboxed code could have put a symlink");
      continue;
    }
    auto opened = open_share_folder(*path, *path);
    if (!opened) {
      skip(opened.error().code == ENOTDIR
               ? "is not a folder"
               : "cannot be opened: " + std::string(std::strerror(opened.error().code)));
      continue;
    }
    Share share = std::move(*opened);
    if (share.host_dir == "/") {
      skip("is the whole filesystem; the client should list a project's folder");
      continue;
    }
    std::string why;
    for (auto other = taken.begin(); why.empty() && other != taken.end(); ++other) {
      why = overlap(share.host_dir, **other);
    }
    if (!why.empty()) {
      skip(why);
      continue;
    }
    share.name = share_name_for(share.host_dir);
    if (share.name.empty()) {
      skip("has a folder name no share can take");
      continue;
    }
    if (std::any_of(taken.begin(), taken.end(),
                    [&](const SharePtr& other) { return other->name == share.name; })) {
      skip("would be named '" + share.name + "', which another share is");
      continue;
    }
    share.writable = writable;
    if (writable && access(share.host_dir.c_str(), W_OK) != 0) {
      share.writable = false;
      made.log_lines.push_back(shown + " is shared read-only: this server cannot write it");
    }
    auto shared = std::make_shared<const Share>(std::move(share));
    taken.push_back(shared);
    made.shares.push_back(std::move(shared));
  }
  return made;
}

}  // namespace paddock::app
