// fd.execute's cached call in C++ (built by fastpath.py): check the inputs against one signature,
// allocate the outputs, write the addresses, launch.  Python per call costs more than the driver's
// launch (fastpath.py says how much); this object does what launcher.Launcher.run does, for every
// kind of parameter (pointers, fixed scalars, scalar inputs, TMA descriptors, scratch buffers).
//
// FastLaunch(examples, templates, out_align, device, grid, block, smem, function, params, n_params,
//            tensor_params, value_params, map_params, launch, encode, current_stream,
//            current_device, bound, attrs, num_attrs, keepalive)
//   examples:  the signature's inputs, None for a scalar input; a call matches when each tensor
//              input has the same dtype, device, sizes, contiguity (else strides) and 16-byte
//              alignment of its data pointer, and each scalar input is a number of its type
//              (signature.signature_key's facts, no more) that its parameter holds;
//   templates: one tensor per output (its sizes, dtype and device; outputs are contiguous);
//   out_align: per output, the alignment in bytes its stores need (checked on `out=` tensors);
//   params:    address of the kernel's parameter-pointer array (n_params entries), copied; entry
//              k of each (k, j) in tensor_params points at tensor j's address cell instead
//              (inputs, then outputs), cells this object owns; entry k of each (k, j, dtype,
//              type) in value_params points at the value cell of scalar input j (a Python number
//              of `type`, passed as dtype f32, i32, i64 or i1); entry k of each (k, j, dtype, rank,
//              dims, strides, box, element_strides, swizzle, l2) in map_params points at a TMA
//              descriptor of tensor j this object owns, encoded from those cuTensorMapEncodeTiled
//              arguments (the arrays' addresses) and re-encoded when the tensor's address changes;
//   encode:    address of cuTensorMapEncodeTiled;
//   launch:    address of cuLaunchKernelEx; current_stream/current_device: torch's callables;
//   bound:     0, or (a launch with scratch buffers) the address of two uint64 cells, {1, stream}
//              while the launcher's scratch is bound to `stream` (the parameters left as copied
//              point at it), {0, _} while it rebinds; a call on another stream is a "no";
//   attrs, num_attrs: the launch attributes (CUlaunchAttribute array, its length);
//   keepalive: what the copied parameter pointers and the descriptors' arrays point into.
// Calling it with the inputs (and `out`, a sequence of output tensors, or None) returns the list
// of outputs, or None where the signature, `out`, the current device, the allocation or the
// launch says no: the caller then takes the Python path, which reports what is wrong.
// Every step between writing the cells and the launch is plain C++ with the GIL held, so no
// other Python thread can interleave its own call.
#include <Python.h>

#include <ATen/core/Tensor.h>
#include <ATen/ops/empty.h>
#include <torch/csrc/autograd/python_variable.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace {

struct LaunchConfig {  // CUlaunchConfig (cuda.h)
  unsigned grid[3], block[3], shared_bytes;
  void* stream;
  void* attrs;
  unsigned num_attrs;
};
using LaunchKernelEx = int (*)(const LaunchConfig*, void*, void**, void**);
using EncodeTiled = int (*)(void*, int, unsigned, void*, const uint64_t*, const uint64_t*, const unsigned*,
                            const unsigned*, int, int, int, int);

// A TMA descriptor parameter: cuTensorMapEncodeTiled's arguments but the address, and the 128
// bytes last encoded (for tensor `address`; 0 before the first call).
struct TensorMap {
  alignas(64) unsigned char bytes[128];
  uint64_t address;
  Py_ssize_t tensor;
  int dtype, swizzle, l2;
  unsigned rank;
  const uint64_t *dims, *strides;
  const unsigned *box, *element_strides;
};

struct TensorSig {
  c10::ScalarType dtype;
  c10::Device device;
  std::vector<int64_t> sizes, strides;
  bool contiguous, aligned;
  bool scalar;  // a scalar input's placeholder (ValueSig checks it)
};

// A scalar input: its position, the Python type of its numbers (the signature key holds the
// number's type) and its parameter's type, one of 'f' (f32), 'i' (i32), 'l' (i64), 'b' (i1).
struct ValueSig {
  Py_ssize_t input;
  PyTypeObject* type;
  char kind;
};

