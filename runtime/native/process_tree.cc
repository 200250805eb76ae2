#include "runtime/native/process_tree.h"

#include <algorithm>
#include <charconv>
#include <unordered_map>

#include "core/files.h"

namespace paddock::native {

pid_t parent_in_stat(std::string_view stat) {
  std::size_t close = stat.rfind(')');
  // After the command: " STATE PPID".
  if (close == std::string_view::npos || close + 4 >= stat.size()) return 0;
  std::string_view rest = stat.substr(close + 4);
  pid_t parent = 0;
  auto [end, error] = std::from_chars(rest.data(), rest.data() + rest.size(), parent);
  return error == std::errc{} && end != rest.data() ? parent : 0;
}

bool zombie_in_stat(std::string_view stat) {
  std::size_t close = stat.rfind(')');
  return close != std::string_view::npos && close + 2 < stat.size() && stat[close + 2] == 'Z';
}

std::vector<ProcessParent> read_process_parents(const std::string& proc) {
  std::vector<ProcessParent> processes;
  for (const auto& name : core::directory_names(proc)) {
    if (name.empty() ||
        !std::all_of(name.begin(), name.end(), [](char c) { return c >= '0' && c <= '9'; })) {
      continue;
    }
    auto stat = core::read_text_file(proc + "/" + name + "/stat", "process status");
    // Ended meanwhile, or a zombie: it runs nothing and goes when its parent reaps it (a live
    // kernel reaps a killed subprocess only when the cell's code next asks).
    if (!stat || zombie_in_stat(*stat)) continue;
    processes.push_back({static_cast<pid_t>(std::stol(name)), parent_in_stat(*stat)});
  }
  return processes;
}

std::vector<pid_t> descendants(pid_t root, const std::vector<ProcessParent>& processes) {
  std::unordered_multimap<pid_t, pid_t> children;
  for (const auto& process : processes) {
    if (process.pid != process.parent) children.emplace(process.parent, process.pid);
  }
  std::vector<pid_t> found;
  std::vector<pid_t> pending = {root};
  while (!pending.empty()) {
    pid_t parent = pending.back();
    pending.pop_back();
    auto [first, last] = children.equal_range(parent);
    for (auto child = first; child != last; ++child) {
      found.push_back(child->second);
      pending.push_back(child->second);
    }
    // Read one by one, parents may form a loop when PIDs were reused meanwhile: each is
    // followed once.
    children.erase(first, last);
  }
  return found;
}

std::uint32_t count_descendants(pid_t root, const std::vector<ProcessParent>& processes) {
  return static_cast<std::uint32_t>(descendants(root, processes).size());
}

}  // namespace paddock::native
