#include "config/table.h"

#include "config/rows.h"

namespace paddock::config {

const std::vector<Setting>& settings_table() {
  static const std::vector<Setting> kTable = [] {
    std::vector<Setting> table = run_rows();
    for (auto* part : {&sandbox_rows, &server_rows, &wrap_rows}) {
      for (auto& row : part()) table.push_back(std::move(row));
    }
    return table;
  }();
  return kTable;
}

const Setting* find_setting(const std::string& flag, Command command) {
  for (const auto& row : settings_table()) {
    if (row.flag == flag && row.takes(command)) return &row;
  }
  return nullptr;
}

}  // namespace paddock::config
