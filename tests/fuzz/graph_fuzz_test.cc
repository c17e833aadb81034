// The graph fuzzer in every build: a fixed count of seeded random graphs through every pass and
// build() against the interpreter (graph_check.h), then one regression test per finding. Longer
// runs by hand: TESSERA_GRAPH_FUZZ_SEEDS=N (and TESSERA_GRAPH_FUZZ_FIRST=S) choose the seeds, see
// docs/user/testing.md.
#include <gtest/gtest.h>

#include <cstdlib>
#include <iostream>
#include <string>

#include "graph_check.h"
#include "graph_gen.h"
#include "relay/op_registry.h"

namespace tessera::fuzz {
namespace {

uint64_t envOr(const char* name, uint64_t fallback) {
  const char* value = std::getenv(name);
  return value ? std::strtoull(value, nullptr, 10) : fallback;
}

TEST(GraphFuzz, Seeds) {
  const uint64_t first = envOr("TESSERA_GRAPH_FUZZ_FIRST", 0);
  const uint64_t count = envOr("TESSERA_GRAPH_FUZZ_SEEDS", TESSERA_GRAPH_FUZZ_SEEDS);
  const uint64_t maxFindings = envOr("TESSERA_GRAPH_FUZZ_MAX_FINDINGS", 5);
  CheckStats stats;
  uint64_t findings = 0;
  for (uint64_t seed = first; seed < first + count && findings < maxFindings; ++seed) {
    // The seed goes out before the check, so a crash (which no test can catch) names it.
    std::cout << "seed " << seed << std::endl;
    CheckOptions options;
    options.plainBuild = seed % 4 == 0;
    options.vm = seed % 3 == 0;
    options.dynamic = seed % 2 == 1;
    if (auto f = checkSeed(seed, options, &stats)) {
      ADD_FAILURE() << f->str();
      ++findings;
    }
  }
  std::cout << stats.graphs << " graphs, " << stats.stagesRun << " stages, " << stats.opCalls.size()
            << " distinct ops; with `?` extents " << stats.dynamicCompiled << " compiled, "
            << stats.dynamicRefused << " refused, " << stats.dynamicRefusedWhenRun
            << " refused when run;";
  for (const auto& [op, n] : stats.opCalls) std::cout << " " << op << "=" << n;
  std::cout << "\n";
  // The checks compile every graph: ops with data-dependent output shapes (argwhere, unique, ...)
  // cannot be, so no generator table holds them (op_dynamic_test.cc checks their kernels).
  for (const auto& [op, n] : stats.opCalls) {
    const relay::OpDef* def = relay::OpRegistry::global().find(op);
    EXPECT_FALSE(def && def->dataDependentShape) << op << " was generated";
  }
}

}  // namespace
}  // namespace tessera::fuzz
