#include "app/shares.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cstring>

#include "core/beneath.h"
#include "core/thread_fs_identity.h"
#include "core/user_account.h"
#include "runtime/session.h"

namespace paddock::app {
namespace {

std::string strip_slashes(std::string path) {
  while (!path.empty() && path.front() == '/') path.erase(0, 1);
  while (!path.empty() && path.back() == '/') path.pop_back();
  return path;
}

std::string names_of(const Shares::List& shares) {
  std::string names;
  for (const auto& share : shares) names += (names.empty() ? "" : ", ") + share->name;
  return names;
}

// A leading "~/" as the user's home: MCP clients start servers without a shell to expand it.
std::string expand_home(const std::string& dir, const std::optional<std::string>& home) {
  if ((dir == "~" || dir.starts_with("~/")) && home && home->starts_with("/")) {
    return *home + dir.substr(1);
  }
  return dir;
}

// Who a transfer in `share` acts as, for an error that says what that user may not do.
std::string transfer_user(const Share& share) {
  if (geteuid() != 0) return "uid " + std::to_string(geteuid()) + ", this server's user";
  auto owner = share_owner(share);
  std::string uid = owner ? std::to_string(owner->uid) : "?";
  return "uid " + uid + ", the owner of the share's folder";
}

}  // namespace

bool is_share_name(const std::string& name) {
  if (name.empty() || name.size() > 64 || std::isalnum(static_cast<unsigned char>(name[0])) == 0) {
    return false;
  }
  return std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '.' || c == '_' || c == '-';
  });
}

core::Result<ShareSpec> parse_share_spec(const std::string& text) {
  ShareSpec spec;
  std::string rest = text;
  if (rest.ends_with(":rw") || rest.ends_with(":ro")) {
    spec.writable = rest.ends_with(":rw");
    rest.resize(rest.size() - 3);
  }
  if (auto equals = rest.rfind('='); equals != std::string::npos) {
    spec.name = rest.substr(equals + 1);
    rest.resize(equals);
    if (!is_share_name(spec.name)) {
      return core::invalid_input("share '" + text + "': '" + spec.name +
                                 "' is not a share name (letters, digits, '.', '_' and '-', e.g. "
                                 "/home/me/data=data:rw)");
    }
  }
  if (rest.empty() || rest.find('\0') != std::string::npos) {
    return core::invalid_input("share '" + text + "' names no folder; use HOST_DIR[=NAME][:rw]");
  }
  spec.host_dir = rest;
  return spec;
}

