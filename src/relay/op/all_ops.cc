// The built-in op table: each row registers one op family. Data, not static constructors, so the
// set of ops is visible in one place and registration order is deterministic.
#include "relay/op/op_families.h"
#include "relay/op_registry.h"

namespace tessera::relay {

void registerBuiltinOps(OpRegistry& registry) {
  using Family = void (*)(OpRegistry&);
  static constexpr Family kFamilies[] = {
      registerConvOps,       registerDenseOps,         registerNormOps,     registerPoolOps,
      registerActivationOps, registerNnShapeOps,       registerUnaryOps,    registerBinaryOps,
      registerReduceOps,     registerShapeOps,         registerSelectOps,   registerCastOps,
      registerCreationOps,   registerQuantizeOps,      registerArgwhereOps, registerUniqueOps,
      registerVisionOps,     registerConvTransposeOps, registerConv3dOps,   registerPool3dOps,
      registerTopKOps,       registerShapeOfOps,       registerScatterOps,  registerDynSliceOps,
  };
  for (Family family : kFamilies) family(registry);
}

}  // namespace tessera::relay
