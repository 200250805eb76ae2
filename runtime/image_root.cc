#include "image_root.h"

#include "image_install.h"
#include "image_store.h"

namespace paddock {

std::optional<std::string> image_of_rootfs(const std::string& rootfs) {
  if (rootfs.starts_with("image:")) return rootfs.substr(6);
  return std::nullopt;
}

Status apply_image(const std::string& image, const std::optional<std::string>& root,
                   SandboxSpec& spec, bool as_language) {
  auto store = rootfs::ImageStore::open(root);
  if (!store) return store.error();
  auto record = store->find_image(image);
  if (!record) return record.error();
  auto config = rootfs::image_run_config(*store, *record);
  if (!config) return config.error();
  spec.image_layers.clear();
  for (auto it = record->diff_ids.rbegin(); it != record->diff_ids.rend(); ++it) {
    if (!store->has_layer(*it)) {
      return Error{ENOENT, "layer " + *it + " of " + record->reference +
                               " is missing from the store; import or pull the image again"};
    }
    spec.image_layers.push_back(store->layer_path(*it));
  }
  // The image's environment first; paddock's and the caller's settings override it by name.
  std::vector<std::string> env = config->env;
  env.insert(env.end(), spec.env.begin(), spec.env.end());
  spec.env = std::move(env);
  if (as_language) return {};
  if (spec.cwd.empty() && !config->working_dir.empty()) spec.cwd = config->working_dir;
  if (spec.argv.empty()) {
    spec.argv = config->entrypoint;
    spec.argv.insert(spec.argv.end(), config->cmd.begin(), config->cmd.end());
    if (spec.argv.empty()) {
      return invalid_input("image " + record->reference +
                           " has no entrypoint or command; give one after --");
    }
  } else if (!config->entrypoint.empty() && spec.prelude.empty()) {
    // As Docker does: the arguments replace the image's command, not its entrypoint.
    std::vector<std::string> argv = config->entrypoint;
    argv.insert(argv.end(), spec.argv.begin(), spec.argv.end());
    spec.argv = std::move(argv);
  }
  return {};
}

}  // namespace paddock
