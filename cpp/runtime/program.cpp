#include "runtime/program.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <limits>

#include "program_generated.h"
#include "runtime/flatbuffer_vectors.hpp"
#include "runtime/kernel_args.hpp"

namespace glassbox::runtime {

namespace {

constexpr std::int64_t kMaxDims = 16;
constexpr std::int64_t kMaxElements = std::int64_t{1} << 40;

std::string at(const char* what, std::size_t index) {
  return std::string(what) + " " + std::to_string(index);
}

}  // namespace

std::unique_ptr<ArtifactBytes> ArtifactBytes::map_file(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw LoadError("cannot open '" + path + "': " + std::strerror(errno));
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    throw LoadError("'" + path + "' is not a regular file");
  }
  std::unique_ptr<ArtifactBytes> bytes(new ArtifactBytes());
  bytes->size_ = static_cast<std::size_t>(st.st_size);
  if (bytes->size_ == 0) {
    ::close(fd);
    throw LoadError("'" + path + "' is empty, not a glassbox program");
  }
  void* p = ::mmap(nullptr, bytes->size_, PROT_READ, MAP_PRIVATE, fd, 0);
  ::close(fd);
  if (p == MAP_FAILED) throw LoadError("cannot map '" + path + "': " + std::strerror(errno));
  bytes->data_ = static_cast<const std::uint8_t*>(p);
  bytes->mapped_ = true;
  return bytes;
}

std::unique_ptr<ArtifactBytes> ArtifactBytes::copy(const void* data, std::size_t size) {
  std::unique_ptr<ArtifactBytes> bytes(new ArtifactBytes());
  std::size_t padded = (size + kSegmentAlignment - 1) / kSegmentAlignment * kSegmentAlignment;
  void* p = std::aligned_alloc(kSegmentAlignment, padded == 0 ? kSegmentAlignment : padded);
  if (p == nullptr) throw LoadError("out of memory copying the program");
  if (size) std::memcpy(p, data, size);
  bytes->data_ = static_cast<const std::uint8_t*>(p);
  bytes->size_ = size;
  return bytes;
}

ArtifactBytes::~ArtifactBytes() {
  if (mapped_) {
    ::munmap(const_cast<std::uint8_t*>(data_), size_);
  } else {
    std::free(const_cast<std::uint8_t*>(data_));
  }
}

void ArtifactBytes::release(const void* data, std::size_t bytes) const {
  if (!mapped_ || bytes == 0) return;
  const auto page = static_cast<std::uintptr_t>(::sysconf(_SC_PAGESIZE));
  const auto begin = reinterpret_cast<std::uintptr_t>(data);
  const auto mapping = reinterpret_cast<std::uintptr_t>(data_);
  if (begin < mapping || begin + bytes > mapping + size_) return;
  // Pages shared with a neighbour go too: the mapping is read-only, so nothing is lost.
  std::uintptr_t first = begin / page * page, last = (begin + bytes + page - 1) / page * page;
  ::madvise(reinterpret_cast<void*>(first), last - first, MADV_DONTNEED);
}

std::shared_ptr<const Program> Program::load_file(const std::string& path) {
  return std::shared_ptr<const Program>(new Program(ArtifactBytes::map_file(path)));
}

std::shared_ptr<const Program> Program::load_buffer(const void* data, std::size_t size) {
  if (data == nullptr && size != 0) throw LoadError("null program buffer");
  return std::shared_ptr<const Program>(new Program(ArtifactBytes::copy(data, size)));
}

std::int64_t bounded_numel(const Shape& shape) {
  std::int64_t n = 1;
  for (std::int64_t dim : shape) {
    if (dim != 0 && n > kMaxElements / dim) return -1;
    n *= dim;
  }
  return n;
}

Program::Program(std::unique_ptr<ArtifactBytes> bytes) : bytes_(std::move(bytes)) {
  parse();
  parse_symbols();
  verify_symbols();
  verify_slots();
  verify_instructions();
  verify_arguments();
  verify_example_binding();
}