struct FastLaunch {
  PyObject_HEAD
  std::vector<TensorSig>* inputs;        // a placeholder at each scalar input
  std::vector<ValueSig>* values;
  std::vector<uint64_t>* value_cells;    // one per scalar input: its parameter's bytes
  std::vector<TensorSig>* outputs;
  std::vector<int64_t>* out_align;
  std::vector<uint64_t>* cells;
  std::vector<void*>* params;
  LaunchConfig config;
  void* function;
  LaunchKernelEx launch;
  EncodeTiled encode;
  std::vector<TensorMap>* maps;
  int device;
  const uint64_t* bound;
  PyObject *current_stream, *current_device, *device_index, *keepalive;
};

TensorSig sig_of(const at::Tensor& t) {
  return {t.scalar_type(), t.device(), t.sizes().vec(), t.strides().vec(), t.is_contiguous(),
          reinterpret_cast<uintptr_t>(t.data_ptr()) % 16 == 0, false};
}

bool matches(const TensorSig& sig, PyObject* obj) {
  if (!THPVariable_Check(obj)) return false;
  const at::Tensor& t = THPVariable_Unpack(obj);
  if (t.scalar_type() != sig.dtype || t.layout() != c10::kStrided || t.device() != sig.device ||
      t.sizes() != c10::IntArrayRef(sig.sizes))
    return false;
  bool contiguous = t.is_contiguous();
  if (contiguous != sig.contiguous || (!contiguous && t.strides() != c10::IntArrayRef(sig.strides))) return false;
  return ((reinterpret_cast<uintptr_t>(t.data_ptr()) % 16) == 0) == sig.aligned;
}

// out= tensors: each of its output's sizes, dtype and device, contiguous, aligned for the stores.
bool take_out(const FastLaunch* self, PyObject* out, std::vector<at::Tensor>& outputs) {
  PyObject* seq = PySequence_Fast(out, "out must be a sequence");
  if (!seq) return false;
  bool ok = PySequence_Fast_GET_SIZE(seq) == static_cast<Py_ssize_t>(self->outputs->size());
  for (size_t k = 0; ok && k < self->outputs->size(); ++k) {
    PyObject* obj = PySequence_Fast_GET_ITEM(seq, k);
    const TensorSig& sig = (*self->outputs)[k];
    ok = THPVariable_Check(obj);
    if (!ok) break;
    const at::Tensor& t = THPVariable_Unpack(obj);
    ok = t.scalar_type() == sig.dtype && t.layout() == c10::kStrided && t.device() == sig.device &&
         t.sizes() == c10::IntArrayRef(sig.sizes) && t.is_contiguous() &&
         reinterpret_cast<uintptr_t>(t.data_ptr()) % (*self->out_align)[k] == 0;
    if (ok) outputs.push_back(t);
  }
  Py_DECREF(seq);
  return ok;
}

// Number `obj` as `v`'s parameter bytes in `cell`; false where it does not hold it.
bool convert(const ValueSig& v, PyObject* obj, uint64_t& cell) {
  cell = 0;
  if (v.kind == 'f') {
    double number = PyFloat_AsDouble(obj);
    float single = static_cast<float>(number);
    std::memcpy(&cell, &single, sizeof single);
    return !(number == -1.0 && PyErr_Occurred());
  }
  if (v.kind == 'b') {
    cell = obj == Py_True;
    return true;
  }
  int overflow = 0;
  long long number = PyLong_AsLongLongAndOverflow(obj, &overflow);
  if (overflow || (number == -1 && PyErr_Occurred())) return false;
  if (v.kind == 'l') {
    std::memcpy(&cell, &number, sizeof number);
    return true;
  }
  if (number < INT32_MIN || number > INT32_MAX) return false;
  int32_t narrow = static_cast<int32_t>(number);
  std::memcpy(&cell, &narrow, sizeof narrow);
  return true;
}

