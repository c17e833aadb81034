// Factories of the graph-level passes, one per pass file (see pass_table.cc for names and levels).
#pragma once

#include "relay/transform/pass.h"

namespace tessera::relay {}  // namespace tessera::relay
