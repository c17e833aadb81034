#include "cli.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "runtime/ndarray_print.h"
#include "support/diagnostic.h"

namespace tessera::cli {

bool Args::flag(const std::string& name) {
  for (auto it = args_.begin(); it != args_.end(); ++it) {
    if (*it == name) {
      args_.erase(it);
      return true;
    }
  }
  return false;
}

std::vector<std::string> Args::values(const std::string& name) {
  std::vector<std::string> out;
  for (size_t i = 0; i < args_.size();) {
    if (args_[i] == name) {
      if (i + 1 >= args_.size()) throw UsageError{name + " needs a value"};
      out.push_back(args_[i + 1]);
      args_.erase(args_.begin() + static_cast<std::ptrdiff_t>(i),
                  args_.begin() + static_cast<std::ptrdiff_t>(i) + 2);
      continue;
    }
    if (args_[i].rfind(name + "=", 0) == 0) {
      out.push_back(args_[i].substr(name.size() + 1));
      args_.erase(args_.begin() + static_cast<std::ptrdiff_t>(i));
      continue;
    }
    ++i;
  }
  return out;
}

std::optional<std::string> Args::value(const std::string& name) {
  std::vector<std::string> all = values(name);
  if (all.size() > 1) throw UsageError{name + " given more than once"};
  if (all.empty()) return std::nullopt;
  return all.front();
}

std::vector<std::string> Args::positionals() {
  for (const std::string& a : args_)
    if (a.size() > 1 && a[0] == '-') throw UsageError{"unknown option '" + a + "'"};
  return args_;
}

namespace {

std::ifstream openFile(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throwDiagnostic("io", "is a directory, not a file", Span{}, path);
  std::ifstream in(path, std::ios::binary);
  if (!in) throwDiagnostic("io", "cannot open file", Span{}, path);
  return in;
}

}  // namespace

std::string readTextFile(const std::string& path) {
  std::ifstream in = openFile(path);
  std::ostringstream os;
  os << in.rdbuf();
  return os.str();
}

std::string readFilePrefix(const std::string& path, size_t bytes) {
  std::ifstream in = openFile(path);
  std::string prefix(bytes, '\0');
  in.read(prefix.data(), static_cast<std::streamsize>(bytes));
  prefix.resize(static_cast<size_t>(in.gcount()));
  return prefix;
}

void writeTextFile(const std::string& path, const std::string& text) {
  const std::string tmp = path + ".tmp-tessera";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) throwDiagnostic("io", "cannot open file for writing", Span{}, path);
    out << text;
    if (!out) {
      std::remove(tmp.c_str());
      throwDiagnostic("io", "write failed", Span{}, path);
    }
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    std::remove(tmp.c_str());
    throwDiagnostic("io", "cannot move the written file into place", Span{}, path);
  }
}

void emitText(std::string text, const std::optional<std::string>& out) {
  if (text.empty() || text.back() != '\n') text += '\n';
  if (out)
    writeTextFile(*out, text);
  else
    std::cout << text;
}

std::string formatValue(const relay::Value& v) {
  std::ostringstream os;
  if (v.isTensor()) {
    os << v.tensor().describe() << "\n" << formatValues(v.tensor());
    return os.str();
  }
  if (v.isTuple()) {
    os << "tuple of " << v.fields().size() << ":\n";
    for (size_t i = 0; i < v.fields().size(); ++i)
      os << "." << i << ": " << formatValue(v.fields()[i]) << "\n";
    return os.str();
  }
  return "<function>";
}

}  // namespace tessera::cli
