#include "runtime/npy.h"

#include <zlib.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "runtime/file_io.h"
#include "support/check.h"
#include "support/diagnostic.h"

namespace tessera {

namespace {

[[noreturn]] void fail(const std::string& name, const std::string& message) {
  throwDiagnostic("npy", message, Span{}, name);
}

// numpy's descr strings for the dtypes Tessera supports (little-endian; '|' for one-byte types).
struct DescrEntry {
  const char* descr;
  DataType type;
};
const DescrEntry kDescrs[] = {
    {"|b1", DataType::boolType()}, {"|i1", DataType::int8()},    {"<i2", DataType::int16()},
    {"<i4", DataType::int32()},    {"<i8", DataType::int64()},   {"|u1", DataType::uint8()},
    {"<u2", DataType::uint16()},   {"<u4", DataType::uint32()},  {"<u8", DataType::uint64()},
    {"<f2", DataType::float16()},  {"<f4", DataType::float32()}, {"<f8", DataType::float64()},
};

std::optional<DataType> dtypeFromDescr(std::string descr) {
  // '=' means native order, which is little-endian on every machine Tessera runs on.
  if (!descr.empty() && descr[0] == '=') descr[0] = '<';
  for (const DescrEntry& e : kDescrs) {
    if (descr == e.descr) return e.type;
    // One-byte types may also be written with '<' or '='.
    if (e.descr[0] == '|' && descr.size() == 3 && descr[0] == '<' && descr.substr(1) == e.descr + 1)
      return e.type;
  }
  return std::nullopt;
}

const char* descrOf(DataType t) {
  for (const DescrEntry& e : kDescrs)
    if (e.type == t) return e.descr;
  return nullptr;
}

// Finds `'key': value` in the header dict and returns the raw value text.
std::string headerValue(const std::string& header, const std::string& key,
                        const std::string& name) {
  const std::string needle = "'" + key + "'";
  size_t pos = header.find(needle);
  if (pos == std::string::npos) fail(name, "header has no '" + key + "' entry");
  pos = header.find(':', pos + needle.size());
  if (pos == std::string::npos) fail(name, "malformed header");
  ++pos;
  while (pos < header.size() && header[pos] == ' ') ++pos;
  size_t end = pos;
  if (pos < header.size() && header[pos] == '(') {
    end = header.find(')', pos);
    if (end == std::string::npos) fail(name, "malformed shape in header");
    return header.substr(pos, end - pos + 1);
  }
  while (end < header.size() && header[end] != ',' && header[end] != '}') ++end;
  std::string v = header.substr(pos, end - pos);
  while (!v.empty() && v.back() == ' ') v.pop_back();
  return v;
}

std::vector<int64_t> parseShapeTuple(const std::string& text, const std::string& name) {
  std::vector<int64_t> shape;
  size_t i = 1;  // skip '('
  while (i < text.size()) {
    while (i < text.size() && (text[i] == ' ' || text[i] == ',')) ++i;
    if (i >= text.size() || text[i] == ')') break;
    int64_t v = 0;
    bool digits = false;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9') {
      if (v > (int64_t{1} << 40)) fail(name, "dimension too large in shape " + text);
      v = v * 10 + (text[i] - '0');
      ++i;
      digits = true;
    }
    if (!digits) fail(name, "malformed shape " + text);
    if (i < text.size() && text[i] == 'L') ++i;  // Python 2 long suffix
    shape.push_back(v);
  }
  return shape;
}

}  // namespace

