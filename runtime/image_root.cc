#include "runtime/image_root.h"

#include <sys/stat.h>

#include <fstream>
#include <sstream>

#include "rootfs/image_install.h"
#include "rootfs/image_store.h"
#include "runtime/backend.h"

namespace paddock::runtime {

namespace {

// A file of the image as its overlay would show it: from the topmost layer that has it; a
// whiteout there means the image has none.
std::optional<std::string> image_file(const std::vector<std::string>& layers_top_first,
                                      const std::string& path) {
  for (const auto& layer : layers_top_first) {
    struct stat info {};
    std::string full = layer + "/" + path;
    if (lstat(full.c_str(), &info) != 0) continue;
    if (!S_ISREG(info.st_mode)) return std::nullopt;
    std::ifstream in(full);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
  }
  return std::nullopt;
}

// The numeric id of `name` in an /etc/passwd or /etc/group text (field 3).
std::optional<unsigned> id_in(const std::optional<std::string>& table, const std::string& name) {
  if (!table) return std::nullopt;
  std::istringstream lines(*table);
  for (std::string line; std::getline(lines, line);) {
    std::istringstream fields(line);
    std::string field_name, password, id;
    std::getline(fields, field_name, ':');
    std::getline(fields, password, ':');
    std::getline(fields, id, ':');
    if (field_name == name && !id.empty() &&
        id.find_first_not_of("0123456789") == std::string::npos) {
      return static_cast<unsigned>(std::stoul(id));
    }
  }
  return std::nullopt;
}

// The image config's User ("name", "uid", "name:group", "uid:gid") as the sandbox user. Root, or
// no User, is nothing: paddock's unprivileged default stays, and code never runs as root, not
// even in a user namespace.
core::Result<std::optional<SandboxUser>> resolve_user(const std::string& user,
                                                      const std::vector<std::string>& layers) {
  if (user.empty()) return std::optional<SandboxUser>();
  std::string name = user.substr(0, user.find(':'));
  std::string group = user.find(':') == std::string::npos ? "" : user.substr(user.find(':') + 1);
  auto numeric = [](const std::string& text) {
    return !text.empty() && text.find_first_not_of("0123456789") == std::string::npos;
  };
  auto passwd = image_file(layers, "etc/passwd");
  std::optional<unsigned> uid =
      numeric(name) ? std::optional<unsigned>(std::stoul(name)) : id_in(passwd, name);
  if (!uid) return core::invalid_input("the image's user '" + name + "' is not in its /etc/passwd");
  if (*uid == 0) return std::optional<SandboxUser>();
  unsigned gid = *uid;
  if (!group.empty()) {
    auto found = numeric(group) ? std::optional<unsigned>(std::stoul(group))
                                : id_in(image_file(layers, "etc/group"), group);
    if (!found)
      return core::invalid_input("the image's group '" + group + "' is not in its /etc/group");
    gid = *found;
  } else if (passwd) {
    // The user's primary group, field 4 of its passwd line.
    std::istringstream lines(*passwd);
    for (std::string line; std::getline(lines, line);) {
      std::vector<std::string> fields;
      std::istringstream parts(line);
      for (std::string field; std::getline(parts, field, ':');) fields.push_back(field);
      if (fields.size() > 3 && (fields[0] == name || fields[2] == std::to_string(*uid)) &&
          numeric(fields[3])) {
        gid = static_cast<unsigned>(std::stoul(fields[3]));
        break;
      }
    }
  }
  if (gid == 0) gid = *uid;
  SandboxUser resolved;
  resolved.uid = *uid;
  resolved.gid = gid;
  if (!numeric(name)) resolved.name = name;
  return std::optional<SandboxUser>(resolved);
}

}  // namespace

std::optional<std::string> image_of_rootfs(const std::string& rootfs) {
  if (rootfs.starts_with("image:")) return rootfs.substr(6);
  return std::nullopt;
}

core::Result<ImageRoot> parse_image_root(const std::optional<std::string>& setting) {
  std::string value = setting.value_or("");
  if (value.empty() || value == "auto") return ImageRoot::kAuto;
  if (value == "overlay") return ImageRoot::kOverlay;
  if (value == "flattened") return ImageRoot::kFlattened;
  return core::invalid_input("PADDOCK_IMAGE_ROOT='" + value +
                             "' is not one of auto, overlay, flattened; unset it for auto");
}

core::Result<ResolvedImage> resolve_store_image(const std::string& image, const std::string& root,
                                                ImageRoot mode) {
  auto store = rootfs::ImageStore::open(root);
  if (!store) return store.error();
  auto record = store->find_image(image);
  if (!record) return record.error();
  auto config = rootfs::image_run_config(*store, *record);
  if (!config) return config.error();
  ResolvedImage resolved;
  resolved.reference = record->reference;
  for (auto it = record->diff_ids.rbegin(); it != record->diff_ids.rend(); ++it) {
    if (!store->has_layer(*it)) {
      return core::Error{ENOENT, "layer " + *it + " of " + record->reference +
                                     " is missing from the store; import or pull the image again"};
    }
    resolved.layers.push_back(store->layer_path(*it));
  }
  resolved.root = mode;
  resolved.flattened_dir = store->flattened_path(*record);
  resolved.env = config->env;
  auto user = resolve_user(config->user, resolved.layers);
  if (!user) return user.error().context("image " + record->reference);
  resolved.user = *user;
  resolved.working_dir = config->working_dir;
  resolved.entrypoint = config->entrypoint;
  resolved.cmd = config->cmd;
  return resolved;
}

core::Status apply_image(const ResolvedImage& image, SandboxShape& shape, RunPlan& plan,
                         bool as_language) {
  shape.image = image.reference;
  shape.image_layers = image.layers;
  shape.image_root = image.root;
  shape.image_flattened_dir = image.flattened_dir;
  // The image's environment first; paddock's and the caller's settings override it by name.
  std::vector<std::string> env = image.env;
  env.insert(env.end(), plan.env.begin(), plan.env.end());
  plan.env = std::move(env);
  if (image.user) shape.user = *image.user;
  if (as_language || image.layers.empty()) return {};
  if (plan.cwd.empty() && !image.working_dir.empty()) plan.cwd = image.working_dir;
  if (plan.program().empty()) {
    std::vector<std::string> argv = image.entrypoint;
    argv.insert(argv.end(), image.cmd.begin(), image.cmd.end());
    if (argv.empty()) {
      return core::invalid_input("image " + image.reference +
                                 " has no entrypoint or command; give one after --");
    }
    if (plan.steps.empty()) plan.steps.emplace_back();
    plan.steps.back() = std::move(argv);
  } else if (!image.entrypoint.empty() && plan.steps.size() == 1) {
    // As Docker does: the arguments replace the image's command, not its entrypoint.
    std::vector<std::string> argv = image.entrypoint;
    argv.insert(argv.end(), plan.steps.back().begin(), plan.steps.back().end());
    plan.steps.back() = std::move(argv);
  }
  return {};
}

core::Result<bool> Backend::has_image(const std::string& /*image*/) const {
  return true;
}

core::Status Backend::pull_image(const std::string& image, const PullProgress& /*progress*/) const {
  return core::Error{ENOTSUP, "the " + std::string(name()) + " backend cannot pull " + image};
}

core::Result<ResolvedImage> Backend::resolve_image(
    const std::string& image, const std::optional<std::string>& /*store_root*/) const {
  return core::Error{ENOTSUP,
                     "the " + std::string(name()) + " backend has no image store for " + image};
}

}  // namespace paddock::runtime
