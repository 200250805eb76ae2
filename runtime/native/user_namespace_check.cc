#include "runtime/native/user_namespace_check.h"

#include "core/files.h"

namespace paddock::native {
namespace {

std::optional<std::string> setting(const char* path) {
  std::string text = core::read_text_or_empty(path);
  if (text.empty()) return std::nullopt;
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  return text;
}

}  // namespace

UserNamespaceHost describe_user_namespaces(bool can_create) {
  UserNamespaceHost host;
  host.can_create = can_create;
  host.max_user_namespaces = setting("/proc/sys/user/max_user_namespaces").value_or("");
  host.unprivileged_userns_clone = setting("/proc/sys/kernel/unprivileged_userns_clone");
  host.apparmor_restrict_userns = setting("/proc/sys/kernel/apparmor_restrict_unprivileged_userns");
  return host;
}

Check user_namespace_check(const UserNamespaceHost& host) {
  bool restricted = host.apparmor_restrict_userns == "1";
  if (host.can_create) {
    return {true, "max_user_namespaces=" + host.max_user_namespaces +
                      (restricted ? " (AppArmor restricts them; a profile allows paddock)" : "")};
  }
  // Ubuntu 23.10 and later: AppArmor refuses user namespaces to programs without a profile
  // that allows them. The one fix to name first is the profile, which loosens nothing else.
  if (restricted) {
    return {
        false,
        "AppArmor refuses unprivileged user namespaces "
        "(kernel.apparmor_restrict_unprivileged_userns=1): install the paddock package, whose "
        "profile /etc/apparmor.d/paddock allows them to paddock alone (docs/packaging.md), or "
        "allow them to every program: sudo sysctl kernel.apparmor_restrict_unprivileged_userns=0"};
  }
  if (host.max_user_namespaces == "0") {
    return {false,
            "user namespaces are switched off (user.max_user_namespaces=0): sudo sysctl "
            "user.max_user_namespaces=15000"};
  }
  if (host.unprivileged_userns_clone == "0") {
    return {false,
            "unprivileged user namespaces are switched off "
            "(kernel.unprivileged_userns_clone=0): sudo sysctl "
            "kernel.unprivileged_userns_clone=1"};
  }
  return {false, "cannot create a user namespace (max_user_namespaces=" + host.max_user_namespaces +
                     "); a container or seccomp policy around paddock may refuse unshare"};
}

}  // namespace paddock::native
