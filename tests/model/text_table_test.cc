#include "model/text_table.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <vector>

namespace archimedes {
namespace {

using Align = TextTable::Align;

TEST(TextTableTest, PadsEachCellToItsColumn) {
  TextTable table({{.width = 6, .align = Align::kLeft},
                   {.width = 5, .align = Align::kRight},
                   {.width = 4, .align = Align::kRight, .separator = " | "}});
  table.AddRow({"", "a", "b"});
  table.AddRow({"row", "1.5", "22"});
  EXPECT_EQ(table.Format(),
            "          a |    b\n"
            "row     1.5 |   22\n");
}

TEST(TextTableTest, WideCellsPushTheLineInsteadOfBeingCut) {
  TextTable table({{.width = 3, .align = Align::kLeft}, {.width = 3, .align = Align::kRight}});
  table.AddRow({"label", "12345"});
  table.AddRow({"x", "1"});
  EXPECT_EQ(table.Format(), "label12345\nx    1\n");
}

TEST(TextTableTest, ShortRowsEndAfterTheirLastCell) {
  TextTable table({{.width = 4, .align = Align::kRight, .separator = "  "},
                   {.width = 6, .align = Align::kRight},
                   {.width = 6, .align = Align::kRight}});
  table.AddRow({"0", "10%"});
  table.AddRow({});
  table.AddRow({"1", "5%", "7%"});
  EXPECT_EQ(table.Format(), "     0   10%\n\n     1    5%    7%\n");
}

TEST(TextTableTest, EmptyWidthLeavesTheCellAsItIs) {
  TextTable table({{.width = 0, .align = Align::kLeft, .separator = " e.g. "}});
  table.AddRow({"a, b"});
  EXPECT_EQ(table.Format(), " e.g. a, b\n");
}

TEST(TextTableTest, TooManyCellsAreRejected) {
  TextTable table(std::vector<TextTable::Column>{{.width = 1}});
  EXPECT_THROW(table.AddRow({"a", "b"}), std::invalid_argument);
  EXPECT_EQ(TextTable(std::vector<TextTable::Column>{}).Format(), "");
}

}  // namespace
}  // namespace archimedes
