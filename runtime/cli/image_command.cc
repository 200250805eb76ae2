#include "cli/image_command.h"

#include <unistd.h>

#include <cstdio>

#include <nlohmann/json.hpp>

#include "cli/output.h"
#include "image_import.h"
#include "image_install.h"
#include "image_store.h"

namespace paddock::cli {
namespace {

std::string human_size(std::uint64_t bytes) {
  char text[32];
  if (bytes >= (1u << 30)) {
    std::snprintf(text, sizeof text, "%.1f GiB", static_cast<double>(bytes) / (1u << 30));
  } else if (bytes >= (1u << 20)) {
    std::snprintf(text, sizeof text, "%.1f MiB", static_cast<double>(bytes) / (1u << 20));
  } else {
    std::snprintf(text, sizeof text, "%.1f KiB", static_cast<double>(bytes) / 1024);
  }
  return text;
}

int list_images(const rootfs::ImageStore& store, bool json) {
  auto records = store.images();
  if (json) {
    nlohmann::json list = nlohmann::json::array();
    for (const auto& record : records) list.push_back(rootfs::to_json(record));
    write_all(STDOUT_FILENO, list.dump(2) + "\n");
    return 0;
  }
  std::string table =
      "REFERENCE                                          ID            LAYERS  SIZE\n";
  for (const auto& record : records) {
    char line[512];
    std::snprintf(line, sizeof line, "%-50s %-13s %6zu  %s\n", record.reference.c_str(),
                  record.manifest_digest.substr(7, 12).c_str(), record.diff_ids.size(),
                  human_size(record.size).c_str());
    table += line;
  }
  write_all(STDOUT_FILENO, table);
  return 0;
}

}  // namespace

int image_command(const ImageRequest& request) {
  auto store = rootfs::ImageStore::open(request.root);
  if (!store) return fail(store.error().message);
  if (request.action == "images") return list_images(*store, request.json);
  if (request.action == "import") {
    rootfs::ImportOptions options{request.tag, request.platform};
    auto imported = rootfs::import_images(*store, request.arguments.at(0), options);
    if (!imported) return fail(imported.error().message);
    for (const auto& record : *imported) {
      write_all(STDOUT_FILENO, record.reference + " " + record.manifest_digest + "\n");
    }
    return 0;
  }
  if (request.action == "rmi") {
    for (const auto& name : request.arguments) {
      if (auto removed = store->remove_image(name); !removed) return fail(removed.error().message);
      note("removed " + name + " (its layers go at the next 'paddock gc')");
    }
    return 0;
  }
  auto collected = store->gc();
  if (!collected) return fail(collected.error().message);
  note("removed " + std::to_string(collected->blobs) + " blobs and " +
       std::to_string(collected->layers) + " layers, " + human_size(collected->bytes));
  return 0;
}

Status apply_image(const std::string& image, const std::optional<std::string>& root,
                   SandboxSpec& spec) {
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

}  // namespace paddock::cli