PyObject* call(PyObject* self_obj, PyObject* args, PyObject* kwargs) {
  auto* self = reinterpret_cast<FastLaunch*>(self_obj);
  PyObject *inputs, *out = Py_None;
  if (kwargs || !PyArg_UnpackTuple(args, "FastLaunch", 1, 2, &inputs, &out)) {
    PyErr_SetString(PyExc_TypeError, "FastLaunch takes the list of inputs and optionally out");
    return nullptr;
  }
  PyObject* seq = PySequence_Fast(inputs, "FastLaunch takes a sequence of inputs");
  if (!seq) {  // not a sequence: the Python path says what fd.execute takes
    PyErr_Clear();
    Py_RETURN_NONE;
  }
  Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
  PyObject** items = PySequence_Fast_ITEMS(seq);
  bool ok = n == static_cast<Py_ssize_t>(self->inputs->size());
  std::vector<uint64_t> values(self->values->size());
  for (size_t i = 0; ok && i < values.size(); ++i) {
    const ValueSig& v = (*self->values)[i];
    ok = Py_TYPE(items[v.input]) == v.type && convert(v, items[v.input], values[i]);
  }
  for (Py_ssize_t j = 0; ok && j < n; ++j) ok = (*self->inputs)[j].scalar || matches((*self->inputs)[j], items[j]);
  if (ok) {
    PyObject* current = PyObject_CallNoArgs(self->current_device);
    ok = current && PyLong_AsLong(current) == self->device;
    Py_XDECREF(current);
  }
  void* stream = nullptr;
  if (ok) {
    PyObject* raw = PyObject_CallOneArg(self->current_stream, self->device_index);
    ok = raw != nullptr;
    if (ok) stream = PyLong_AsVoidPtr(raw);
    Py_XDECREF(raw);
    // The scratch the copied parameters point at belongs to one stream (launcher._bind_scratch).
    ok = ok && (!self->bound || (self->bound[0] == 1 && self->bound[1] == reinterpret_cast<uintptr_t>(stream)));
  }
  std::vector<at::Tensor> outputs;
  outputs.reserve(self->outputs->size());
  if (ok && out != Py_None) {
    ok = take_out(self, out, outputs);
  } else if (ok) {
    try {
      for (const TensorSig& sig : *self->outputs)
        outputs.push_back(at::empty(sig.sizes, at::TensorOptions().dtype(sig.dtype).device(sig.device)));
    } catch (const std::exception&) {
      ok = false;  // out of memory: the Python path's allocation raises torch's error
    }
  }
  PyErr_Clear();  // a failed check is a "no": the Python path reports what is wrong
  if (!ok) {
    Py_DECREF(seq);
    Py_RETURN_NONE;
  }
  auto& cells = *self->cells;
  for (Py_ssize_t j = 0; j < n; ++j)
    if (!(*self->inputs)[j].scalar) cells[j] = reinterpret_cast<uintptr_t>(THPVariable_Unpack(items[j]).data_ptr());
  std::copy(values.begin(), values.end(), self->value_cells->begin());
  Py_DECREF(seq);
  for (size_t k = 0; k < outputs.size(); ++k) cells[n + k] = reinterpret_cast<uintptr_t>(outputs[k].data_ptr());
  for (TensorMap& map : *self->maps) {
    uint64_t address = cells[map.tensor];
    if (address == map.address) continue;
    if (self->encode(map.bytes, map.dtype, map.rank, reinterpret_cast<void*>(address), map.dims, map.strides, map.box,
                     map.element_strides, 0, map.swizzle, map.l2, 0) != 0) {
      map.address = 0;   // e.g. a misaligned address: the Python path's encode reports it
      Py_RETURN_NONE;
    }
    map.address = address;
  }
  self->config.stream = stream;
  if (self->launch(&self->config, self->function, self->params->data(), nullptr) != 0) Py_RETURN_NONE;
  PyObject* result = PyList_New(static_cast<Py_ssize_t>(outputs.size()));
  if (!result) return nullptr;
  for (size_t k = 0; k < outputs.size(); ++k) {
    PyObject* wrapped = THPVariable_Wrap(std::move(outputs[k]));
    if (!wrapped) {
      Py_DECREF(result);
      return nullptr;
    }
    PyList_SET_ITEM(result, static_cast<Py_ssize_t>(k), wrapped);
  }
  return result;
}

void dealloc(PyObject* self_obj) {
  auto* self = reinterpret_cast<FastLaunch*>(self_obj);
  delete self->inputs;
  delete self->values;
  delete self->maps;
  delete self->value_cells;
  delete self->outputs;
  delete self->out_align;
  delete self->cells;
  delete self->params;
  Py_XDECREF(self->current_stream);
  Py_XDECREF(self->current_device);
  Py_XDECREF(self->device_index);
  Py_XDECREF(self->keepalive);
  Py_TYPE(self_obj)->tp_free(self_obj);
}

