// Build tool (not part of fabdiag): parses the counter knowledge base with the strict parser
// (probes/counters/counter_kb.h) and writes it as the C++ rows that fabdiag compiles in
// (probes/counters/counter_kb_rows.h), so fabdiag never parses the JSON at run time. A base that
// does not parse fails the build with the parser's message (file, entry, reason).
//
//   generate_counter_kb INPUT.json OUTPUT.cpp
//
// Exit: 0 written (atomically: a temporary file renamed over OUTPUT), 1 the input does not parse
// or cannot be read or written, 2 usage.
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>

#include "probes/counters/counter_kb.h"
#include "probes/counters/counter_kb_rows.h"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: generate_counter_kb INPUT.json OUTPUT.cpp\n";
    return 2;
  }
  const std::string input = argv[1], output = argv[2];
  std::ifstream in(input, std::ios::binary);
  std::stringstream text;
  if (in.is_open()) text << in.rdbuf();
  if (!in.is_open() || in.bad()) {
    std::cerr << "generate_counter_kb: cannot read " << input << "\n";
    return 1;
  }
  auto kb = fabdiag::parse_counter_kb(text.str(), input);
  if (!kb) {
    std::cerr << "generate_counter_kb: " << kb.error().to_string() << "\n";
    return 1;
  }
  auto source = fabdiag::counter_kb_rows_source(*kb, "probes/counters/data/counters.json", "kCounterKbRows");
  if (!source) {
    std::cerr << "generate_counter_kb: " << source.error().to_string() << "\n";
    return 1;
  }
  const std::string tmp = output + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << *source;
    out.close();
    if (!out) {
      std::cerr << "generate_counter_kb: cannot write " << tmp << "\n";
      return 1;
    }
  }
  if (std::rename(tmp.c_str(), output.c_str()) != 0) {
    std::cerr << "generate_counter_kb: cannot rename " << tmp << " to " << output << "\n";
    return 1;
  }
  return 0;
}
