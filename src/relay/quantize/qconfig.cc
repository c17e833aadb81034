#include "relay/quantize/qconfig.h"

#include <cmath>
#include <sstream>

#include "support/diagnostic.h"

namespace tessera::relay::quantize {
namespace {

std::vector<QConfig>& scopeStack() {
  thread_local std::vector<QConfig> stack;
  return stack;
}

[[noreturn]] void invalid(const std::string& field, const std::string& why) {
  throwDiagnostic("qconfig", "qconfig " + field + ": " + why);
}

void checkOneOf(const std::string& field, const std::string& value,
                const std::vector<std::string>& allowed) {
  for (const std::string& a : allowed)
    if (value == a) return;
  std::string list;
  for (const std::string& a : allowed) list += (list.empty() ? "" : ", ") + ("\"" + a + "\"");
  invalid(field, "\"" + value + "\" is not one of " + list);
}

void checkBits(const std::string& field, int nbit, DataType dtype) {
  if (nbit < 2 || nbit > 32) invalid(field, std::to_string(nbit) + " bits (need 2..32)");
  if (!dtype.isInteger() || dtype.bits() < nbit)
    invalid(field, std::to_string(nbit) + " bits do not fit the storage dtype " + dtype.name());
}

}  // namespace

QConfig QConfig::scoped() {
  QConfig c;
  c.skipConvLayers = std::vector<int64_t>{0};
  return c;
}

int QConfig::nbitOf(QAnnotateKind kind) const {
  switch (kind) {
    case QAnnotateKind::kInput:
      return nbitInput;
    case QAnnotateKind::kWeight:
      return nbitWeight;
    case QAnnotateKind::kActivation:
      return nbitActivation;
    case QAnnotateKind::kIdentity:
      break;
  }
  invalid("kind", "IDENTITY has no bit width");
}

DataType QConfig::dtypeOf(QAnnotateKind kind) const {
  switch (kind) {
    case QAnnotateKind::kInput:
      return dtypeInput;
    case QAnnotateKind::kWeight:
      return dtypeWeight;
    case QAnnotateKind::kActivation:
      return dtypeActivation;
    case QAnnotateKind::kIdentity:
      break;
  }
  invalid("kind", "IDENTITY has no dtype");
}

DataType QConfig::inputDtype(bool unsignedRange) const {
  return unsignedRange ? DataType(DataType::Code::kUInt, dtypeInput.bits(), dtypeInput.lanes())
                       : dtypeInput;
}

void QConfig::validate() const {
  checkBits("nbit_input", nbitInput, dtypeInput);
  checkBits("nbit_weight", nbitWeight, dtypeWeight);
  checkBits("nbit_activation", nbitActivation, dtypeActivation);
  checkOneOf("calibrate_mode", calibrateMode, {"global_scale", "kl_divergence", "percentile"});
  checkOneOf("weight_scale", weightScale, {"power2", "max", "per_channel_max"});
  checkOneOf("rounding", rounding, {"UPWARD", "TONEAREST"});
  checkOneOf("partition_conversions", partitionConversions,
             {"disabled", "enabled", "fully_integral"});
  if (!(globalScale > 0) || !std::isfinite(globalScale))
    invalid("global_scale", "must be a positive number, not " + std::to_string(globalScale));
  if (calibrateChunkBy == 0 || calibrateChunkBy < -1)
    invalid("calibrate_chunk_by", "must be -1 (all at once) or positive");
  if (skipConvLayers)
    for (int64_t i : *skipConvLayers)
      if (i < 0) invalid("skip_conv_layers", "layer index " + std::to_string(i) + " is negative");
}

std::string QConfig::str() const {
  std::ostringstream s;
  auto list = [](const auto& v) {
    std::ostringstream o;
    o << "[";
    for (size_t i = 0; i < v.size(); ++i) o << (i ? ", " : "") << v[i];
    o << "]";
    return o.str();
  };
  s << "qconfig(nbit_input=" << nbitInput << ", nbit_weight=" << nbitWeight
    << ", nbit_activation=" << nbitActivation << ", calibrate_mode=" << calibrateMode
    << ", global_scale=" << globalScale << ", weight_scale=" << weightScale
    << ", skip_conv_layers=" << (skipConvLayers ? list(*skipConvLayers) : "None")
    << ", skip_dense_layer=" << (skipDenseLayer ? "True" : "False")
    << ", do_simulation=" << (doSimulation ? "True" : "False")
    << ", round_for_shift=" << (roundForShift ? "True" : "False")
    << ", debug_enabled_ops=" << (debugEnabledOps ? list(*debugEnabledOps) : "None")
    << ", rounding=" << rounding << ", calibrate_chunk_by=" << calibrateChunkBy
    << ", partition_conversions=" << partitionConversions;
  if (unsignedInputs) s << ", unsigned_inputs=True";
  s << ")";
  return s.str();
}

QConfigScope::QConfigScope(QConfig config) {
  config.validate();
  scopeStack().push_back(std::move(config));
}

QConfigScope::~QConfigScope() {
  scopeStack().pop_back();
}

const QConfig& currentQConfig() {
  static const QConfig builtin = QConfig::builtin();
  const std::vector<QConfig>& stack = scopeStack();
  return stack.empty() ? builtin : stack.back();
}

}  // namespace tessera::relay::quantize
