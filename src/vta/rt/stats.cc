// Textual forms of the profiler counters.
#include "vta/rt/stats.h"

#include <array>
#include <cstdio>
#include <utility>

namespace tessera::vta {
namespace {

std::array<std::pair<const char*, uint64_t>, 7> named(const Stats& s) {
  return {{{"inp_load_nbytes", s.inpLoadNbytes},
           {"wgt_load_nbytes", s.wgtLoadNbytes},
           {"acc_load_nbytes", s.accLoadNbytes},
           {"uop_load_nbytes", s.uopLoadNbytes},
           {"out_store_nbytes", s.outStoreNbytes},
           {"gemm_counter", s.gemmCounter},
           {"alu_counter", s.aluCounter}}};
}

}  // namespace

std::string Stats::toJson() const {
  std::string out = "{";
  const char* sep = "";
  for (const auto& [name, value] : named(*this)) {
    out += std::string(sep) + "\"" + name + "\": " + std::to_string(value);
    sep = ", ";
  }
  return out + "}";
}

std::string Stats::format() const {
  std::string out;
  for (const auto& [name, value] : named(*this)) {
    char line[64];
    std::snprintf(line, sizeof line, "\t%-16s: %16llu\n", name,
                  static_cast<unsigned long long>(value));
    out += line;
  }
  return out;
}

}  // namespace tessera::vta