// Structure: the FlatBuffer verifier, then a copy of every table into plain descriptions.
void Program::parse() {
  const std::uint8_t* data = bytes_->data();
  std::size_t size = bytes_->size();
  if (size < 8) throw LoadError("truncated program: " + std::to_string(size) + " bytes");
  if (!fb::ProgramBufferHasIdentifier(data)) {
    throw LoadError("not a glassbox program (file identifier is not 'GBX1')");
  }
  flatbuffers::Verifier verifier(data, size, /*max_depth=*/16, /*max_tables=*/10'000'000);
  if (!fb::VerifyProgramBuffer(verifier)) {
    throw LoadError("corrupted or truncated program: the FlatBuffer does not verify");
  }
  const fb::Program* p = fb::GetProgram(data);
  if (p->version() < kOldestFormatVersion || p->version() > kFormatVersion) {
    throw LoadError("unsupported program format version " + std::to_string(p->version()) +
                    " (this runtime reads versions " + std::to_string(kOldestFormatVersion) +
                    " to " + std::to_string(kFormatVersion) + ")");
  }

  // The constant segment lies inside the file, aligned.
  std::uint64_t seg_off = p->segment_offset(), seg_size = p->segment_size();
  if (seg_off % kSegmentAlignment != 0 || seg_off > size || seg_size > size - seg_off) {
    throw LoadError("constant segment [" + std::to_string(seg_off) + ", +" +
                    std::to_string(seg_size) + ") lies outside the " + std::to_string(size) +
                    "-byte file or is misaligned (truncated file?)");
  }
  if (p->constants()) {
    for (flatbuffers::uoffset_t i = 0; i < p->constants()->size(); ++i) {
      const fb::Constant* c = p->constants()->Get(i);
      if (c->offset() % kSegmentAlignment != 0 || c->offset() > seg_size ||
          c->nbytes() > seg_size - c->offset()) {
        throw LoadError(at("constant", i) + " lies outside the constant segment or is misaligned");
      }
      constants_.push_back(data + seg_off + c->offset());
      constant_bytes_ += c->nbytes();
    }
  }

  if (p->values()) {
    for (flatbuffers::uoffset_t i = 0; i < p->values()->size(); ++i) {
      const fb::Value* v = p->values()->Get(i);
      ValueDesc d;
      if (!is_valid_dtype(static_cast<int>(v->dtype()))) {
        throw LoadError(at("value", i) + " has unknown dtype " +
                        std::to_string(static_cast<int>(v->dtype())));
      }
      d.dtype = static_cast<DType>(v->dtype());
      int kind = static_cast<int>(v->kind());
      if (kind < 0 || kind > 3) throw LoadError(at("value", i) + " has unknown kind");
      d.kind = static_cast<ValueKind>(kind);
      d.index = v->index();
      if (v->shape()) {
        if (v->shape()->size() > kMaxDims) throw LoadError(at("value", i) + " has too many dims");
        for (std::int64_t dim : copy_vector(v->shape())) {
          if (dim < 0) throw LoadError(at("value", i) + " has a negative dimension");
          d.shape.push_back(dim);
        }
      }
      d.numel = bounded_numel(d.shape);
      if (d.numel < 0) throw LoadError(at("value", i) + " is too large: " + shape_str(d.shape));
      d.dims = copy_vector(v->dims());
      values_.push_back(std::move(d));
    }
  }
  inputs_ = copy_vector(p->inputs());
  outputs_ = copy_vector(p->outputs());
  if (p->instructions()) {
    for (flatbuffers::uoffset_t i = 0; i < p->instructions()->size(); ++i) {
      const fb::Instruction* in = p->instructions()->Get(i);
      InstrDesc d;
      if (!in->op()) throw LoadError(at("instruction", i) + " has no op name");
      d.op = in->op()->str();
      d.inputs = copy_vector(in->inputs());
      d.outputs = copy_vector(in->outputs());
      d.args = read_kernel_args(*in);
      instructions_.push_back(std::move(d));
    }
  }
  if (p->arena_size() > kMaxArenaBytes) {
    throw LoadError("arena of " + std::to_string(p->arena_size()) + " bytes is implausible");
  }
  arena_size_ = static_cast<std::size_t>(p->arena_size());
  if (p->arguments()) {
    for (flatbuffers::uoffset_t i = 0; i < p->arguments()->size(); ++i) {
      const fb::Argument* a = p->arguments()->Get(i);
      if (!a->name()) throw LoadError(at("argument", i) + " has no name");
      arguments_.push_back({a->name()->str(), a->input(), a->value() ? a->value()->str() : ""});
      if (a->input() < 0 && !a->value()) throw LoadError(at("argument", i) + " has no value");
    }
  }
}

