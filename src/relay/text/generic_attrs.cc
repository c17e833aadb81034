// GenericAttrs: untyped key=value attribute objects for nested attribute values in text.
#include "relay/text/generic_attrs.h"

namespace tessera::relay {

std::vector<std::string> GenericAttrs::fieldNames() const {
  std::vector<std::string> names;
  for (const auto& [key, value] : fields_.entries()) names.push_back(key);
  return names;
}

std::vector<FieldMode> GenericAttrs::fieldModes() const {
  return std::vector<FieldMode>(fields_.entries().size(), FieldMode::kAlwaysShown);
}

std::vector<AttrValue> GenericAttrs::values() const {
  std::vector<AttrValue> out;
  for (const auto& [key, value] : fields_.entries()) out.push_back(value);
  return out;
}

std::vector<AttrValue> GenericAttrs::defaultValues() const {
  return std::vector<AttrValue>(fields_.entries().size());
}

std::string GenericAttrs::setField(const std::string& name, const AttrValue& value) {
  fields_.set(name, value);
  return {};
}

std::shared_ptr<AttrsNode> GenericAttrs::clone() const {
  return std::make_shared<GenericAttrs>(fields_);
}

}  // namespace tessera::relay
