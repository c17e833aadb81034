#include "ir/type.h"

#include <gtest/gtest.h>

namespace tessera {
namespace {

TEST(Type, PrintsLikeRelay) {
  EXPECT_EQ(typeToString(tensorType({1, 3, 4, 4}, DataType::float32())),
            "Tensor[(1, 3, 4, 4), float32]");
  EXPECT_EQ(typeToString(tensorType({16}, DataType::int8())), "Tensor[(16), int8]");
  EXPECT_EQ(typeToString(scalarType(DataType::int32())), "int32");
  Type t = tensorType({2}, DataType::float32());
  EXPECT_EQ(typeToString(tupleType({t})), "(Tensor[(2), float32],)");
  EXPECT_EQ(typeToString(tupleType({t, scalarType(DataType::boolType())})),
            "(Tensor[(2), float32], bool)");
  EXPECT_EQ(typeToString(funcType({t}, t)), "fn (Tensor[(2), float32]) -> Tensor[(2), float32]");
  EXPECT_EQ(typeToString(incompleteType()), "_");
  auto m = std::make_shared<SymVarNode>(SymVarNode{"m"});
  EXPECT_EQ(typeToString(tensorType(Shape{Dim(1), Dim::var(m), Dim::any()}, DataType::float16())),
            "Tensor[(1, m, ?), float16]");
}

TEST(Type, StructuralEqualityAndHash) {
  Type a = tupleType({tensorType({2, 3}, DataType::float32()), scalarType(DataType::int64())});
  Type b = tupleType({tensorType({2, 3}, DataType::float32()), scalarType(DataType::int64())});
  EXPECT_TRUE(typeEqual(a, b));
  EXPECT_EQ(typeHash(a), typeHash(b));
  EXPECT_FALSE(typeEqual(a, tupleType({tensorType({2, 3}, DataType::float32())})));
  EXPECT_FALSE(
      typeEqual(tensorType({2}, DataType::float32()), tensorType({2}, DataType::float16())));
  Type hole = incompleteType();
  EXPECT_FALSE(typeEqual(hole, incompleteType()));
  EXPECT_TRUE(typeEqual(hole, hole));
  EXPECT_FALSE(isCompleteType(tupleType({hole})));
}

TEST(DataType, NamesRoundTrip) {
  for (const char* name : {"bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
                           "uint64", "float16", "bfloat16", "float32", "float64"}) {
    auto t = DataType::parse(name);
    ASSERT_TRUE(t) << name;
    EXPECT_EQ(t->name(), name);
  }
  EXPECT_FALSE(DataType::parse("int7"));
  EXPECT_TRUE(DataType::parse("")->isVoid());
  EXPECT_EQ(DataType::boolType().bytes(), 1);
  EXPECT_EQ(DataType::bfloat16().bytes(), 2);
}

}  // namespace
}  // namespace tessera