NDArray parseNpy(const std::string& bytes, const std::string& name) {
  if (bytes.size() < 10 || bytes.compare(0, 6, "\x93NUMPY") != 0)
    fail(name, "not a .npy file (bad magic)");
  const int major = static_cast<unsigned char>(bytes[6]);
  size_t headerLen = 0;
  size_t offset = 0;
  if (major == 1) {
    headerLen = static_cast<unsigned char>(bytes[8]) | (static_cast<unsigned char>(bytes[9]) << 8);
    offset = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12) fail(name, "truncated header");
    headerLen = 0;
    for (int k = 3; k >= 0; --k)
      headerLen = (headerLen << 8) | static_cast<unsigned char>(bytes[8 + k]);
    offset = 12;
  } else {
    fail(name, "unsupported .npy format version " + std::to_string(major));
  }
  if (offset + headerLen > bytes.size()) fail(name, "truncated header");
  const std::string header = bytes.substr(offset, headerLen);
  std::string descr = headerValue(header, "descr", name);
  if (descr.size() >= 2 && (descr.front() == '\'' || descr.front() == '"'))
    descr = descr.substr(1, descr.size() - 2);
  if (descr.size() == 3 && descr[0] == '>' && descr[2] != '1')
    fail(name, "big-endian data ('" + descr + "') is not supported");
  std::optional<DataType> dtype = dtypeFromDescr(descr);
  if (!dtype) fail(name, "unsupported dtype '" + descr + "'");
  if (headerValue(header, "fortran_order", name) != "False")
    fail(name, "Fortran-order arrays are not supported");
  std::vector<int64_t> shape = parseShapeTuple(headerValue(header, "shape", name), name);
  // The payload must hold the declared shape before anything is allocated: a header may declare
  // gigabytes in a file of a few bytes.
  const size_t dataOffset = offset + headerLen;
  const size_t available = bytes.size() - dataOffset;
  const bool empty = std::find(shape.begin(), shape.end(), 0) != shape.end();
  size_t expected = empty ? 0 : static_cast<size_t>(dtype->bytes());
  for (int64_t d : empty ? std::vector<int64_t>{} : shape) {
    if (d != 0 && expected > available / static_cast<size_t>(d)) {
      expected = available + 1;  // more than the file holds (and no overflow)
      break;
    }
    expected *= static_cast<size_t>(d);
  }
  if (available < expected)
    fail(name, "truncated data: the shape " + shapeString(shape) + " needs more than the " +
                   std::to_string(available) + " bytes the file holds");
  NDArray array = NDArray::empty(shape, *dtype);
  std::memcpy(array.data(), bytes.data() + dataOffset, array.nbytes());
  return array;
}

NDArray readNpy(const std::string& path) {
  return parseNpy(runtime::readWholeFile(path, "npy"), path);
}

// The .npy header of `array` (magic, version, dict), which its raw bytes follow.
std::string npyHeader(const NDArray& array) {
  const char* descr = descrOf(array.dtype());
  if (!descr) fail("<array>", "dtype " + array.dtype().name() + " cannot be written to .npy");
  std::string shape = "(";
  for (size_t i = 0; i < array.shape().size(); ++i) {
    shape += std::to_string(array.shape()[i]);
    shape += (array.shape().size() == 1 || i + 1 < array.shape().size()) ? "," : "";
    if (i + 1 < array.shape().size()) shape += " ";
  }
  shape += ")";
  std::string header =
      std::string("{'descr': '") + descr + "', 'fortran_order': False, 'shape': " + shape + ", }";
  // Pad with spaces so the data starts at a multiple of 64 bytes, ending the header with '\n'.
  const size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  std::string out = "\x93NUMPY";
  out += static_cast<char>(1);
  out += static_cast<char>(0);
  out += static_cast<char>(header.size() & 0xff);
  out += static_cast<char>((header.size() >> 8) & 0xff);
  out += header;
  return out;
}

std::string serializeNpy(const NDArray& array) {
  std::string out = npyHeader(array);
  out.append(static_cast<const char*>(array.data()), array.nbytes());
  return out;
}

void writeNpy(const std::string& path, const NDArray& array) {
  runtime::writeWholeFile(path, serializeNpy(array), "npy");
}