// Meaning of slots: every slot's storage exists and is large enough.
void Program::verify_slots() {
  const std::size_t n = values_.size();
  std::vector<int> input_seen(inputs_.size(), 0);
  for (std::size_t i = 0; i < inputs_.size(); ++i) {
    std::int32_t s = inputs_[i];
    if (s < 0 || static_cast<std::size_t>(s) >= n) throw LoadError(at("input", i) + ": bad slot");
    const ValueDesc& v = values_[s];
    if (v.kind != ValueKind::Input || v.index != static_cast<std::int64_t>(i)) {
      throw LoadError(at("input", i) + ": slot " + std::to_string(s) +
                      " is not declared as that input");
    }
  }
  for (std::size_t i = 0; i < n; ++i) {
    const ValueDesc& v = values_[i];
    switch (v.kind) {
      case ValueKind::Input:
        if (v.index < 0 || static_cast<std::size_t>(v.index) >= inputs_.size() ||
            inputs_[v.index] != static_cast<std::int32_t>(i)) {
          throw LoadError(at("value", i) + " claims to be an input it is not");
        }
        break;
      case ValueKind::Constant: {
        if (v.index < 0 || static_cast<std::size_t>(v.index) >= constants_.size()) {
          throw LoadError(at("value", i) + " names a missing constant");
        }
        const fb::Program* p = fb::GetProgram(bytes_->data());
        if (p->constants()->Get(static_cast<flatbuffers::uoffset_t>(v.index))->nbytes() !=
            v.nbytes()) {
          throw LoadError(at("value", i) + ": constant size does not match its shape and dtype");
        }
        break;
      }
      case ValueKind::Arena:
        if (v.index < 0 || v.index % 16 != 0 || static_cast<std::uint64_t>(v.index) > arena_size_ ||
            v.nbytes() > arena_size_ - static_cast<std::size_t>(v.index)) {
          throw LoadError(at("value", i) + " lies outside the arena");
        }
        break;
      case ValueKind::Alias: {
        if (v.index < 0 || static_cast<std::size_t>(v.index) >= n) {
          throw LoadError(at("value", i) + " aliases a missing slot");
        }
        const ValueDesc& base = values_[v.index];
        if (base.kind == ValueKind::Alias || base.dtype != v.dtype || base.numel != v.numel) {
          throw LoadError(at("value", i) + " aliases slot " + std::to_string(v.index) +
                          " of another dtype or size, or an alias");
        }
        break;
      }
    }
  }
  // The arena is exactly as large as the slots placed in it (rounded up): a larger one means a
  // corrupted size, and allocating it would be the first thing to go wrong.
  std::size_t used = 0;
  for (const ValueDesc& v : values_) {
    if (v.kind == ValueKind::Arena)
      used = std::max(used, static_cast<std::size_t>(v.index) + v.nbytes());
  }
  if (arena_size_ >
      (used + kSegmentAlignment - 1) / kSegmentAlignment * kSegmentAlignment + kSegmentAlignment) {
    throw LoadError("arena size " + std::to_string(arena_size_) + " does not match its slots (" +
                    std::to_string(used) + " bytes used)");
  }
  for (std::size_t i = 0; i < outputs_.size(); ++i) {
    if (outputs_[i] < 0 || static_cast<std::size_t>(outputs_[i]) >= n) {
      throw LoadError(at("output", i) + ": bad slot");
    }
  }
}

