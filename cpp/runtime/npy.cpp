#include "runtime/npy.hpp"

#include <cstring>
#include <fstream>
#include <sstream>

namespace glassbox::runtime {

namespace {

[[noreturn]] void fail(const std::string& path, const std::string& what) {
  throw RunError("'" + path + "': " + what);
}

// The value of 'key' in the header dict, as raw text up to the next top-level comma or brace.
std::string header_field(const std::string& header, const std::string& key,
                         const std::string& path) {
  std::size_t at = header.find("'" + key + "'");
  if (at == std::string::npos) fail(path, "npy header has no '" + key + "'");
  at = header.find(':', at);
  if (at == std::string::npos) fail(path, "malformed npy header");
  ++at;
  while (at < header.size() && header[at] == ' ') ++at;
  if (at < header.size() && header[at] == '(') {
    std::size_t end = header.find(')', at);
    if (end == std::string::npos) fail(path, "malformed shape in npy header");
    return header.substr(at, end - at + 1);
  }
  std::size_t end = header.find_first_of(",}", at);
  if (end == std::string::npos) fail(path, "malformed npy header");
  std::string v = header.substr(at, end - at);
  while (!v.empty() && v.back() == ' ') v.pop_back();
  return v;
}

}  // namespace

NpyArray read_npy(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) fail(path, "cannot open");
  std::string data((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  if (data.size() < 10 || data.compare(0, 6, "\x93NUMPY") != 0) fail(path, "not a .npy file");
  int major = static_cast<unsigned char>(data[6]);
  std::size_t header_len, header_at;
  if (major == 1) {
    header_len = static_cast<unsigned char>(data[8]) | (static_cast<unsigned char>(data[9]) << 8);
    header_at = 10;
  } else if (major == 2 || major == 3) {
    if (data.size() < 12) fail(path, "truncated .npy header");
    header_len = 0;
    for (int i = 0; i < 4; ++i)
      header_len |= static_cast<std::size_t>(static_cast<unsigned char>(data[8 + i])) << (8 * i);
    header_at = 12;
  } else {
    fail(path, "unsupported .npy version " + std::to_string(major));
  }
  if (header_at + header_len > data.size()) fail(path, "truncated .npy header");
  std::string header = data.substr(header_at, header_len);

  std::string descr = header_field(header, "descr", path);
  NpyArray arr;
  if (descr == "'<f4'")
    arr.dtype = DType::Float32;
  else if (descr == "'<i8'")
    arr.dtype = DType::Int64;
  else if (descr == "'|b1'")
    arr.dtype = DType::Bool;
  else if (descr == "'<i4'")
    arr.dtype = DType::Int32;
  else
    fail(path, "unsupported dtype " + descr +
                   " (glassbox-run reads float32 '<f4', int64 '<i8', int32 '<i4' and bool '|b1')");
  if (header_field(header, "fortran_order", path) != "False") {
    fail(path, "Fortran-order arrays are not supported; save with np.ascontiguousarray");
  }
  std::string shape = header_field(header, "shape", path);
  std::string inner = shape.substr(1, shape.size() - 2);
  std::stringstream ss(inner);
  std::string item;
  while (std::getline(ss, item, ',')) {
    std::size_t b = item.find_first_not_of(' ');
    if (b == std::string::npos) continue;
    try {
      std::size_t used = 0;
      long long v = std::stoll(item.substr(b), &used);
      if (v < 0) throw std::invalid_argument("negative");
      arr.shape.push_back(v);
    } catch (const std::exception&) {
      fail(path, "bad shape " + shape);
    }
  }
  std::size_t nbytes = static_cast<std::size_t>(numel_of(arr.shape)) * element_size(arr.dtype);
  std::size_t body = header_at + header_len;
  if (data.size() - body != nbytes) {
    fail(path, "holds " + std::to_string(data.size() - body) + " data bytes, shape " +
                   shape_str(arr.shape) + " needs " + std::to_string(nbytes));
  }
  arr.storage = aligned_buffer(nbytes);
  if (nbytes) std::memcpy(arr.data(), data.data() + body, nbytes);
  return arr;
}

void write_npy(const std::string& path, DType dtype, const Shape& shape, const void* data) {
  std::string descr = dtype == DType::Float32 ? "<f4"
                      : dtype == DType::Int64 ? "<i8"
                      : dtype == DType::Int32 ? "<i4"
                                              : "|b1";
  std::string dims;
  for (std::size_t i = 0; i < shape.size(); ++i)
    dims += std::to_string(shape[i]) + (shape.size() == 1 || i + 1 < shape.size() ? "," : "");
  std::string header =
      "{'descr': '" + descr + "', 'fortran_order': False, 'shape': (" + dims + "), }";
  std::size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  std::ofstream f(path, std::ios::binary);
  if (!f) throw RunError("cannot write '" + path + "'");
  f.write("\x93NUMPY\x01\x00", 8);
  char len[2] = {static_cast<char>(header.size() & 0xff), static_cast<char>(header.size() >> 8)};
  f.write(len, 2);
  f << header;
  f.write(static_cast<const char*>(data),
          static_cast<std::streamsize>(numel_of(shape) *
                                       static_cast<std::int64_t>(element_size(dtype))));
  if (!f) throw RunError("failed writing '" + path + "'");
}

}  // namespace glassbox::runtime
