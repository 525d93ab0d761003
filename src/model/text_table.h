// The text tables of the reports (`archimedes simulate`, `archimedes faults`, `archimedes
// profile`): columns of fixed width, each aligned left or right and preceded by a fixed separator.
// A cell wider than its column is never cut; it pushes the rest of its line right. A row may have
// fewer cells than there are columns: its line ends after its last cell. Every line ends in '\n'.
// Widths count bytes, as printf's do. Fixed and Percent are the number formats the cells share.
#ifndef ARCHIMEDES_MODEL_TEXT_TABLE_H_
#define ARCHIMEDES_MODEL_TEXT_TABLE_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace archimedes {

class TextTable {
 public:
  enum class Align : uint8_t { kLeft, kRight };
  struct Column {
    int width = 0;
    Align align = Align::kRight;
    std::string separator;  // printed before the cell
  };

  explicit TextTable(std::vector<Column> columns) : columns_(std::move(columns)) {}

  // Throws std::invalid_argument when `cells` has more cells than the table has columns.
  void AddRow(std::vector<std::string> cells);

  std::string Format() const;

 private:
  std::vector<Column> columns_;
  std::vector<std::vector<std::string>> rows_;
};

// `v` with `decimals` decimals, as printf's "%.*f" (2.345, 1 → "2.3").
std::string Fixed(double v, int decimals);
// A share as a percentage with one decimal (0.123 → "12.3%").
std::string Percent(double share);

}  // namespace archimedes

#endif  // ARCHIMEDES_MODEL_TEXT_TABLE_H_