// The signature of each tensor of the sequence `tensors` (`what`, for the error), into `sigs`;
// a placeholder for each None (a scalar input).
bool sigs_of(PyObject* tensors, std::vector<TensorSig>& sigs, const char* what) {
  for (Py_ssize_t j = 0; j < PySequence_Size(tensors); ++j) {
    PyObject* obj = PySequence_GetItem(tensors, j);
    if (obj == Py_None) {
      sigs.push_back({c10::ScalarType::Undefined, c10::Device(c10::kCPU), {}, {}, true, true, true});
      Py_DECREF(obj);
      continue;
    }
    if (!obj || !THPVariable_Check(obj)) {
      Py_XDECREF(obj);
      PyErr_Format(PyExc_TypeError, "FastLaunch %s must be tensors", what);
      return false;
    }
    sigs.push_back(sig_of(THPVariable_Unpack(obj)));
    Py_DECREF(obj);
  }
  return true;
}

// Parses the constructor's arguments (header comment) into `self`; false with a Python error set.
bool init_from(FastLaunch* self, PyObject* args) {
  PyObject *examples, *templates, *out_align, *block, *tensor_params, *value_params, *map_params;
  unsigned long long function, params, launch, encode, bound;
  unsigned grid, smem;
  Py_ssize_t n_params;
  unsigned long long attrs;
  unsigned num_attrs;
  if (!PyArg_ParseTuple(args, "OOOiIOIKKnOOOKKOOKKIO", &examples, &templates, &out_align, &self->device, &grid,
                        &block, &smem, &function, &params, &n_params, &tensor_params, &value_params, &map_params,
                        &launch, &encode, &self->current_stream, &self->current_device, &bound, &attrs, &num_attrs,
                        &self->keepalive))
    return false;
  self->bound = reinterpret_cast<const uint64_t*>(bound);
  Py_INCREF(self->current_stream);
  Py_INCREF(self->current_device);
  Py_INCREF(self->keepalive);
  self->device_index = PyLong_FromLong(self->device);
  self->inputs = new std::vector<TensorSig>();
  self->values = new std::vector<ValueSig>();
  self->maps = new std::vector<TensorMap>();
  self->outputs = new std::vector<TensorSig>();
  self->out_align = new std::vector<int64_t>();
  self->params = new std::vector<void*>(reinterpret_cast<void**>(params), reinterpret_cast<void**>(params) + n_params);
  if (!sigs_of(examples, *self->inputs, "examples") || !sigs_of(templates, *self->outputs, "templates")) return false;
  for (Py_ssize_t k = 0; k < PySequence_Size(out_align); ++k) {
    PyObject* item = PySequence_GetItem(out_align, k);
    int64_t align = item ? PyLong_AsLongLong(item) : -1;
    Py_XDECREF(item);
    if (align < 1) {
      if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "FastLaunch out_align must be positive");
      return false;
    }
    self->out_align->push_back(align);
  }
  if (self->out_align->size() != self->outputs->size()) {
    PyErr_SetString(PyExc_ValueError, "FastLaunch takes one out_align per template");
    return false;
  }
  self->cells = new std::vector<uint64_t>(self->inputs->size() + self->outputs->size());
  for (Py_ssize_t i = 0; i < PySequence_Size(tensor_params); ++i) {
    Py_ssize_t k, j;
    PyObject* pair = PySequence_GetItem(tensor_params, i);
    bool parsed = pair && PyArg_ParseTuple(pair, "nn", &k, &j);
    Py_XDECREF(pair);
    if (!parsed || k < 0 || k >= n_params || j < 0 || j >= static_cast<Py_ssize_t>(self->cells->size())) {
      if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "FastLaunch tensor_params out of range");
      return false;
    }
    (*self->params)[k] = &(*self->cells)[j];
  }
  std::vector<Py_ssize_t> value_params_at;
  for (Py_ssize_t i = 0; i < PySequence_Size(value_params); ++i) {
    Py_ssize_t k, j;
    const char* dtype;
    PyObject *entry = PySequence_GetItem(value_params, i), *type;
    bool parsed = entry && PyArg_ParseTuple(entry, "nnsO", &k, &j, &dtype, &type);
    Py_XDECREF(entry);
    std::string name = parsed ? dtype : "";
    char kind = name == "f32" ? 'f' : name == "i32" ? 'i' : name == "i64" ? 'l' : name == "i1" ? 'b' : 0;
    if (!parsed || !kind || !PyType_Check(type) || k < 0 || k >= n_params || j < 0 ||
        j >= static_cast<Py_ssize_t>(self->inputs->size()) || !(*self->inputs)[j].scalar) {
      if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "FastLaunch value_params: (k, j, dtype, type) of a None example");
      return false;
    }
    self->values->push_back({j, reinterpret_cast<PyTypeObject*>(type), kind});  // bool, int, float: immortal
    value_params_at.push_back(k);
  }
  self->value_cells = new std::vector<uint64_t>(self->values->size());
  for (size_t i = 0; i < value_params_at.size(); ++i) (*self->params)[value_params_at[i]] = &(*self->value_cells)[i];
  self->maps->resize(static_cast<size_t>(std::max<Py_ssize_t>(PySequence_Size(map_params), 0)));
  for (size_t i = 0; i < self->maps->size(); ++i) {
    TensorMap& map = (*self->maps)[i];
    Py_ssize_t k;
    unsigned long long dims, strides, box, element_strides;
    PyObject* entry = PySequence_GetItem(map_params, static_cast<Py_ssize_t>(i));
    bool parsed = entry && PyArg_ParseTuple(entry, "nniIKKKKii", &k, &map.tensor, &map.dtype, &map.rank, &dims, &strides,
                                            &box, &element_strides, &map.swizzle, &map.l2);
    Py_XDECREF(entry);
    if (!parsed || k < 0 || k >= n_params || map.tensor < 0 ||
        map.tensor >= static_cast<Py_ssize_t>(self->cells->size())) {
      if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "FastLaunch map_params out of range");
      return false;
    }
    map.address = 0;
    map.dims = reinterpret_cast<const uint64_t*>(dims);
    map.strides = reinterpret_cast<const uint64_t*>(strides);
    map.box = reinterpret_cast<const unsigned*>(box);
    map.element_strides = reinterpret_cast<const unsigned*>(element_strides);
    (*self->params)[k] = map.bytes;
  }
  unsigned dims[3] = {1, 1, 1};
  for (Py_ssize_t d = 0; d < 3 && d < PySequence_Size(block); ++d) {
    PyObject* item = PySequence_GetItem(block, d);
    dims[d] = static_cast<unsigned>(item ? PyLong_AsUnsignedLong(item) : 1);
    Py_XDECREF(item);
  }
  if (PyErr_Occurred()) return false;
  self->config = {{grid, 1, 1}, {dims[0], dims[1], dims[2]}, smem, nullptr, reinterpret_cast<void*>(attrs), num_attrs};
  self->function = reinterpret_cast<void*>(function);
  self->launch = reinterpret_cast<LaunchKernelEx>(launch);
  self->encode = reinterpret_cast<EncodeTiled>(encode);
  return true;
}