// An instruction carries exactly the typed arguments its kernel takes (schema/program.fbs,
// KernelArgs), or none where the kernel takes none.
static void verify_family(const InstrDesc& in, const std::string& where) {
  const char* carried = family_of(in.args);
  const char* wanted = family_of_kernel(in.op);
  if (carried && (!wanted || std::strcmp(carried, wanted) != 0)) {
    throw LoadError(where + ": carries " + carried + ", which '" + in.op + "' does not take");
  }
  if (wanted && !carried) throw LoadError(where + ": expects its arguments as " + wanted);
}

// Meaning of instructions: operands in range, defined before use, written once, only arena slots
// written, and accepted by the kernel.
void Program::verify_instructions() {
  const KernelRegistry& registry = KernelRegistry::builtin();
  const std::size_t n = values_.size();
  std::vector<char> defined(n, 0);
  for (std::size_t i = 0; i < n; ++i) {
    ValueKind k = values_[i].kind;
    defined[i] = (k == ValueKind::Input || k == ValueKind::Constant) ? 1 : 0;
  }
  auto is_defined = [&](std::int32_t s) {
    const ValueDesc& v = values_[s];
    return v.kind == ValueKind::Alias ? defined[v.index] != 0 : defined[s] != 0;
  };
  for (std::size_t i = 0; i < instructions_.size(); ++i) {
    const InstrDesc& in = instructions_[i];
    std::string where = at("instruction", i) + " (" + in.op + ")";
    const KernelDef* kernel = registry.find(in.op);
    if (!kernel) throw LoadError(where + ": unknown kernel '" + in.op + "'");
    verify_family(in, where);
    for (std::int32_t s : in.inputs) {
      if (s < 0 || static_cast<std::size_t>(s) >= n)
        throw LoadError(where + ": input slot out of range");
      if (!is_defined(s)) {
        throw LoadError(where + ": reads slot " + std::to_string(s) + " before it is written");
      }
    }
    for (std::int32_t s : in.outputs) {
      if (s < 0 || static_cast<std::size_t>(s) >= n)
        throw LoadError(where + ": output slot out of range");
      if (values_[s].kind != ValueKind::Arena) {
        throw LoadError(where + ": writes slot " + std::to_string(s) +
                        " which is not an arena slot");
      }
      if (defined[s]) throw LoadError(where + ": writes slot " + std::to_string(s) + " twice");
    }
    try {
      kernel->verify(VerifyContext(in, values_));
    } catch (const LoadError& e) {
      throw LoadError(at("instruction", i) + ": " + e.what());
    }
    for (std::int32_t s : in.outputs) defined[s] = 1;
  }
  for (std::size_t i = 0; i < outputs_.size(); ++i) {
    if (!is_defined(outputs_[i])) throw LoadError(at("output", i) + " is never written");
  }
}

// Meaning of the recorded signature: each argument is a program input (each input once) or a
// fixed value, and no two share a name.
void Program::verify_arguments() {
  std::vector<char> seen(inputs_.size(), 0);
  for (std::size_t i = 0; i < arguments_.size(); ++i) {
    const ArgumentDesc& a = arguments_[i];
    if (a.input < -1 || a.input >= static_cast<std::int32_t>(inputs_.size())) {
      throw LoadError(at("argument", i) + " ('" + a.name + "') names no program input");
    }
    if (a.input >= 0 && seen[a.input]++) {
      throw LoadError(at("argument", i) + " ('" + a.name + "') is an input named twice");
    }
    for (std::size_t j = 0; j < i; ++j) {
      if (arguments_[j].name == a.name) throw LoadError(at("argument", i) + ": name repeated");
    }
  }
}

}  // namespace glassbox::runtime
