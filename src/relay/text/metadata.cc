// Encodes and decodes the metadata section (the values of meta[relay.Constant][K]) as JSON.
// Decoding validates everything before allocating, so a hostile payload can neither crash the
// parser nor make it allocate more than the payload's own size.
#include "relay/text/metadata.h"

#include <cstring>
#include <limits>

#include <nlohmann/json.hpp>

#include "support/base64.h"
#include "support/diagnostic.h"

namespace tessera::relay::text {

namespace {

constexpr const char* kFormat = "tessera.relay.metadata";
constexpr int kVersion = 1;
constexpr const char* kConstantKey = "relay.Constant";
// The payload is flat (object -> array -> object -> array); anything much deeper is malformed,
// and rejecting it before parsing keeps nlohmann's recursive destructor off deep input.
constexpr int kMaxJsonDepth = 16;

// The position `offset` bytes into the payload.
Span spanAt(std::string_view payload, size_t offset, const Span& start) {
  Span s = start;
  for (size_t i = 0; i < offset && i < payload.size(); ++i) {
    if (payload[i] == '\n') {
      ++s.line;
      s.column = 1;
    } else {
      ++s.column;
    }
  }
  return s;
}

// nlohmann's messages start with a tag: "[json.exception.parse_error.101] parse error at ...".
std::string withoutJsonTag(const std::string& message) {
  const size_t p = message.find("] ");
  return p == std::string::npos ? message : message.substr(p + 2);
}

void checkDepth(std::string_view payload, const Span& start) {
  int depth = 0;
  bool inString = false;
  for (size_t i = 0; i < payload.size(); ++i) {
    const char c = payload[i];
    if (inString) {
      if (c == '\\') ++i;
      if (c == '"') inString = false;
      continue;
    }
    if (c == '"') inString = true;
    if (c == '[' || c == '{') {
      if (++depth > kMaxJsonDepth)
        throwDiagnostic(
            "metadata",
            "metadata JSON is nested deeper than " + std::to_string(kMaxJsonDepth) + " levels",
            spanAt(payload, i, start));
    }
    if (c == ']' || c == '}') --depth;
  }
}

// One meta[relay.Constant][index] entry.
Constant decodeConstant(const nlohmann::json& entry, size_t index, const Span& where) {
  const std::string what = "meta[relay.Constant][" + std::to_string(index) + "]";
  auto fail = [&](const std::string& message) -> Constant {
    throwDiagnostic("metadata", what + ": " + message, where);
  };
  if (!entry.is_object()) return fail("expected an object {dtype, shape, data}");
  const auto dtypeIt = entry.find("dtype");
  const auto shapeIt = entry.find("shape");
  const auto dataIt = entry.find("data");
  if (dtypeIt == entry.end() || !dtypeIt->is_string()) return fail("expected a string 'dtype'");
  if (shapeIt == entry.end() || !shapeIt->is_array()) return fail("expected an array 'shape'");
  if (dataIt == entry.end() || !(dataIt->is_string() || dataIt->is_null()))
    return fail("expected 'data' to be a base64 string or null");
  const std::optional<DataType> dtype = DataType::parse(dtypeIt->get<std::string>());
  if (!dtype || dtype->isVoid())
    return fail("unknown dtype \"" + dtypeIt->get<std::string>() + "\"");

  std::vector<int64_t> shape;
  int64_t numel = 1;
  bool overflow = false;
  for (const nlohmann::json& d : *shapeIt) {
    if (!d.is_number_integer() || d.get<int64_t>() < 0)
      return fail("expected non-negative integer dimensions in 'shape'");
    const int64_t extent = d.get<int64_t>();
    if (extent != 0 && numel > std::numeric_limits<int64_t>::max() / extent) overflow = true;
    if (!overflow) numel *= extent;
    shape.push_back(extent);
  }
  if (dataIt->is_null()) return makeConstantWithoutData(tensorType(shape, *dtype));

  const std::optional<std::vector<uint8_t>> bytes = base64Decode(dataIt->get<std::string>());
  if (!bytes) return fail("'data' is not valid base64");
  // The decoded size bounds the allocation: a shape that claims more than the payload holds is
  // rejected before NDArray::empty runs.
  const int64_t elemBytes = dtype->bytes();
  if (overflow || numel > static_cast<int64_t>(bytes->size()) ||
      numel * elemBytes != static_cast<int64_t>(bytes->size()))
    return fail("'data' holds " + std::to_string(bytes->size()) + " bytes but the shape needs " +
                (overflow ? std::string("more") : std::to_string(numel * elemBytes)));
  NDArray array = NDArray::empty(shape, *dtype);
  if (!bytes->empty()) std::memcpy(array.data(), bytes->data(), bytes->size());
  return makeConstant(std::move(array));
}

}  // namespace

std::string encodeMetadata(const std::vector<Constant>& constants) {
  // One constant per line keeps large payloads diffable.
  std::string out = "{\n  \"format\": \"" + std::string(kFormat) +
                    "\",\n  \"version\": " + std::to_string(kVersion) + ",\n  \"" + kConstantKey +
                    "\": [";
  for (size_t i = 0; i < constants.size(); ++i) {
    const ConstantNode& c = *constants[i];
    nlohmann::json entry = nlohmann::json::object();
    const auto* type = c.declaredType ? c.declaredType->as<TensorTypeNode>() : nullptr;
    std::vector<int64_t> shape;
    if (c.hasData()) {
      shape = c.data.shape();
    } else if (type) {
      // Only a constant with a static shape can be described; symbolic dims print as 0.
      for (const Dim& d : type->shape) shape.push_back(d.isConst() ? d.value() : 0);
    }
    const DataType dtype = c.hasData() ? c.data.dtype() : type ? type->dtype : DataType::float32();
    entry["dtype"] = dtype.name();
    entry["shape"] = shape;
    if (c.hasData()) {
      entry["data"] = base64Encode(static_cast<const uint8_t*>(c.data.data()), c.data.nbytes());
    } else {
      entry["data"] = nullptr;
    }
    out += (i ? ",\n    " : "\n    ") + entry.dump();
  }
  out += constants.empty() ? "]\n}\n" : "\n  ]\n}\n";
  return out;
}

std::vector<Constant> decodeMetadata(std::string_view payload, const Span& start) {
  checkDepth(payload, start);
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(payload.begin(), payload.end());
  } catch (const nlohmann::json::parse_error& e) {
    const size_t offset = e.byte > 0 ? e.byte - 1 : 0;
    throwDiagnostic("metadata", "malformed metadata JSON: " + withoutJsonTag(e.what()),
                    spanAt(payload, offset, start));
  } catch (const nlohmann::json::exception& e) {
    // E.g. a number too large for a double ("out_of_range.406"); nlohmann gives no position.
    throwDiagnostic("metadata", "malformed metadata JSON: " + withoutJsonTag(e.what()), start);
  }
  if (!doc.is_object())
    throwDiagnostic("metadata", "expected a JSON object after #[metadata]", start);
  std::vector<Constant> constants;
  for (const auto& [key, value] : doc.items()) {
    if (key == "format") {
      if (!value.is_string() || value.get<std::string>() != kFormat)
        throwDiagnostic(
            "metadata",
            "expected \"format\": \"" + std::string(kFormat) + "\" but found " + value.dump(),
            start);
    } else if (key == "version") {
      if (!value.is_number_integer() || value.get<int64_t>() != kVersion)
        throwDiagnostic("metadata",
                        "unsupported metadata version " + value.dump() + " (expected " +
                            std::to_string(kVersion) + ")",
                        start);
    } else if (key == kConstantKey) {
      if (!value.is_array())
        throwDiagnostic("metadata", "expected an array for \"relay.Constant\"", start);
      for (size_t i = 0; i < value.size(); ++i)
        constants.push_back(decodeConstant(value[i], i, start));
    } else {
      throwDiagnostic("metadata", "unknown metadata key \"" + key + "\"", start);
    }
  }
  return constants;
}

}  // namespace tessera::relay::text
