#include "model/text_table.h"

#include <cstdio>
#include <stdexcept>

namespace archimedes {

void TextTable::AddRow(std::vector<std::string> cells) {
  if (cells.size() > columns_.size()) {
    throw std::invalid_argument("a row of " + std::to_string(cells.size()) +
                                " cells in a table of " + std::to_string(columns_.size()) +
                                " columns");
  }
  rows_.push_back(std::move(cells));
}

std::string TextTable::Format() const {
  std::string out;
  for (const std::vector<std::string>& row : rows_) {
    for (size_t i = 0; i < row.size(); ++i) {
      const Column& column = columns_[i];
      const std::string& cell = row[i];
      const size_t padding =
          cell.size() < static_cast<size_t>(column.width) ? column.width - cell.size() : 0;
      out += column.separator;
      if (column.align == Align::kRight) out.append(padding, ' ');
      out += cell;
      if (column.align == Align::kLeft) out.append(padding, ' ');
    }
    out += '\n';
  }
  return out;
}

std::string Fixed(double v, int decimals) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.*f", decimals, v);
  return buffer;
}

std::string Percent(double share) { return Fixed(100.0 * share, 1) + "%"; }

}  // namespace archimedes
