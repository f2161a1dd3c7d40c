#pragma once

#include <c10/core/Device.h>
#include <c10/macros/Export.h>

#include <cstddef>
#include <functional>
#include <memory>

namespace c10 {

// Owns one raw allocation. CPU memory comes from new[]; CUDA memory from
// cudaMalloc (see ATen/cuda/EmptyTensor.cpp), each with its own deleter.
struct C10_API StorageImpl {
  using Deleter = std::function<void(void*)>;

  StorageImpl(void* data, size_t nbytes, Device device, Deleter deleter)
      : data_(data), nbytes_(nbytes), device_(device), deleter_(std::move(deleter)) {}
  ~StorageImpl() {
    if (data_ && deleter_) deleter_(data_);
  }
  StorageImpl(const StorageImpl&) = delete;
  StorageImpl& operator=(const StorageImpl&) = delete;

  void* data() const { return data_; }
  size_t nbytes() const { return nbytes_; }
  Device device() const { return device_; }

 private:
  void* data_;
  size_t nbytes_;
  Device device_;
  Deleter deleter_;
};

// Shared handle; views of one tensor share a Storage.
class Storage {
 public:
  Storage() = default;
  explicit Storage(std::shared_ptr<StorageImpl> impl) : impl_(std::move(impl)) {}

  bool defined() const { return impl_ != nullptr; }
  void* data() const { return impl_ ? impl_->data() : nullptr; }
  size_t nbytes() const { return impl_ ? impl_->nbytes() : 0; }
  Device device() const { return impl_ ? impl_->device() : Device(DeviceType::CPU); }
  bool is_alias_of(const Storage& other) const { return impl_ == other.impl_; }

 private:
  std::shared_ptr<StorageImpl> impl_;
};

} // namespace c10
