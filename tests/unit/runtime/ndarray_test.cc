#include "runtime/ndarray.h"

#include <gtest/gtest.h>

#include "support/diagnostic.h"

namespace tessera {
namespace {

TEST(NDArray, LayoutMatchesDLPack) {
  NDArray a = NDArray::empty({2, 3}, DataType::float32());
  const DLTensor& t = a.dlTensor();
  EXPECT_EQ(t.ndim, 2);
  EXPECT_EQ(t.shape[0], 2);
  EXPECT_EQ(t.shape[1], 3);
  EXPECT_EQ(t.dtype.code, kDLFloat);
  EXPECT_EQ(t.dtype.bits, 32);
  EXPECT_EQ(t.strides, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(t.data) % 64, 0u);
  EXPECT_EQ(a.nbytes(), 24u);
}

TEST(NDArray, ConvertsOnElementAccess) {
  NDArray i8 = NDArray::empty({3}, DataType::int8());
  i8.setInt(0, 300);     // wraps to 44
  i8.setInt(1, -129);    // wraps to 127
  i8.setFloat(2, -2.7);  // truncates toward zero
  EXPECT_EQ(i8.getInt(0), 44);
  EXPECT_EQ(i8.getInt(1), 127);
  EXPECT_EQ(i8.getInt(2), -2);
  NDArray h = NDArray::empty({1}, DataType::float16());
  h.setFloat(0, 0.1);
  EXPECT_NEAR(h.getFloat(0), 0.1, 1e-4);
  NDArray b = NDArray::empty({2}, DataType::boolType());
  b.setInt(0, 5);
  EXPECT_EQ(b.getInt(0), 1);
  EXPECT_EQ(b.getInt(1), 0);
  NDArray u = NDArray::empty({1}, DataType::uint64());
  u.setUInt(0, 18446744073709551615ull);
  EXPECT_EQ(u.getUInt(0), 18446744073709551615ull);
}

TEST(NDArray, DLPackExportSharesMemoryWithoutCopy) {
  NDArray a = NDArray::empty({4}, DataType::int32());
  a.setInt(2, 7);
  DLManagedTensor* managed = a.toDLPack();
  EXPECT_EQ(managed->dl_tensor.data, a.data());
  NDArray b = NDArray::fromDLPack(managed);  // takes ownership of the export
  EXPECT_EQ(b.data(), a.data());
  b.setInt(2, 9);
  EXPECT_EQ(a.getInt(2), 9);
}

TEST(NDArray, DLPackImportKeepsForeignMemoryAliveUntilLastUse) {
  static int deleted = 0;
  struct Foreign {
    float values[6] = {0, 1, 2, 3, 4, 5};
    int64_t shape[2] = {2, 3};
    DLManagedTensor managed{};
  };
  auto* foreign = new Foreign;
  foreign->managed.dl_tensor = DLTensor{foreign->values,
                                        DLDevice{kDLCPU, 0},
                                        2,
                                        DLDataType{kDLFloat, 32, 1},
                                        foreign->shape,
                                        nullptr,
                                        0};
  foreign->managed.manager_ctx = foreign;
  foreign->managed.deleter = [](DLManagedTensor* self) {
    ++deleted;
    delete static_cast<Foreign*>(self->manager_ctx);
  };
  {
    NDArray a = NDArray::fromDLPack(&foreign->managed);
    EXPECT_EQ(a.data(), static_cast<void*>(foreign->values));
    EXPECT_EQ(a.getFloat(4), 4.0);
    NDArray alias = a;
    EXPECT_EQ(deleted, 0);
  }
  EXPECT_EQ(deleted, 1);
}

TEST(NDArray, SoleOwnerOnlyWithoutOtherUsers) {
  NDArray a = NDArray::empty({4, 4}, DataType::float32());
  EXPECT_TRUE(a.soleOwner());
  {
    NDArray b = a;  // shares the buffer
    EXPECT_FALSE(a.soleOwner());
  }
  EXPECT_TRUE(a.soleOwner());
  NDArray view = a.reshaped({16});
  EXPECT_FALSE(view.soleOwner());  // `a` still uses the memory
  a = NDArray();
  EXPECT_TRUE(view.soleOwner());
  DLManagedTensor* exported = view.toDLPack();
  EXPECT_FALSE(view.soleOwner());
  NDArray imported = NDArray::fromDLPack(exported);  // foreign memory is never rewritten
  view = NDArray();
  EXPECT_FALSE(imported.soleOwner());
  // Adopted memory is Tessera's: released exactly once, by the last user.
  int released = 0;
  auto* bytes = new float[6]{1, 2, 3, 4, 5, 6};
  {
    NDArray adopted = NDArray::adopt(bytes, {2, 3}, DataType::float32(), [&] {
      delete[] bytes;
      ++released;
    });
    EXPECT_TRUE(adopted.soleOwner());
    EXPECT_EQ(adopted.getFloat(5), 6.0);
    NDArray reshaped = adopted.reshaped({6});
    adopted = NDArray();
    EXPECT_EQ(released, 0);
  }
  EXPECT_EQ(released, 1);
}

TEST(NDArray, RejectsNonCompactDLPackTensors) {
  static float values[4];
  static int64_t shape[2] = {2, 2};
  static int64_t strides[2] = {1, 2};  // column-major
  DLManagedTensor managed{};
  managed.dl_tensor =
      DLTensor{values, DLDevice{kDLCPU, 0}, 2, DLDataType{kDLFloat, 32, 1}, shape, strides, 0};
  EXPECT_THROW(NDArray::fromDLPack(&managed), DiagnosticError);
}

TEST(NDArray, RejectsNegativeAndHugeShapes) {
  EXPECT_THROW(NDArray::empty({-1}, DataType::float32()), DiagnosticError);
  EXPECT_THROW(NDArray::empty({1 << 30, 1 << 30, 1 << 20}, DataType::float32()), DiagnosticError);
}

TEST(NDArray, CopyAndReshape) {
  NDArray a = NDArray::empty({2, 2}, DataType::float64());
  a.setFloat(3, 1.5);
  NDArray c = a.copy();
  EXPECT_NE(c.data(), a.data());
  EXPECT_TRUE(c.bitwiseEqual(a));
  NDArray r = a.reshaped({4});
  EXPECT_EQ(r.data(), a.data());
  EXPECT_EQ(r.getFloat(3), 1.5);
  EXPECT_EQ(a.describe(), "Tensor[(2, 2), float64]");
}

}  // namespace
}  // namespace tessera
