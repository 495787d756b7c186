//===- Counters.h - Nsight Compute counters of one kernel run ---*- C++ -*-===//
//
// With --ncu, llmptx-runner runs each kernel once more at the timing shape
// under Nsight Compute (`ncu --csv --metrics ...`) and keeps a few counters
// that say where the time goes: DRAM and SM throughput against their peaks,
// the FMA pipe, achieved occupancy, the L2 hit rate, shared-memory bank
// conflicts and the instructions executed.
//
//===----------------------------------------------------------------------===//

#ifndef LLMPTX_RUNTIME_COUNTERS_H
#define LLMPTX_RUNTIME_COUNTERS_H

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace llmptx::runtime {

/// One counter: the metric's name, its unit as ncu prints it ("%", "ns",
/// "inst", "" for a count) and its value.
struct Counter {
  std::string metric;
  std::string unit;
  double value = 0;

  bool operator==(const Counter &other) const {
    return metric == other.metric && unit == other.unit &&
           value == other.value;
  }
};

/// The metrics the runner asks ncu for, in the order they are reported.
const std::vector<std::string> &profiledMetrics();

/// The counters of the first profiled launch in ncu's --csv output (one row
/// per metric; values may have thousands separators). Rows of other
/// launches (a later ID) are ignored; nothing when there is no header.
std::vector<Counter> parseNcuCsv(std::string_view csv);

/// "DRAM 1.1% of peak, SM 63.7% of peak, ..." for the counters known by
/// name; others as "metric value unit".
std::string describeCounters(const std::vector<Counter> &counters);

} // namespace llmptx::runtime

#endif // LLMPTX_RUNTIME_COUNTERS_H
