/* glassbox runtime: the C ABI. The only surface of the native runtime other languages see.
 *
 * Usage:
 *   gbx_program* p = gbx_load_file("model.gbx");          // verified before any use
 *   if (!p) fprintf(stderr, "%s\n", gbx_last_error());
 *   gbx_tensor in[1] = {{data, GBX_FLOAT32, 2, shape, NULL}};
 *   gbx_result* r = gbx_run(p, in, 1);                      // NULL on error, see gbx_last_error
 *   gbx_tensor out; gbx_result_output(r, 0, &out);          // views into r, valid until freed
 *   gbx_result_free(r); gbx_program_free(p);
 * or, into memory the caller owns: gbx_run_into(p, in, NULL, 1, &out_data, 1);
 *
 * Errors: functions returning a pointer return NULL, functions returning int return nonzero; the
 * message is kept per thread and read with gbx_last_error(). A program may be run from several
 * threads at once.
 */
#ifndef GLASSBOX_RUNTIME_H
#define GLASSBOX_RUNTIME_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define GBX_FORMAT_VERSION 1

typedef enum gbx_dtype { GBX_FLOAT32 = 0, GBX_INT64 = 1, GBX_BOOL = 2, GBX_INT32 = 3 } gbx_dtype;

/* A tensor view: not owning. strides are in elements; NULL means C-contiguous. */
typedef struct gbx_tensor {
  void* data;
  int32_t dtype; /* a gbx_dtype */
  int32_t ndim;
  const int64_t* shape;
  const int64_t* strides;
} gbx_tensor;

typedef struct gbx_program gbx_program;
typedef struct gbx_result gbx_result;

/* Load and verify an artifact. The file is mapped, constants are used in place. */
gbx_program* gbx_load_file(const char* path);
/* Load and verify an artifact held in memory; the bytes are copied. */
gbx_program* gbx_load_buffer(const void* data, size_t size);
void gbx_program_free(gbx_program* program);

size_t gbx_num_inputs(const gbx_program* program);
size_t gbx_num_outputs(const gbx_program* program);
/* The declared dtype and shape of input i (data is NULL, shape valid while the program lives). */
int gbx_input_info(const gbx_program* program, size_t i, gbx_tensor* info);
int gbx_output_info(const gbx_program* program, size_t i, gbx_tensor* info);
/* The exported function's arguments in call order (0 when the artifact records none). Argument i:
 * its name, the program input it is (*input >= 0), or -1 with *value a value fixed at export
 * (a bool, int, float or None, as a Python literal). Strings live as long as the program. */
size_t gbx_num_arguments(const gbx_program* program);
int gbx_argument_info(const gbx_program* program, size_t i, const char** name, int32_t* input,
                      const char** value);

/* The bytes of the artifact's constants (its weights, each stored once) and of the arena one run
 * plans for its intermediate values (at the declared shapes). */
int gbx_memory_info(const gbx_program* program, size_t* constant_bytes, size_t* arena_bytes);

/* Run the program. Inputs must match the declared count, dtypes and shapes; any strides work. */
gbx_result* gbx_run(gbx_program* program, const gbx_tensor* inputs, size_t num_inputs);
/* Run the program, writing output i into outputs[i]: caller memory of output i's declared dtype and
 * shape (gbx_output_info), C-contiguous, not overlapping any input; outputs are computed there
 * directly where the program allows, with no copy. versions (NULL: all 0) gives each input a
 * version: nonzero means the caller vouches that whenever it passes the same data pointer with the
 * same nonzero version, that memory holds the same values, so work derived from it on an earlier
 * run (a GEMM weight packed for the kernels) is reused. Returns 0, or nonzero on error. */
int gbx_run_into(gbx_program* program, const gbx_tensor* inputs, const uint64_t* versions,
                 size_t num_inputs, void* const* outputs, size_t num_outputs);
/* gbx_run_into for inputs given by address alone: inputs[i] is C-contiguous memory of input i's
 * declared dtype and shape (gbx_input_info), which the caller has checked; nothing about the inputs
 * but null data is checked here. num_inputs and num_outputs must be the declared counts. */
int gbx_run_declared_into(gbx_program* program, const void* const* inputs, const uint64_t* versions,
                          size_t num_inputs, void* const* outputs, size_t num_outputs);
/* Programs with symbols (sizes that depend on a sequence length, a batch, ...): symbol i is bound
 * by the size of dim *dim of input *input, and lies in [*min, *max]. gbx_run and gbx_run_into bind
 * the symbols from the input shapes; each binding is verified and planned once, at its first run
 * (a binding the program cannot run at is an error). The declared shapes (gbx_input_info) are
 * those of the example binding the program was lowered at. */
size_t gbx_num_symbols(const gbx_program* program);
int gbx_symbol_info(const gbx_program* program, size_t i, int32_t* input, int32_t* dim,
                    int64_t* min, int64_t* max);
/* The shape of input (is_output 0) or output (is_output 1) i at a binding (one value per symbol),
 * written to shape (as many entries as the declared shape has dims). */
int gbx_bound_shape(gbx_program* program, const int64_t* symbols, size_t num_symbols, int is_output,
                    size_t i, int64_t* shape);
/* gbx_run_declared_into at a binding: input i and output o have their shapes at that binding. */
int gbx_run_bound_into(gbx_program* program, const int64_t* symbols, size_t num_symbols,
                       const void* const* inputs, const uint64_t* versions, size_t num_inputs,
                       void* const* outputs, size_t num_outputs);
size_t gbx_result_num_outputs(const gbx_result* result);
/* A contiguous view of output i, owned by the result. */
int gbx_result_output(const gbx_result* result, size_t i, gbx_tensor* out);
void gbx_result_free(gbx_result* result);

/* The message of the last failed call on this thread ("" if none). */
const char* gbx_last_error(void);

#ifdef __cplusplus
}
#endif

#endif /* GLASSBOX_RUNTIME_H */