PyObject* make(PyTypeObject* type, PyObject* args, PyObject*) {
  auto* self = reinterpret_cast<FastLaunch*>(type->tp_alloc(type, 0));
  if (!self) return nullptr;
  try {
    if (init_from(self, args)) return reinterpret_cast<PyObject*>(self);
  } catch (const std::exception& e) {
    PyErr_SetString(PyExc_RuntimeError, e.what());
  }
  Py_DECREF(self);
  return nullptr;
}

PyTypeObject FastLaunchType = {PyVarObject_HEAD_INIT(nullptr, 0)};
PyModuleDef module_def = {PyModuleDef_HEAD_INIT, "fuser_mlir_fastpath", "fd.execute's cached call in C++", -1};

}  // namespace

PyMODINIT_FUNC PyInit_fuser_mlir_fastpath() {
  FastLaunchType.tp_name = "fuser_mlir_fastpath.FastLaunch";
  FastLaunchType.tp_basicsize = sizeof(FastLaunch);
  FastLaunchType.tp_flags = Py_TPFLAGS_DEFAULT;
  FastLaunchType.tp_new = make;
  FastLaunchType.tp_dealloc = dealloc;
  FastLaunchType.tp_call = call;
  if (PyType_Ready(&FastLaunchType) < 0) return nullptr;
  PyObject* module = PyModule_Create(&module_def);
  if (!module) return nullptr;
  Py_INCREF(&FastLaunchType);
  if (PyModule_AddObject(module, "FastLaunch", reinterpret_cast<PyObject*>(&FastLaunchType)) < 0) {
    Py_DECREF(&FastLaunchType);
    Py_DECREF(module);
    return nullptr;
  }
  return module;
}