namespace {

uint32_t le32(const std::string& b, size_t at) {
  uint32_t v = 0;
  for (int k = 3; k >= 0; --k) v = (v << 8) | static_cast<unsigned char>(b[at + k]);
  return v;
}
uint16_t le16(const std::string& b, size_t at) {
  return static_cast<uint16_t>(static_cast<unsigned char>(b[at]) |
                               (static_cast<unsigned char>(b[at + 1]) << 8));
}
void put32(std::string& b, uint32_t v) {
  for (int k = 0; k < 4; ++k) b += static_cast<char>((v >> (8 * k)) & 0xff);
}
void put16(std::string& b, uint16_t v) {
  b += static_cast<char>(v & 0xff);
  b += static_cast<char>(v >> 8);
}

std::string inflateRaw(const std::string& compressed, size_t expected, const std::string& name) {
  std::string out(expected, '\0');
  z_stream zs{};
  if (inflateInit2(&zs, -MAX_WBITS) != Z_OK) fail(name, "cannot initialise zlib");
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(compressed.data()));
  zs.avail_in = static_cast<uInt>(compressed.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  const int rc = inflate(&zs, Z_FINISH);
  inflateEnd(&zs);
  if (rc != Z_STREAM_END || zs.total_out != expected) fail(name, "corrupt deflated member");
  return out;
}

}  // namespace

std::map<std::string, NDArray> readNpz(const std::string& path) {
  const std::string bytes = runtime::readWholeFile(path, "npy");
  std::map<std::string, NDArray> arrays;
  // Walk the local file headers from the start of the archive (numpy writes no data descriptors).
  size_t pos = 0;
  while (pos + 4 <= bytes.size() && le32(bytes, pos) == 0x04034b50) {
    if (pos + 30 > bytes.size()) fail(path, "truncated zip header");
    const uint16_t flags = le16(bytes, pos + 6);
    const uint16_t method = le16(bytes, pos + 8);
    size_t compressedSize = le32(bytes, pos + 18);
    size_t size = le32(bytes, pos + 22);
    const uint16_t nameLen = le16(bytes, pos + 26);
    const uint16_t extraLen = le16(bytes, pos + 28);
    if (pos + 30 + nameLen + extraLen > bytes.size()) fail(path, "truncated zip header");
    std::string member = bytes.substr(pos + 30, nameLen);
    // Zip64 members keep their sizes in the extra field.
    if (compressedSize == 0xffffffffu || size == 0xffffffffu) {
      size_t e = pos + 30 + nameLen;
      const size_t end = e + extraLen;
      while (e + 4 <= end) {
        const uint16_t id = le16(bytes, e);
        const uint16_t len = le16(bytes, e + 2);
        if (id == 1 && len >= 16) {
          size = le32(bytes, e + 4);
          compressedSize = le32(bytes, e + 12);
        }
        e += 4 + len;
      }
    }
    if (flags & 0x8) fail(path, "zip data descriptors are not supported");
    const size_t dataStart = pos + 30 + nameLen + extraLen;
    if (dataStart + compressedSize > bytes.size()) fail(path, "truncated member " + member);
    std::string data = bytes.substr(dataStart, compressedSize);
    if (method == 8)
      data = inflateRaw(data, size, path + ":" + member);
    else if (method != 0)
      fail(path, "unsupported compression method " + std::to_string(method));
    if (member.size() > 4 && member.compare(member.size() - 4, 4, ".npy") == 0)
      member.resize(member.size() - 4);
    arrays[member] = parseNpy(data, path + ":" + member);
    pos = dataStart + compressedSize;
  }
  if (arrays.empty()) fail(path, "not a .npz archive (no members)");
  return arrays;
}

// Members are streamed to the file (stored, not compressed): the archive is never held in
// memory, which for a model's parameters would double the peak memory of an export.
NpzWriter::NpzWriter(std::string path)
    : path_(std::move(path)),
      tmp_(path_ + ".tmp-tessera"),
      out_(tmp_, std::ios::binary | std::ios::trunc) {
  if (!out_) fail(path_, "cannot open file for writing");
}

NpzWriter::~NpzWriter() {
  if (committed_) return;
  out_.close();
  std::remove(tmp_.c_str());
}

void NpzWriter::abandon(const std::string& why) {
  out_.close();
  std::remove(tmp_.c_str());
  committed_ = true;  // nothing left to remove
  fail(path_, why);
}

