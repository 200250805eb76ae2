#include "runtime/native/init/host_layout.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <set>

#include "core/files.h"
#include "runtime/sandbox_parts.h"

namespace paddock::init {
namespace {

// The entry at `path`, if it is a directory, a symlink, or (when `allow_file`) a file the sandbox
// user could read: only world-readable files are taken. A file's bytes are read only when
// `with_content`: a flattened image's, which are written into the sandbox; the host's are bound.
// One lstat: every run probes some twenty entries.
std::optional<HostLayout::Entry> read_entry(const std::string& path, std::string name,
                                            bool allow_file, bool with_content) {
  struct stat info {};
  if (lstat(path.c_str(), &info) != 0) return std::nullopt;
  HostLayout::Entry entry{std::move(name), HostLayout::Entry::Type::kDirectory, ""};
  if (S_ISLNK(info.st_mode)) {
    std::array<char, 4096> target{};
    ssize_t length = readlink(path.c_str(), target.data(), target.size() - 1);
    entry.type = HostLayout::Entry::Type::kSymlink;
    entry.content.assign(target.data(), static_cast<std::size_t>(std::max<ssize_t>(length, 0)));
  } else if (S_ISREG(info.st_mode)) {
    if (!allow_file || (info.st_mode & S_IROTH) == 0) return std::nullopt;
    entry.type = HostLayout::Entry::Type::kFile;
    if (!with_content) return entry;
    entry.content = core::read_text_or_empty(path);
  } else if (!S_ISDIR(info.st_mode)) {
    return std::nullopt;
  }
  return entry;
}

}  // namespace

const std::vector<std::string>& host_etc_allowlist() {
  // Only what programs read at run time; every entry costs each run a copy or a bind. What one
  // language's programs need (python3, R, java-17-openjdk...) its policy names (host_etc).
  static const std::vector<std::string> kEntries = {
      "alternatives", "ld.so.cache", "ld.so.conf",      "ld.so.conf.d",   "localtime",
      "timezone",     "ssl",         "ca-certificates", "fonts",          "mime.types",
      "protocols",    "services",    "os-release",      "debian_version", "gai.conf",
  };
  return kEntries;
}

HostLayout probe_host_layout() {
  HostLayout layout;
  for (const char* name : {"bin", "sbin", "lib", "lib32", "lib64", "libx32"}) {
    std::string path = std::string("/") + name;
    if (auto entry = read_entry(path, name, false, false)) {
      layout.top_level.push_back(std::move(*entry));
    }
  }
  for (const auto& name : host_etc_allowlist()) {
    if (auto entry = probe_host_etc(name)) layout.etc.push_back(std::move(*entry));
  }
  struct stat bundle {};
  layout.has_trust_bundle =
      lstat(runtime::kSandboxTrustBundle, &bundle) == 0 && S_ISREG(bundle.st_mode);
  struct stat python {};
  layout.python3_without_python =
      access("/usr/bin/python3", X_OK) == 0 && lstat("/usr/bin/python", &python) != 0;
  return layout;
}

std::vector<HostLayout::Entry> probe_extra_etc(const HostLayout& base,
                                               const std::vector<std::string>& names) {
  std::vector<HostLayout::Entry> extra;
  for (const auto& name : names) {
    bool known = std::any_of(base.etc.begin(), base.etc.end(),
                             [&](const HostLayout::Entry& entry) { return entry.name == name; });
    if (known) continue;
    if (auto entry = probe_host_etc(name)) extra.push_back(std::move(*entry));
  }
  return extra;
}

std::optional<HostLayout::Entry> probe_host_etc(const std::string& name) {
  std::string path = "/etc/" + name;
  return read_entry(path, name, true, false);
}

core::Status check_image_etc(const std::vector<std::string>& layers) {
  // Top layer first: the first that has /etc decides what the image's /etc is. lstat: the
  // layers are paddock's own store, and only the last component could be a symlink.
  for (const auto& layer : layers) {
    struct stat info {};
    if (lstat((layer + "/etc").c_str(), &info) != 0) continue;
    if (S_ISDIR(info.st_mode) || S_ISCHR(info.st_mode)) return {};  // a directory, or deleted
    const char* what = S_ISLNK(info.st_mode) ? "a symlink" : "not a directory";
    return core::invalid_input(
        std::string("the image's /etc is ") + what +
        "; paddock puts the sandbox's own files there and refuses to follow it "
        "(rebuild the image with /etc as a directory)");
  }
  return {};
}

HostLayout probe_flattened_image(const std::string& root, const std::string& workdir) {
  HostLayout layout;
  layout.flattened_image = true;
  std::set<std::string> made_by_paddock = {
      "etc", "dev", "proc", "sys", "tmp", workdir.substr(1, workdir.find('/', 1) - 1)};
  // Sorted: the same plan for the same image, every time.
  for (const auto& name : core::directory_names(root)) {
    std::string path = root + "/" + name;
    if (made_by_paddock.count(name) > 0) continue;
    if (auto entry = read_entry(path, name, false, true)) {
      layout.top_level.push_back(std::move(*entry));
    }
  }
  static const std::set<std::string> kIdentityFiles = {"passwd", "group",         "hostname",
                                                       "hosts",  "nsswitch.conf", "resolv.conf"};
  for (const auto& name : core::directory_names(root + "/etc")) {
    std::string path = root + "/etc/" + name;
    if (kIdentityFiles.count(name) > 0) continue;
    if (auto entry = read_entry(path, name, true, true)) layout.etc.push_back(std::move(*entry));
  }
  return layout;
}

}  // namespace paddock::init
