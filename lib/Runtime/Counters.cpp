//===- Counters.cpp - Nsight Compute counters of one kernel run ------------===//

#include "llmptx/Runtime/Counters.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

using namespace llmptx::runtime;

namespace {

/// The fields of one CSV line ("a","b,c",...): quotes removed, commas
/// inside quotes kept, doubled quotes unescaped.
std::vector<std::string> splitCsvLine(std::string_view line) {
  std::vector<std::string> fields(1);
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        fields.back() += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        fields.back() += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      fields.emplace_back();
    } else if (c != '\r') {
      fields.back() += c;
    }
  }
  return fields;
}

struct Known {
  const char *metric;
  const char *label;
};

// What each profiled metric is called when described.
constexpr Known kKnown[] = {
    {"gpu__time_duration.sum", "time under the profiler"},
    {"dram__throughput.avg.pct_of_peak_sustained_elapsed", "DRAM throughput"},
    {"sm__throughput.avg.pct_of_peak_sustained_elapsed", "SM throughput"},
    {"sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active",
     "FMA pipe active"},
    {"sm__warps_active.avg.pct_of_peak_sustained_active",
     "achieved occupancy"},
    {"lts__t_sector_hit_rate.pct", "L2 hit rate"},
    {"l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum",
     "shared-memory bank conflicts"},
    {"smsp__inst_executed.sum", "warp instructions executed"},
};

std::string formatNumber(double value) {
  char text[64];
  if (value == static_cast<double>(static_cast<long long>(value)))
    std::snprintf(text, sizeof text, "%lld", static_cast<long long>(value));
  else
    std::snprintf(text, sizeof text, "%.1f", value);
  return text;
}

} // namespace

const std::vector<std::string> &llmptx::runtime::profiledMetrics() {
  static const std::vector<std::string> metrics = [] {
    std::vector<std::string> names;
    for (const Known &known : kKnown)
      names.push_back(known.metric);
    return names;
  }();
  return metrics;
}

std::vector<Counter> llmptx::runtime::parseNcuCsv(std::string_view csv) {
  std::vector<Counter> counters;
  int idColumn = -1, nameColumn = -1, unitColumn = -1, valueColumn = -1;
  std::string firstId;
  size_t start = 0;
  while (start < csv.size()) {
    size_t end = csv.find('\n', start);
    if (end == std::string_view::npos)
      end = csv.size();
    std::string_view line = csv.substr(start, end - start);
    start = end + 1;
    if (line.empty() || line[0] != '"')
      continue; // ==PROF== lines and the program's own output
    std::vector<std::string> fields = splitCsvLine(line);
    if (nameColumn < 0) {
      for (size_t i = 0; i < fields.size(); ++i) {
        if (fields[i] == "ID")
          idColumn = static_cast<int>(i);
        else if (fields[i] == "Metric Name")
          nameColumn = static_cast<int>(i);
        else if (fields[i] == "Metric Unit")
          unitColumn = static_cast<int>(i);
        else if (fields[i] == "Metric Value")
          valueColumn = static_cast<int>(i);
      }
      if (valueColumn < 0)
        nameColumn = -1; // not the header
      continue;
    }
    int needed = std::max({idColumn, nameColumn, unitColumn, valueColumn});
    if (static_cast<int>(fields.size()) <= needed)
      continue;
    if (idColumn >= 0) {
      if (firstId.empty())
        firstId = fields[idColumn];
      else if (fields[idColumn] != firstId)
        continue;
    }
    std::string number;
    for (char c : fields[valueColumn])
      if (c != ',')
        number += c;
    char *endOfNumber = nullptr;
    double value = std::strtod(number.c_str(), &endOfNumber);
    if (number.empty() || *endOfNumber != '\0')
      continue; // "n/a" and the like
    counters.push_back({fields[nameColumn],
                        unitColumn >= 0 ? fields[unitColumn] : std::string(),
                        value});
  }
  return counters;
}

std::string
llmptx::runtime::describeCounters(const std::vector<Counter> &counters) {
  std::string text;
  for (const Known &known : kKnown)
    for (const Counter &counter : counters) {
      if (counter.metric != known.metric)
        continue;
      std::string value = formatNumber(counter.value);
      if (counter.unit == "%")
        value += counter.metric.find("pct_of_peak") != std::string::npos
                     ? "% of peak"
                     : "%";
      else if (counter.unit == "ns")
        value = formatNumber(counter.value / 1000.0) + " us";
      text += (text.empty() ? "" : ", ") + std::string(known.label) + " " +
              value;
    }
  for (const Counter &counter : counters) {
    bool known = false;
    for (const Known &entry : kKnown)
      known |= counter.metric == entry.metric;
    if (!known)
      text += (text.empty() ? "" : ", ") + counter.metric + " " +
              formatNumber(counter.value) +
              (counter.unit.empty() ? "" : " " + counter.unit);
  }
  return text;
}