void NpzWriter::add(const std::string& key, const NDArray& array) {
  TS_CHECK(!committed_) << "NpzWriter::add after commit";
  const std::string name = key + ".npy";
  const std::string header = npyHeader(array);
  const uint64_t size = header.size() + array.nbytes();
  if (size >= 0xffffffffu || offset_ >= 0xffffffffu)
    abandon("member " + key + " is too large for a zip archive");
  if (count_ == 0xffff) abandon("more than 65535 members do not fit a zip archive");
  uLong crc =
      crc32(0, reinterpret_cast<const Bytef*>(header.data()), static_cast<uInt>(header.size()));
  // zlib's crc32 takes at most 4 GiB at a time; members are below that (checked above).
  crc = crc32(crc, static_cast<const Bytef*>(array.data()), static_cast<uInt>(array.nbytes()));
  std::string local;
  put32(local, 0x04034b50);
  put16(local, 20);    // version needed
  put16(local, 0);     // flags
  put16(local, 0);     // stored
  put16(local, 0);     // time
  put16(local, 0x21);  // date (1980-01-01)
  put32(local, static_cast<uint32_t>(crc));
  put32(local, static_cast<uint32_t>(size));
  put32(local, static_cast<uint32_t>(size));
  put16(local, static_cast<uint16_t>(name.size()));
  put16(local, 0);
  local += name;
  out_.write(local.data(), static_cast<std::streamsize>(local.size()));
  out_.write(header.data(), static_cast<std::streamsize>(header.size()));
  out_.write(static_cast<const char*>(array.data()), static_cast<std::streamsize>(array.nbytes()));
  if (!out_) abandon("write failed");
  put32(central_, 0x02014b50);
  put16(central_, 20);
  put16(central_, 20);
  put16(central_, 0);
  put16(central_, 0);
  put16(central_, 0);
  put16(central_, 0x21);
  put32(central_, static_cast<uint32_t>(crc));
  put32(central_, static_cast<uint32_t>(size));
  put32(central_, static_cast<uint32_t>(size));
  put16(central_, static_cast<uint16_t>(name.size()));
  put16(central_, 0);
  put16(central_, 0);
  put16(central_, 0);
  put16(central_, 0);
  put32(central_, 0);
  put32(central_, static_cast<uint32_t>(offset_));
  central_ += name;
  offset_ += local.size() + size;
  ++count_;
}

void NpzWriter::commit(const std::string& path) {
  const std::string& destination = path.empty() ? path_ : path;
  if (committed_) {
    // Committed before (a module exported twice): the archive is complete at committedTo_.
    if (committedTo_.empty()) fail(destination, "the archive was abandoned after an error");
    if (destination == committedTo_) return;
    const std::string copy = destination + ".tmp-tessera";
    std::error_code ec;
    std::filesystem::copy_file(committedTo_, copy,
                               std::filesystem::copy_options::overwrite_existing, ec);
    if (!ec) std::filesystem::rename(copy, destination, ec);
    if (ec) {
      std::remove(copy.c_str());
      fail(destination, "cannot copy " + committedTo_ + ": " + ec.message());
    }
    return;
  }
  if (offset_ >= 0xffffffffu) abandon("the archive is too large for a zip file");
  std::string end = central_;
  put32(end, 0x06054b50);
  put16(end, 0);
  put16(end, 0);
  put16(end, count_);
  put16(end, count_);
  put32(end, static_cast<uint32_t>(central_.size()));
  put32(end, static_cast<uint32_t>(offset_));
  put16(end, 0);
  out_.write(end.data(), static_cast<std::streamsize>(end.size()));
  out_.close();
  if (!out_) abandon("write failed");
  std::error_code ec;
  std::filesystem::rename(tmp_, destination, ec);
  if (ec) {
    std::remove(tmp_.c_str());
    committed_ = true;
    fail(destination, "cannot rename the written file into place: " + ec.message());
  }
  committed_ = true;
  committedTo_ = destination;
}

void writeNpz(const std::string& path, const std::map<std::string, NDArray>& arrays) {
  NpzWriter writer(path);
  for (const auto& [key, array] : arrays) writer.add(key, array);
  writer.commit();
}

}  // namespace tessera
