// The simulator's profiler counters (spec §4.7), exported as plain data with the two textual forms
// TVM offers: profiler_status JSON and the seeds' "\t{name:<16}: {value:>16}" table.
#pragma once

#include <cstdint>
#include <string>

namespace tessera::vta {

/// Cumulative data-movement and compute counters of one simulator, in the spec's units.
struct Stats {
  uint64_t inpLoadNbytes = 0;   ///< bytes of LOAD INP (x_size·y_size·INP_ELEM_BYTES; pads excluded)
  uint64_t wgtLoadNbytes = 0;   ///< bytes of LOAD WGT
  uint64_t accLoadNbytes = 0;   ///< bytes of LOAD ACC / ACC_8BIT (SRAM entry size, 64 by default)
  uint64_t uopLoadNbytes = 0;   ///< bytes of LOAD UOP (4 per micro-op)
  uint64_t outStoreNbytes = 0;  ///< bytes of STORE OUT (x_size·y_size·OUT_ELEM_BYTES)
  uint64_t gemmCounter = 0;     ///< non-reset GEMM micro-op executions
  uint64_t aluCounter = 0;      ///< ALU micro-op executions

  /// {"inp_load_nbytes": N, ...} with the seven keys in TVM's order.
  std::string toJson() const;
  /// One line per counter as the seeds print them: "\tinp_load_nbytes :           114688\n".
  std::string format() const;

  bool operator==(const Stats&) const = default;
};

}  // namespace tessera::vta
