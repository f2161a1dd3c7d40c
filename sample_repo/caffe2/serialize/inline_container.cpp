// A reader of serialized archives with three one-argument constructors, as
// caffe2/serialize/inline_container.cc writes PyTorchStreamReader: from a file
// name, from a stream, from a read adapter. Which one a call runs depends on
// what its argument is, not on how many it passes; and record_key is a plain
// function overloaded the same way.

#include <cstdint>
#include <istream>
#include <memory>
#include <string>
#include <utility>

namespace caffe2 {
namespace serialize {

class ReadAdapterInterface {
 public:
  virtual ~ReadAdapterInterface() = default;
  virtual size_t size() const = 0;
};

class BufferAdapter : public ReadAdapterInterface {
 public:
  explicit BufferAdapter(std::string buffer) : buffer_(std::move(buffer)) {}
  size_t size() const override { return buffer_.size(); }

 private:
  std::string buffer_;
};

class PyTorchStreamReader {
 public:
  explicit PyTorchStreamReader(const std::string& file_name);
  explicit PyTorchStreamReader(std::istream* in);
  explicit PyTorchStreamReader(std::shared_ptr<ReadAdapterInterface> in);
  size_t records() const { return records_; }

 private:
  void open_file(const std::string& file_name);
  void open_stream(std::istream* in);
  void open_adapter(const ReadAdapterInterface& in);
  std::shared_ptr<ReadAdapterInterface> in_;
  size_t records_ = 0;
};

PyTorchStreamReader::PyTorchStreamReader(const std::string& file_name) {
  open_file(file_name);
}

PyTorchStreamReader::PyTorchStreamReader(std::istream* in) {
  open_stream(in);
}

PyTorchStreamReader::PyTorchStreamReader(std::shared_ptr<ReadAdapterInterface> in)
    : in_(std::move(in)) {
  open_adapter(*in_);
}

void PyTorchStreamReader::open_file(const std::string& file_name) {
  records_ = file_name.size();
}

void PyTorchStreamReader::open_stream(std::istream* in) {
  records_ = in->good() ? 1 : 0;
}

void PyTorchStreamReader::open_adapter(const ReadAdapterInterface& in) {
  records_ = in.size();
}

int64_t record_key(const std::string& name) {
  return static_cast<int64_t>(name.size());
}

int64_t record_key(int64_t index) {
  return index;
}

// torch/csrc/jit/python/init.cpp's py::init lambda: a unique_ptr made in a
// local, moved into make_shared, runs the shared_ptr constructor
std::shared_ptr<PyTorchStreamReader> reader_from_buffer(const std::string& buffer) {
  auto open = [](const std::string& bytes) {
    auto adapter = std::make_unique<BufferAdapter>(bytes);
    return std::make_shared<PyTorchStreamReader>(std::move(adapter));
  };
  return open(buffer);
}

// torch/csrc/jit/serialization/import.cpp: the stream's address
std::unique_ptr<PyTorchStreamReader> reader_from_stream(std::istream& in) {
  return std::make_unique<PyTorchStreamReader>(&in);
}

int64_t version_key() {
  return record_key("version");
}

// what the argument is cannot be read here: every constructor stays
template <typename Source>
std::shared_ptr<PyTorchStreamReader> reader_from(Source&& source) {
  return std::make_shared<PyTorchStreamReader>(std::forward<Source>(source));
}

// a call a macro writes is placed at the macro's invocation, whose arguments
// are not the call's: nothing is read from them
#define KEY_AT(name, index) record_key(index)

int64_t indexed_key() {
  return KEY_AT("unused", 7);
}

} // namespace serialize
} // namespace caffe2
