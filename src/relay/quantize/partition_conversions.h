// relay.quantize's partition_conversions (qconfig partition_conversions "enabled" or
// "fully_integral", spec relay.md §5.9): the realized module's @main split into
//   @quantize_inputs      the prefix that takes each float input to its quantized dtype
//                         (add/multiply/right_shift/clip/round/cast only), returning a tuple;
//   @quantized_main       everything between, on the quantized values;
//   @dequantize_outputs   the suffix that takes the quantized results back to float (the same
//                         ops);
// and a new @main calling the three in turn. A deployment can then run the integer part alone
// (on an integer-only device, say) and do the conversions elsewhere. "fully_integral" also
// requires @quantized_main to compute nothing outside the quantized dtypes.
#pragma once

#include <vector>

#include "relay/module.h"

namespace tessera::relay::quantize {

/// The split module. `quantizedDtypes` are the qconfig's dtype_input/weight/activation; with
/// `fullyIntegral`, a value of another dtype in @quantized_main is a DiagnosticError
/// ("quantize_partition") naming the op that computes it. Needs a module whose only function is
/// @main.
IRModule partitionConversions(const IRModule& module, const std::vector<DataType>& quantizedDtypes,
                              bool fullyIntegral);

}  // namespace tessera::relay::quantize
