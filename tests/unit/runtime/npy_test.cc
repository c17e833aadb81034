#include "runtime/npy.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "support/diagnostic.h"

namespace tessera {
namespace {

std::string tempPath(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("tessera_npy_test_" + name)).string();
}

TEST(Npy, RoundTripsEveryDtype) {
  for (DataType t :
       {DataType::boolType(), DataType::int8(), DataType::int16(), DataType::int32(),
        DataType::int64(), DataType::uint8(), DataType::uint16(), DataType::uint32(),
        DataType::uint64(), DataType::float16(), DataType::float32(), DataType::float64()}) {
    NDArray a = NDArray::empty({2, 3}, t);
    for (int64_t i = 0; i < 6; ++i) a.setInt(i, i % 2);
    NDArray b = parseNpy(serializeNpy(a), "mem");
    EXPECT_TRUE(a.bitwiseEqual(b)) << t.name();
  }
}

TEST(Npy, HeaderIsNumpyCompatible) {
  NDArray a = NDArray::empty({3}, DataType::float32());
  const std::string bytes = serializeNpy(a);
  EXPECT_EQ(bytes.substr(0, 8), std::string("\x93NUMPY\x01\x00", 8));
  EXPECT_NE(bytes.find("{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }"),
            std::string::npos);
  EXPECT_EQ((bytes.size() - a.nbytes()) % 64, 0u);  // data is 64-byte aligned
  NDArray s = NDArray::scalar(2.0, DataType::float64());
  EXPECT_NE(serializeNpy(s).find("'shape': ()"), std::string::npos);
}

TEST(Npy, ReadsHeaderWrittenByNumpy) {
  // Header exactly as numpy 1.24 writes np.arange(4, dtype=np.int64).reshape(2, 2).
  std::string header = "{'descr': '<i8', 'fortran_order': False, 'shape': (2, 2), }";
  header.append(128 - 10 - header.size() - 1, ' ');
  header += '\n';
  std::string bytes = std::string("\x93NUMPY\x01\x00", 8);
  bytes += static_cast<char>(header.size());
  bytes += '\0';
  bytes += header;
  for (int64_t v = 0; v < 4; ++v) bytes.append(reinterpret_cast<const char*>(&v), 8);
  NDArray a = parseNpy(bytes, "numpy");
  EXPECT_EQ(a.shape(), (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(a.getInt(3), 3);
}

TEST(Npy, MalformedFilesGiveDiagnostics) {
  EXPECT_THROW(parseNpy("hello", "x"), DiagnosticError);
  NDArray a = NDArray::empty({4}, DataType::float32());
  std::string bytes = serializeNpy(a);
  EXPECT_THROW(parseNpy(bytes.substr(0, bytes.size() - 1), "truncated"), DiagnosticError);
  std::string fortran = bytes;
  fortran.replace(fortran.find("False"), 5, "True ");
  EXPECT_THROW(parseNpy(fortran, "fortran"), DiagnosticError);
  std::string bigEndian = bytes;
  bigEndian.replace(bigEndian.find("<f4"), 3, ">f4");
  EXPECT_THROW(parseNpy(bigEndian, "big"), DiagnosticError);
  try {
    readNpy("/nonexistent/file.npy");
    FAIL() << "expected an error";
  } catch (const DiagnosticError& e) {
    EXPECT_NE(e.diagnostic().str().find("/nonexistent/file.npy"), std::string::npos);
  }
}

// A header declaring far more data than the file holds (found by the npy fuzzer: 2.7 GB declared
// in 156 bytes) is refused before anything is allocated.
TEST(Npy, DeclaredShapeLargerThanTheFileIsRefusedFirst) {
  NDArray a = NDArray::empty({4}, DataType::int8());
  std::string bytes = serializeNpy(a);
  bytes.replace(bytes.find("(4,)"), 4, "(919193808, 3)");
  try {
    parseNpy(bytes, "huge");
    FAIL() << "expected an error";
  } catch (const DiagnosticError& e) {
    EXPECT_NE(e.diagnostic().message.find("needs more than the"), std::string::npos)
        << e.diagnostic().message;
  }
}

// An array with a zero extent holds no data, whatever its other extents.
TEST(Npy, EmptyArraysRoundTrip) {
  const NDArray a = NDArray::empty({3, 0, 5}, DataType::float32());
  const NDArray b = parseNpy(serializeNpy(a), "empty");
  EXPECT_EQ(b.shape(), (std::vector<int64_t>{3, 0, 5}));
}

TEST(Npz, RoundTripsArchives) {
  std::map<std::string, NDArray> arrays;
  arrays["w0"] = NDArray::empty({2, 2}, DataType::float32());
  arrays["w0"].setFloat(1, 3.5);
  arrays["b0"] = NDArray::empty({2}, DataType::int64());
  arrays["b0"].setInt(0, -4);
  const std::string path = tempPath("archive.npz");
  writeNpz(path, arrays);
  std::map<std::string, NDArray> back = readNpz(path);
  ASSERT_EQ(back.size(), 2u);
  EXPECT_TRUE(back["w0"].bitwiseEqual(arrays["w0"]));
  EXPECT_TRUE(back["b0"].bitwiseEqual(arrays["b0"]));
  std::filesystem::remove(path);
}

TEST(Npz, WriterStreamsMembersAndCommitsWhole) {
  const std::string path = tempPath("streamed.npz");
  std::filesystem::remove(path);
  NDArray a = NDArray::empty({3}, DataType::float32());
  a.setFloat(2, -1.25);
  NDArray b = NDArray::empty({2, 2}, DataType::int8());
  b.setInt(3, 7);
  {
    NpzWriter writer(path);
    writer.add("p1", a);
    writer.add("p0", b);
    EXPECT_EQ(writer.count(), 2);
    EXPECT_FALSE(std::filesystem::exists(path));  // not in place before commit
    writer.commit();
  }
  std::map<std::string, NDArray> back = readNpz(path);
  ASSERT_EQ(back.size(), 2u);
  EXPECT_TRUE(back["p1"].bitwiseEqual(a));
  EXPECT_TRUE(back["p0"].bitwiseEqual(b));
  EXPECT_FALSE(std::filesystem::exists(path + ".tmp-tessera"));
  std::filesystem::remove(path);
}

TEST(Npz, WriterWithoutCommitLeavesNothing) {
  const std::string path = tempPath("abandoned.npz");
  std::filesystem::remove(path);
  {
    NpzWriter writer(path);
    writer.add("p0", NDArray::scalar(1.0, DataType::float32()));
    EXPECT_TRUE(std::filesystem::exists(path + ".tmp-tessera"));
  }
  EXPECT_FALSE(std::filesystem::exists(path));
  EXPECT_FALSE(std::filesystem::exists(path + ".tmp-tessera"));
  EXPECT_THROW(NpzWriter("/nonexistent-dir/x.npz"), DiagnosticError);
}

TEST(Npz, WriterCommitsToAnotherPath) {
  const std::string first = tempPath("first.npz"), second = tempPath("second.npz");
  NpzWriter writer(first);
  writer.add("p0", NDArray::scalar(2.0, DataType::float64()));
  writer.commit(second);
  EXPECT_FALSE(std::filesystem::exists(first));
  EXPECT_EQ(readNpz(second).at("p0").getFloat(0), 2.0);
  // Committed again (a module exported to a second directory): a copy.
  const std::string third = tempPath("third.npz");
  writer.commit(third);
  EXPECT_EQ(readNpz(third).at("p0").getFloat(0), 2.0);
  EXPECT_TRUE(std::filesystem::exists(second));
  EXPECT_FALSE(std::filesystem::exists(third + ".tmp-tessera"));
  std::filesystem::remove(second);
  std::filesystem::remove(third);
}

TEST(Npy, WritesFilesWhole) {
  NDArray a = NDArray::scalar(1.0, DataType::float32());
  const std::string path = tempPath("scalar.npy");
  writeNpy(path, a);
  EXPECT_TRUE(readNpy(path).bitwiseEqual(a));
  EXPECT_FALSE(std::filesystem::exists(path + ".tmp-tessera"));
  std::filesystem::remove(path);
  EXPECT_THROW(writeNpy("/nonexistent-dir/x.npy", a), DiagnosticError);
}

}  // namespace
}  // namespace tessera
