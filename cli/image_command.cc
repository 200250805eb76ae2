#include "cli/image_command.h"

#include <unistd.h>

#include <cstdio>

#include <nlohmann/json.hpp>

#include "cli/host_paths.h"
#include "cli/output.h"
#include "core/text.h"
#include "rootfs/image_store.h"

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
    core::write_all(STDOUT_FILENO, list.dump(2) + "\n");
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
  core::write_all(STDOUT_FILENO, table);
  return 0;
}

}  // namespace

int image_command(const ImageRequest& request) {
  auto store = rootfs::ImageStore::open(
      request.root.value_or(default_store_root(config::process_environment())));
  if (!store) return fail(store.error().message);
  if (request.action == "images") return list_images(*store, request.json);
  if (request.action == "rmi") {
    for (const auto& name : request.arguments) {
      if (auto removed = store->remove_image(name); !removed) return fail(removed.error().message);
      note("removed " + name + " (its layers go at the next 'paddock gc')");
    }
    return 0;
  }
  auto collected = store->gc();
  if (!collected) return fail(collected.error().message);
  note("removed " + core::counted(collected->blobs, "blob", "blobs") + ", " +
       core::counted(collected->layers, "layer", "layers") + " and " +
       core::counted(collected->flattened, "flattened copy", "flattened copies") + ", " +
       human_size(collected->bytes));
  return 0;
}

}  // namespace paddock::cli
