// GenericAttrs: an attribute object of no declared struct type, holding key=value pairs in their
// written order. The parser builds one for a nested `{k=v, ...}` attribute value whose type it
// cannot know (e.g. seed 000's function attribute `ConvAttrs={padding=[1, 1, 1, 1], ...}`); every
// field is printed, so such values print back exactly as they were written.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "ir/attr_value.h"
#include "ir/attrs.h"

namespace tessera::relay {

class GenericAttrs final : public AttrsNode {
 public:
  static constexpr const char* kTypeKey = "relay.attrs.GenericAttrs";

  GenericAttrs() = default;
  explicit GenericAttrs(DictAttrs fields) : fields_(std::move(fields)) {}

  /// The key=value pairs in written order.
  const DictAttrs& fields() const { return fields_; }

  const char* typeKey() const override { return kTypeKey; }
  std::vector<std::string> fieldNames() const override;
  /// Every field is kAlwaysShown: there are no defaults to omit.
  std::vector<FieldMode> fieldModes() const override;
  std::vector<AttrValue> values() const override;
  std::vector<AttrValue> defaultValues() const override;
  /// Adds the field, or replaces its value in place; never fails.
  std::string setField(const std::string& name, const AttrValue& value) override;
  std::shared_ptr<AttrsNode> clone() const override;

 private:
  DictAttrs fields_;
};

}  // namespace tessera::relay