core::Result<Share> open_share_folder(const std::string& dir, const std::string& where) {
  char* real = realpath(dir.c_str(), nullptr);
  if (real == nullptr) {
    int error = errno;
    // A path through a file is EINVAL here, so that ENOTDIR means one thing: `dir` is a file.
    return core::Error{error == ENOTDIR ? EINVAL : error, where + ": " + std::strerror(error)};
  }
  Share share;
  share.host_dir = real;
  free(real);
  share.root.reset(::open(share.host_dir.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
  if (!share.root.valid()) {
    return errno == ENOTDIR ? core::Error{ENOTDIR, where + " is not a folder"}
                            : core::system_error(where);
  }
  return share;
}

bool folder_within(const std::string& inner, const std::string& outer) {
  return inner == outer || outer == "/" || inner.starts_with(outer + "/");
}

core::Result<Shares> Shares::open(const std::vector<ShareSpec>& specs,
                                  const std::optional<std::string>& home) {
  Shares shares;
  for (const auto& spec : specs) {
    std::string where = "share " + spec.host_dir;
    auto opened = open_share_folder(expand_home(spec.host_dir, home), where);
    if (!opened) {
      return core::Error{opened.error().code,
                         opened.error().message +
                             (opened.error().code == ENOTDIR
                                  ? "; share its folder instead"
                                  : " (give an existing folder: --share HOST_DIR[=NAME][:rw])")};
    }
    Share share = std::move(*opened);
    if (spec.writable && access(share.host_dir.c_str(), W_OK) != 0) {
      return core::system_error(where + " is shared :rw but cannot be written by this server");
    }
    share.name = spec.name;
    if (share.name.empty()) share.name = share.host_dir.substr(share.host_dir.rfind('/') + 1);
    if (!is_share_name(share.name)) {
      return core::invalid_input(where +
                                 ": its folder's name cannot name a share; give one, e.g. " +
                                 spec.host_dir + "=data");
    }
    if (shares.find(share.name) != nullptr) {
      return core::invalid_input(where + ": two shares are named '" + share.name +
                                 "'; name one with HOST_DIR=NAME");
    }
    share.writable = spec.writable;
    shares.fixed_.push_back(std::make_shared<const Share>(std::move(share)));
  }
  // Code with a read-write mount of a folder can replace anything beneath it, a share's folder
  // too (a symlink to /etc in its place): so no share may lie in a read-write one.
  for (const auto& outer : shares.fixed_) {
    for (const auto& inner : shares.fixed_) {
      if (outer == inner || !outer->writable) continue;
      if (folder_within(inner->host_dir, outer->host_dir)) {
        return core::invalid_input(
            "share " + inner->host_dir + " (" + inner->name + ") lies in the read-write share " +
            outer->host_dir + " (" + outer->name +
            "), whose code could replace it; share the outer folder alone, or "
            "make it read-only");
      }
    }
  }
  return shares;
}

Shares::List Shares::all() const {
  List every = fixed_;
  std::lock_guard lock(*mutex_);
  every.insert(every.end(), roots_.begin(), roots_.end());
  return every;
}

void Shares::set_roots(List roots) {
  std::lock_guard lock(*mutex_);
  roots_.swap(roots);
}

core::Status check_unmoved(const Share& share) {
  struct stat opened {};
  struct stat now {};
  if (fstat(share.root.get(), &opened) != 0 || lstat(share.host_dir.c_str(), &now) != 0 ||
      !S_ISDIR(now.st_mode) || opened.st_dev != now.st_dev || opened.st_ino != now.st_ino) {
    return core::invalid_input("the share '" + share.name +
                               "' was moved or replaced since the server started, so it is not "
                               "mounted; the user can restart the server to share it again");
  }
  return {};
}

SharePtr Shares::find(const std::string& name) const {
  for (const auto& share : all()) {
    if (share->name == name) return share;
  }
  return nullptr;
}

std::string Shares::summary() const {
  std::string text;
  for (const auto& share : all()) {
    text += (text.empty() ? "" : ", ") + share->name +
            (share->writable ? " (read-write)" : " (read-only)");
  }
  return text.empty() ? "none" : text;
}

std::string ShareLocation::shown() const {
  return relative.empty() ? share->name : share->name + "/" + relative;
}

core::Result<ShareLocation> Shares::locate(const std::string& host_path) const {
  // One snapshot: the roots may change meanwhile.
  List shares = all();
  if (shares.empty()) {
    return core::invalid_input(
        "no host folder is shared with this server, so host files cannot be used; the user "
        "can share one (paddock mcp --share HOST_DIR[=NAME][:rw])");
  }
  if (host_path.empty() || host_path.find('\0') != std::string::npos || host_path.size() > 4096) {
    return core::invalid_input("host_path must name a file in a share, e.g. " + shares[0]->name +
                               "/data.csv (shares: " + names_of(shares) + ")");
  }
  if (host_path.front() == '/') {
    // The longest folder that holds it: a share may lie inside another.
    SharePtr best;
    for (const auto& share : shares) {
      if (folder_within(host_path, share->host_dir) &&
          (best == nullptr || share->host_dir.size() > best->host_dir.size())) {
        best = share;
      }
    }
    if (best == nullptr) {
      return core::invalid_input("'" + host_path +
                                 "' is not inside a shared folder; only shares can be used (" +
                                 summary() + "), e.g. " + shares[0]->name + "/file");
    }
    return ShareLocation{best, strip_slashes(host_path.substr(best->host_dir.size()))};
  }
  std::size_t slash = host_path.find('/');
  std::string name = host_path.substr(0, slash);
  auto share = std::find_if(shares.begin(), shares.end(),
                            [&](const SharePtr& each) { return each->name == name; });
  if (share == shares.end()) {
    return core::invalid_input("'" + name + "' is not a share; host_path starts with one of: " +
                               names_of(shares) + " (e.g. " + shares[0]->name + "/data.csv)");
  }
  return ShareLocation{*share,
                       slash == std::string::npos ? "" : strip_slashes(host_path.substr(slash))};
}

core::Result<runtime::BindMount> share_bind(const Shares& shares, ShareMount& mount,
                                            const std::string& workdir,
                                            const std::vector<std::string>& own_folders) {
  SharePtr share = shares.find(mount.share);
  if (share == nullptr) {
    return core::invalid_input("mounts: '" + mount.share +
                               "' is not a share (shares: " + shares.summary() + ")");
  }
  if (mount.writable && !share->writable) {
    return core::invalid_input("mounts: the share '" + share->name +
                               "' is read-only, so it cannot be mounted rw (the user gives :rw)");
  }
  if (mount.path.empty()) mount.path = share->name;
  while (mount.path.size() > 1 && mount.path.back() == '/') mount.path.pop_back();
  if (!mount.path.starts_with("/")) {
    if (auto valid = runtime::check_session_path(mount.path); !valid) {
      return core::invalid_input("mounts: " + valid.error().message);
    }
    mount.path = workdir + "/" + strip_slashes(mount.path);
  }
  bool clean = mount.path.find("/./") == std::string::npos &&
               mount.path.find("/../") == std::string::npos && !mount.path.ends_with("/..") &&
               !mount.path.ends_with("/.") && mount.path.find("//") == std::string::npos;
  // Strictly below: a mount over /work itself would put the user's folder in place of the
  // session's own files (main.sh, written by every call).
  bool placed = (mount.path.starts_with(workdir + "/") && mount.path.size() > workdir.size() + 1) ||
                (mount.path.starts_with("/mnt/") && mount.path.size() > 5);
  if (!clean || !placed) {
    return core::invalid_input("mounts: '" + mount.path + "' must be a folder inside " + workdir +
                               " or /mnt, e.g. " + workdir + "/" + share->name);
  }
  // What paddock put there (python's sitecustomize, the user site its installs go to) would be
  // the share's instead, and run as paddock's.
  for (const auto& own : own_folders) {
    if (mount.path == own || mount.path.starts_with(own + "/") ||
        own.starts_with(mount.path + "/")) {
      return core::invalid_input(
          "mounts: '" + mount.path + "' would cover " + own +
          ", which paddock keeps for itself in this session: choose a folder "
          "outside it, e.g. " +
          workdir + "/" + share->name);
    }
  }
  if (auto unmoved = check_unmoved(*share); !unmoved) return unmoved.error();
  return runtime::BindMount{share->host_dir, mount.path, mount.writable};
}

core::Result<core::UniqueFd> open_share_for_reading(const ShareLocation& where) {
  auto owner = share_owner(*where.share);
  if (!owner) return owner.error();
  core::ThreadFsIdentity as_owner(owner->uid, owner->gid);
  if (!as_owner.status()) return as_owner.status().error();
  return open_in_share(where, O_RDONLY | O_NONBLOCK);
}

core::Result<core::UniqueFd> open_in_share(const ShareLocation& where, int flags,
                                           std::uint64_t resolve) {
  const char* path = where.relative.empty() ? "." : where.relative.c_str();
  int fd = core::open_beneath(where.share->root.get(), path, flags, resolve);
  if (fd < 0) return share_path_error(where, -fd);
  return core::UniqueFd(fd);
}

core::Result<ShareOwner> share_owner(const Share& share) {
  struct stat folder {};
  if (fstat(share.root.get(), &folder) != 0)
    return core::system_error("the share '" + share.name + "'");
  return ShareOwner{folder.st_uid, core::primary_group_of(folder.st_uid).value_or(folder.st_gid)};
}

core::Error share_path_error(const ShareLocation& where, int error) {
  std::string what = "'" + where.shown() + "'";
  std::string share = "the share '" + where.share->name + "'";
  switch (error) {
    case ENOENT:
      return core::Error{error, what + ": no such file or folder in " + share};
    case EXDEV:
      return core::Error{error,
                         what + " leads outside " + share +
                             " (through '..', an absolute path or a symlink), which is refused"};
    case ELOOP:
      return core::Error{error, what + " is or goes through a symlink, which is not followed here"};
    case ENOTDIR:
      return core::Error{error, what + ": a part of the path is not a folder"};
    case EISDIR:
      return core::Error{error, what + " is a folder"};
    case ENOSYS:
      return core::Error{error,
                         "shares need openat2 (Linux 5.6 or newer), which this kernel lacks"};
    case EACCES:
    case EPERM:
      return core::Error{error,
                         what + ": Permission denied for " + transfer_user(*where.share) +
                             ", whose rights upload_file and download_file use; the user can "
                             "change its permissions on the host"};
    default:
      return core::system_error(what, error);
  }
}

}  // namespace paddock::app
