#include "report/html_page.h"

#include "report/svg.h"

namespace archimedes::report {
namespace {

constexpr const char* kStyle = R"(
body { font: 14px/1.45 system-ui, sans-serif; margin: 24px; color: #222; background: #fff; }
h1 { font-size: 22px; margin: 0 0 4px; }
h2 { font-size: 17px; margin: 28px 0 6px; border-bottom: 1px solid #ddd; padding-bottom: 3px; }
pre.subtitle { color: #555; margin: 0 0 12px; white-space: pre-wrap; }
nav a { margin-right: 14px; }
p.intro { max-width: 1100px; color: #333; margin: 4px 0 10px; }
.figures { display: flex; flex-wrap: wrap; gap: 14px; }
.figure { border: 1px solid #e4e4e4; border-radius: 4px; padding: 6px; overflow-x: auto; }
table { border-collapse: collapse; font-variant-numeric: tabular-nums; }
th, td { padding: 2px 10px; border-bottom: 1px solid #eee; text-align: right; white-space: nowrap; }
th:first-child, td:first-child { text-align: left; white-space: pre; }
tr:hover td { background: #f6f8fa; }
svg.chart { font: 11px system-ui, sans-serif; display: block; }
svg.chart .title { font-size: 13px; font-weight: 600; }
svg.chart .grid { stroke: #ececec; }
svg.chart .tick, svg.chart .row-label { fill: #555; }
svg.chart .row-label { font-size: 9px; }
svg.chart .axis-name { fill: #333; }
svg.chart .band { fill: #f1f1f1; }
svg.chart .band-label { fill: #666; paint-order: stroke; stroke: #fff; stroke-width: 3px; }
svg.chart .reference { stroke: #c00; stroke-dasharray: 4 3; }
svg.chart .reference-label { fill: #c00; paint-order: stroke; stroke: #fff; stroke-width: 3px; }
svg.chart path.data:hover { stroke-width: 3; }
)";

}  // namespace

std::string HtmlTable(const std::vector<std::vector<std::string>>& rows) {
  std::string out = "<table>";
  for (size_t r = 0; r < rows.size(); ++r) {
    const char* cell = r == 0 ? "th" : "td";
    out += "<tr>";
    for (const std::string& text : rows[r]) {
      out += std::string("<") + cell + ">" + Escape(text) + "</" + cell + ">";
    }
    out += "</tr>";
  }
  return out + "</table>";
}

HtmlPage::HtmlPage(std::string title, std::string subtitle)
    : title_(std::move(title)), subtitle_(std::move(subtitle)) {}

void HtmlPage::AddSection(const std::string& heading, const std::string& intro,
                          const std::vector<std::string>& figures) {
  const std::string id = "s" + std::to_string(++count_);
  contents_ += "<a href=\"#" + id + "\">" + Escape(heading) + "</a>";
  sections_ += "<section id=\"" + id + "\"><h2>" + Escape(heading) + "</h2>";
  if (!intro.empty()) sections_ += "<p class=\"intro\">" + Escape(intro) + "</p>";
  sections_ += "<div class=\"figures\">";
  for (const std::string& figure : figures) {
    sections_ += "<div class=\"figure\">" + figure + "</div>";
  }
  sections_ += "</div></section>";
}

std::string HtmlPage::Render() const {
  return "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>" + Escape(title_) +
         "</title><style>" + kStyle + "</style></head><body><h1>" + Escape(title_) +
         "</h1><pre class=\"subtitle\">" + Escape(subtitle_) + "</pre><nav>" + contents_ +
         "</nav>" + sections_ + "</body></html>\n";
}

}  // namespace archimedes::report
