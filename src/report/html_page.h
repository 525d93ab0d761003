// One self-contained HTML page (docs/reports.md): its style is inline and it holds no script and
// no reference to anything outside the file, so it opens offline, prints, and can be mailed. It is
// made of sections, each a heading, a paragraph of explanation and figures (charts, tables) laid
// out side by side as the width allows.
#ifndef ARCHIMEDES_REPORT_HTML_PAGE_H_
#define ARCHIMEDES_REPORT_HTML_PAGE_H_

#include <string>
#include <vector>

namespace archimedes::report {

// A table of text cells; the first row is the header, the first column the row labels.
std::string HtmlTable(const std::vector<std::vector<std::string>>& rows);

class HtmlPage {
 public:
  // `subtitle` is preformatted text (e.g. the scenario's description), shown as is.
  HtmlPage(std::string title, std::string subtitle);

  // `intro` is plain text; `figures` are HTML (charts, tables), each in its own box.
  void AddSection(const std::string& heading, const std::string& intro,
                  const std::vector<std::string>& figures);

  std::string Render() const;

 private:
  std::string title_;
  std::string subtitle_;
  std::string sections_;
  std::string contents_;  // the sections' links
  int count_ = 0;
};

}  // namespace archimedes::report

#endif  // ARCHIMEDES_REPORT_HTML_PAGE_H_
