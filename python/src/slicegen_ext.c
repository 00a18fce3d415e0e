/* slicegen._ext: the hot path of the Python module in C, against CPython's
 * stable ABI (3.11): checking a kernel call's arguments, running the kernel
 * (sg_kernel_run, or sg_kernel_prepare and sg_kernel_run_args), and
 * slicegen.slice's lookup of a kernel by its spec string.
 *
 * Inputs and outputs are taken through the buffer protocol, without a copy
 * when C-contiguous. Whatever the fast path does not accept (another
 * element type, a non-contiguous or non-buffer input, a bad value, a
 * refused call) goes to the helpers of _core.py given to _setup(), which
 * convert the argument or raise the error: the messages live there only.
 *
 * The library is the one _core.py loaded with ctypes: that library's
 * soname, libslicegen.so.0, satisfies this module's dependency on it. */
#define Py_LIMITED_API 0x030B0000
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>

#include "slicegen.h"

/* Calls writing more bytes than this, or on several threads, release the
 * GIL while the kernel runs. */
#define SG_GIL_BYTES 8192
/* slicegen.slice keeps the kernels of this many spec strings. */
#define SG_SLICE_CACHE 64

/* The helpers of _core.py (_setup). */
static PyObject *slice_error, *np_empty, *input_slow, *out_slow, *values_slow, *threads_slow, *run_error,
    *prepare_error;

/* Frees self with its type's allocator (the one of a Python subclass too). */
static void type_free(PyObject *self)
{
    if (PyType_GetFlags(Py_TYPE(self)) & Py_TPFLAGS_HAVE_GC)
        PyObject_GC_Del(self);
    else
        PyObject_Free(self);
}

/* *slot = value (a new reference), dropping the old one. */
static void set_ref(PyObject **slot, PyObject *value)
{
    PyObject *old = *slot;
    *slot = Py_NewRef(value);
    Py_XDECREF(old);
}

/* ---- Gate: a context's runs ---------------------------------------------
 * A context's C pointer and the count of runs made without the GIL. close()
 * refuses new runs and waits for those in flight; runs holding the GIL are
 * not counted, close() cannot come between their check and their end. So a
 * call checks the gate (or enters it) right before each use of the context,
 * after any Python code it runs (converting its input or out=), which may
 * close the context or let another thread close it. */

typedef struct {
    PyObject_HEAD sg_context *ctx; /* NULL once closed */
    long running;                  /* under mutex */
    pthread_mutex_t mutex;
    pthread_cond_t idle;
} Gate;

static PyObject *raise_closed(void)
{
    PyErr_SetString(slice_error, "failed to run kernel: its context is closed");
    return NULL;
}

static PyObject *gate_new(PyTypeObject *type, PyObject *args, PyObject *kwargs)
{
    unsigned long long address;
    if (kwargs != NULL || !PyArg_ParseTuple(args, "K:Gate", &address))
        return NULL;
    Gate *self = (Gate *)PyType_GenericAlloc(type, 0);
    if (self == NULL)
        return NULL;
    self->ctx = (sg_context *)(uintptr_t)address;
    self->running = 0;
    pthread_mutex_init(&self->mutex, NULL);
    pthread_cond_init(&self->idle, NULL);
    return (PyObject *)self;
}

static void gate_dealloc(PyObject *self)
{
    Gate *gate = (Gate *)self;
    PyTypeObject *type = Py_TYPE(self);
    pthread_mutex_destroy(&gate->mutex);
    pthread_cond_destroy(&gate->idle);
    type_free(self);
    Py_DECREF(type);
}

/* Counts a run made without the GIL; 0, or -1 (SliceError) once closed. */
static int gate_enter(Gate *gate)
{
    if (gate->ctx == NULL) {
        raise_closed();
        return -1;
    }
    pthread_mutex_lock(&gate->mutex);
    gate->running++;
    pthread_mutex_unlock(&gate->mutex);
    return 0;
}

static void gate_leave(Gate *gate)
{
    pthread_mutex_lock(&gate->mutex);
    if (--gate->running == 0)
        pthread_cond_broadcast(&gate->idle);
    pthread_mutex_unlock(&gate->mutex);
}

static PyObject *gate_py_enter(PyObject *self, PyObject *unused)
{
    (void)unused;
    return gate_enter((Gate *)self) < 0 ? NULL : Py_NewRef(Py_None);
}

static PyObject *gate_py_leave(PyObject *self, PyObject *unused)
{
    (void)unused;
    gate_leave((Gate *)self);
    return Py_NewRef(Py_None);
}

static PyObject *gate_close(PyObject *self, PyObject *unused)
{
    Gate *gate = (Gate *)self;
    (void)unused;
    gate->ctx = NULL;
    Py_BEGIN_ALLOW_THREADS pthread_mutex_lock(&gate->mutex);
    while (gate->running > 0)
        pthread_cond_wait(&gate->idle, &gate->mutex);
    pthread_mutex_unlock(&gate->mutex);
    Py_END_ALLOW_THREADS return Py_NewRef(Py_None);
}

static PyMethodDef gate_methods[] = {
    {"enter", gate_py_enter, METH_NOARGS, "Counts a run (SliceError once closed); leave() ends it."},
    {"leave", gate_py_leave, METH_NOARGS, "Ends a run counted by enter()."},
    {"close", gate_close, METH_NOARGS, "Refuses new runs and waits for those in flight (without the GIL)."},
    {NULL, NULL, 0, NULL},
};

static PyType_Slot gate_slots[] = {
    {Py_tp_new, gate_new},
    {Py_tp_dealloc, gate_dealloc},
    {Py_tp_methods, gate_methods},
    {Py_tp_doc, "Gate(context address): the runs of one sg_context."},
    {0, NULL},
};

static PyType_Spec gate_spec = {"slicegen._ext.Gate", sizeof(Gate), 0, Py_TPFLAGS_DEFAULT, gate_slots};
static PyTypeObject *gate_type;

/* ---- element types of buffers ------------------------------------------- */

/* NumPy's kind ('b', 'i', 'u', 'f') of a buffer format in native byte
 * order, or 0. */
static char format_kind(const char *format)
{
    if (format == NULL)
        return 'u'; /* unsigned bytes */
    const uint16_t one = 1;
    const int little = *(const unsigned char *)&one == 1;
    if (*format == '@' || *format == '=' || *format == '|' || (*format == '<' && little))
        format++;
    if (format[0] == '\0' || format[1] != '\0')
        return 0;
    if (strchr("?", format[0]))
        return 'b';
    if (strchr("bhilqn", format[0]))
        return 'i';
    if (strchr("BHILQN", format[0]))
        return 'u';
    if (strchr("efd", format[0]))
        return 'f';
    return 0;
}

/* ---- KernelBase: the call of a Kernel ----------------------------------- */

typedef struct {
    PyObject_HEAD Gate *gate; /* NULL until _bind */
    const sg_kernel *kernel;
    PyObject *dtype; /* the NumPy dtype */
    char kind;       /* its format kind; 0: only through input_slow (bfloat16) */
    Py_ssize_t itemsize;
    int symbolic;
    int rank; /* the input's */
    int64_t in_shape[SG_MAX_RANK];
    PyObject *out_shape; /* a static kernel's output shape, a tuple */
    int out_rank;
    int64_t out_dims[SG_MAX_RANK];
    PyObject *value_names; /* a tuple of str */
    Py_ssize_t value_count;
    Py_ssize_t fill;       /* the value that is a fill value (converted by values_slow), or -1 */
} KernelBase;

static PyTypeObject *kernel_type;

static int int64_tuple(PyObject *tuple, int64_t *dims, int *rank)
{
    if (!PyTuple_Check(tuple) || PyTuple_Size(tuple) > SG_MAX_RANK) {
        PyErr_SetString(PyExc_TypeError, "a shape is a tuple of at most 64 integers");
        return -1;
    }
    *rank = (int)PyTuple_Size(tuple);
    for (int i = 0; i < *rank; i++) {
        dims[i] = PyLong_AsLongLong(PyTuple_GetItem(tuple, i));
        if (dims[i] == -1 && PyErr_Occurred())
            return -1;
    }
    return 0;
}

static PyObject *kernel_bind(PyObject *self, PyObject *args)
{
    KernelBase *k = (KernelBase *)self;
    PyObject *gate, *dtype, *in_shape, *out_shape, *names;
    unsigned long long address;
    const char *format;
    Py_ssize_t itemsize;
    int symbolic;
    Py_ssize_t fill;
    if (!PyArg_ParseTuple(args, "O!KOznOOOpn:_bind", gate_type, &gate, &address, &dtype, &format, &itemsize,
                          &in_shape, &out_shape, &names, &symbolic, &fill))
        return NULL;
    if (!PyTuple_Check(names)) {
        PyErr_SetString(PyExc_TypeError, "value names are a tuple");
        return NULL;
    }
    if (int64_tuple(in_shape, k->in_shape, &k->rank) < 0)
        return NULL;
    if (!symbolic && int64_tuple(out_shape, k->out_dims, &k->out_rank) < 0)
        return NULL;
    set_ref((PyObject **)&k->gate, gate);
    set_ref(&k->dtype, dtype);
    set_ref(&k->out_shape, out_shape);
    set_ref(&k->value_names, names);
    k->kernel = (const sg_kernel *)(uintptr_t)address;
    k->kind = format ? format_kind(format) : 0;
    k->itemsize = itemsize;
    k->symbolic = symbolic;
    k->value_count = PyTuple_Size(names);
    k->fill = fill;
    return Py_NewRef(Py_None);
}

static void kernel_dealloc(PyObject *self)
{
    KernelBase *k = (KernelBase *)self;
    PyTypeObject *type = Py_TYPE(self);
    Py_CLEAR(k->gate);
    Py_CLEAR(k->dtype);
    Py_CLEAR(k->out_shape);
    Py_CLEAR(k->value_names);
    type_free(self);
    Py_DECREF(type);
}

/* Whether view has k's element type and input shape (for a symbolic kernel
 * its rank: sg_kernel_prepare checks the fixed dimensions). */
static int input_fits(const KernelBase *k, const Py_buffer *view)
{
    if (view->ndim != k->rank || view->itemsize != k->itemsize || k->kind == 0 ||
        format_kind(view->format) != k->kind)
        return 0;
    for (int i = 0; i < k->rank && !k->symbolic; i++)
        if (view->shape[i] != k->in_shape[i])
            return 0;
    return 1;
}

/* Fills view with x's buffer if x fits k as it is: 1, or 0 with no error. */
static int input_fast(const KernelBase *k, PyObject *x, Py_buffer *view)
{
    if (PyObject_GetBuffer(x, view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) {
        PyErr_Clear();
        return 0;
    }
    if (input_fits(k, view))
        return 1;
    PyBuffer_Release(view);
    return 0;
}

/* Fills view with the input to run on: x's buffer, or that of the array
 * input_slow converts x to (*held, checked there: C-contiguous, of the
 * kernel's element type). 0, or -1 with an exception. */
static int input(KernelBase *k, PyObject *x, Py_buffer *view, PyObject **held)
{
    *held = NULL;
    if (input_fast(k, x, view))
        return 0;
    *held = PyObject_CallFunctionObjArgs(input_slow, (PyObject *)k, x, NULL);
    if (*held == NULL)
        return -1;
    if (PyObject_GetBuffer(*held, view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0)
        return -1;
    if (view->ndim == k->rank && view->itemsize == k->itemsize)
        return 0;
    PyBuffer_Release(view);
    PyErr_SetString(PyExc_SystemError, "slicegen: the converted input does not fit the kernel");
    return -1;
}

static int overlaps(const Py_buffer *a, const Py_buffer *b)
{
    const char *pa = a->buf, *pb = b->buf;
    return a->len > 0 && b->len > 0 && pa < pb + b->len && pb < pa + a->len;
}

static int output_fits(const KernelBase *k, const Py_buffer *view, int rank, const int64_t *dims,
                       const Py_buffer *in)
{
    if (view->ndim != rank || view->itemsize != k->itemsize || k->kind == 0 ||
        format_kind(view->format) != k->kind || overlaps(view, in))
        return 0;
    for (int i = 0; i < rank; i++)
        if (view->shape[i] != dims[i])
            return 0;
    return 1;
}

static PyObject *shape_tuple(int rank, const int64_t *dims)
{
    PyObject *tuple = PyTuple_New(rank);
    for (int i = 0; tuple != NULL && i < rank; i++) {
        PyObject *d = PyLong_FromLongLong(dims[i]);
        if (d == NULL || PyTuple_SetItem(tuple, i, d) < 0)
            Py_CLEAR(tuple);
    }
    return tuple;
}

/* Fills view with the buffer to write: that of result (the out= given, or
 * a new array), or that of the object out_slow makes of it (*held), which
 * raises what is wrong with out. 0, or -1 with an exception. */
static int output(KernelBase *k, PyObject *result, PyObject *x, int rank, const int64_t *dims,
                  const Py_buffer *in, Py_buffer *view, PyObject **held)
{
    const int flags = PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | PyBUF_WRITABLE;
    *held = NULL;
    if (PyObject_GetBuffer(result, view, flags) == 0) {
        if (output_fits(k, view, rank, dims, in))
            return 0;
        PyBuffer_Release(view);
    } else {
        PyErr_Clear();
    }
    PyObject *shape = shape_tuple(rank, dims);
    if (shape == NULL)
        return -1;
    *held = PyObject_CallFunctionObjArgs(out_slow, (PyObject *)k, result, x, shape, NULL);
    Py_DECREF(shape);
    if (*held == NULL || PyObject_GetBuffer(*held, view, flags) < 0)
        return -1;
    Py_ssize_t bytes = k->itemsize;
    for (int i = 0; i < rank; i++)
        bytes *= (Py_ssize_t)dims[i];
    if (view->len == bytes && !overlaps(view, in))
        return 0;
    PyBuffer_Release(view);
    PyErr_SetString(PyExc_SystemError, "slicegen: the converted output does not fit the call");
    return -1;
}

/* Raises the error a helper of _core.py makes for a refused call; NULL. */
static PyObject *raise_from(PyObject *helper, PyObject *a, PyObject *b, PyObject *c, PyObject *d)
{
    PyObject *r = PyObject_CallFunctionObjArgs(helper, a, b, c, d, NULL);
    if (r != NULL) {
        Py_DECREF(r);
        PyErr_SetString(PyExc_SystemError, "slicegen: a refused call raised nothing");
    }
    return NULL;
}

/* Runs k on x (its buffer in *in if given, else taken here) into out (NULL:
 * a new array) on `threads` threads, with values (a symbolic kernel's, in
 * value_names' order); returns the output. */
static PyObject *kernel_run(KernelBase *k, PyObject *x, Py_buffer *given, PyObject *out, int threads,
                            const int64_t *values)
{
    Py_buffer in, dst;
    PyObject *in_held = NULL, *out_held = NULL, *result = NULL, *shape = NULL;
    sg_args args;
    if (k->gate->ctx == NULL)
        return raise_closed();
    if (given != NULL)
        in = *given;
    else if (input(k, x, &in, &in_held) < 0)
        goto fail_input;
    int rank = k->out_rank;
    const int64_t *dims = k->out_dims;
    if (k->symbolic) {
        int64_t in_shape[SG_MAX_RANK];
        for (int i = 0; i < k->rank; i++)
            in_shape[i] = in.shape[i];
        if (k->gate->ctx == NULL) { /* closed while the input was converted */
            raise_closed();
            goto fail;
        }
        sg_status status = sg_kernel_prepare(k->gate->ctx, k->kernel, in_shape, values, &args);
        if (status != SG_OK) {
            PyObject *s = shape_tuple(k->rank, in_shape), *v = NULL, *code = PyLong_FromLong(status);
            if (s != NULL && code != NULL)
                v = shape_tuple((int)k->value_count, values);
            if (v != NULL)
                raise_from(prepare_error, (PyObject *)k, code, s, v);
            Py_XDECREF(s);
            Py_XDECREF(v);
            Py_XDECREF(code);
            goto fail;
        }
        rank = args.out_rank;
        dims = args.out_shape;
    }
    if (out != NULL) {
        result = Py_NewRef(out);
    } else {
        shape = k->symbolic ? shape_tuple(rank, dims) : Py_NewRef(k->out_shape);
        if (shape == NULL || (result = PyObject_CallFunctionObjArgs(np_empty, shape, k->dtype, NULL)) == NULL)
            goto fail;
    }
    if (output(k, result, x, rank, dims, &in, &dst, &out_held) < 0)
        goto fail;
    /* The conversions above may have closed the context: checked again
     * here, with no Python code between the check and the run. */
    sg_status status;
    Gate *gate = k->gate;
    if (dst.len > SG_GIL_BYTES || threads > 1) {
        if (gate_enter(gate) < 0) {
            PyBuffer_Release(&dst);
            goto fail;
        }
        Py_BEGIN_ALLOW_THREADS status =
            k->symbolic ? sg_kernel_run_args(gate->ctx, k->kernel, in.buf, dst.buf, &args, threads)
                        : sg_kernel_run(gate->ctx, k->kernel, in.buf, dst.buf, threads);
        gate_leave(gate);
        Py_END_ALLOW_THREADS
    } else if (gate->ctx == NULL) {
        PyBuffer_Release(&dst);
        raise_closed();
        goto fail;
    } else { /* holding the GIL: close() cannot come before the end */
        status = k->symbolic ? sg_kernel_run_args(gate->ctx, k->kernel, in.buf, dst.buf, &args, threads)
                             : sg_kernel_run(gate->ctx, k->kernel, in.buf, dst.buf, threads);
    }
    PyBuffer_Release(&dst);
    if (status != SG_OK) {
        PyObject *code = PyLong_FromLong(status);
        if (code != NULL)
            raise_from(run_error, (PyObject *)k, code, NULL, NULL);
        Py_XDECREF(code);
        goto fail;
    }
    PyBuffer_Release(&in);
    Py_XDECREF(in_held);
    Py_XDECREF(out_held);
    Py_XDECREF(shape);
    return result;
fail:
    PyBuffer_Release(&in);
fail_input:
    Py_XDECREF(in_held);
    Py_XDECREF(out_held);
    Py_XDECREF(shape);
    Py_XDECREF(result);
    return NULL;
}

/* The threads= of a call: 1..INT_MAX, through _core._threads unless a
 * plain positive int. */
static int call_threads(PyObject *threads)
{
    if (threads == NULL)
        return 1;
    if (PyLong_CheckExact(threads)) {
        int overflow;
        long long n = PyLong_AsLongLongAndOverflow(threads, &overflow);
        if (!overflow && n >= 1 && n <= INT_MAX)
            return (int)n;
        PyErr_Clear();
    }
    PyObject *n = PyObject_CallFunctionObjArgs(threads_slow, threads, NULL);
    if (n == NULL)
        return -1;
    long value = PyLong_AsLong(n);
    Py_DECREF(n);
    return value == -1 && PyErr_Occurred() ? -1 : (int)value;
}

/* A symbolic value as an int64: 0, or -1 with no error when it is not one. */
static int value_of(PyObject *v, int64_t *out)
{
    PyObject *index = PyNumber_Index(v);
    if (index == NULL) {
        PyErr_Clear();
        return -1;
    }
    int overflow;
    long long n = PyLong_AsLongLongAndOverflow(index, &overflow);
    Py_DECREF(index);
    if (overflow || (n == -1 && PyErr_Occurred())) {
        PyErr_Clear();
        return -1;
    }
    *out = n;
    return 0;
}

/* The values given by keyword (kwargs less out and threads) as _core's
 * Kernel._numbers makes them (a fill value converted from a number) into
 * numbers: 0, or -1 with what it says is wrong raised. */
static int values_by_python(KernelBase *k, PyObject *kwargs, int64_t *numbers)
{
    PyObject *values = PyDict_New(), *list = NULL;
    if (values == NULL)
        return -1;
    if (kwargs != NULL && PyDict_Update(values, kwargs) == 0) {
        static const char *const own[] = {"out", "threads"}; /* each removed, whether the other is given */
        for (int i = 0; i < 2 && !PyErr_Occurred(); i++)
            if (PyDict_DelItemString(values, own[i]) < 0 && PyErr_ExceptionMatches(PyExc_KeyError))
                PyErr_Clear();
    }
    if (!PyErr_Occurred())
        list = PyObject_CallFunctionObjArgs(values_slow, (PyObject *)k, values, NULL);
    Py_DECREF(values);
    if (list == NULL)
        return -1;
    int ok = PyList_Check(list) && PyList_Size(list) == k->value_count && k->value_count <= SG_MAX_VALUES;
    for (Py_ssize_t i = 0; ok && i < k->value_count; i++)
        ok = value_of(PyList_GetItem(list, i), &numbers[i]) == 0;
    Py_DECREF(list);
    if (!ok)
        PyErr_SetString(PyExc_SystemError, "slicegen: the values of a call are no list of int64");
    return ok ? 0 : -1;
}

/* kernel(x, out=None, threads=1, **values) */
static PyObject *kernel_call(PyObject *self, PyObject *args, PyObject *kwargs)
{
    KernelBase *k = (KernelBase *)self;
    PyObject *x = NULL, *out = NULL, *threads = NULL;
    int64_t values[SG_MAX_VALUES];
    if (k->gate == NULL) {
        PyErr_SetString(PyExc_TypeError, "Kernel objects are made by slicegen.compile or Context.compile");
        return NULL;
    }
    if (!PyArg_UnpackTuple(args, "kernel", 1, 3, &x, &out, &threads))
        return NULL;
    Py_ssize_t matched = 0, pos = 0;
    int refused = k->value_count > SG_MAX_VALUES;
    PyObject *key, *value;
    while (kwargs != NULL && PyDict_Next(kwargs, &pos, &key, &value)) {
        if (PyUnicode_CompareWithASCIIString(key, "out") == 0 ||
            PyUnicode_CompareWithASCIIString(key, "threads") == 0) {
            PyObject **slot = PyUnicode_CompareWithASCIIString(key, "out") == 0 ? &out : &threads;
            if (*slot != NULL) {
                PyErr_Format(PyExc_TypeError, "kernel() got multiple values for argument '%U'", key);
                return NULL;
            }
            *slot = value;
            continue;
        }
        Py_ssize_t i = 0;
        while (i < k->value_count && PyUnicode_Compare(PyTuple_GetItem(k->value_names, i), key) != 0)
            i++;
        if (i == k->value_count || refused || i == k->fill || value_of(value, &values[i]) < 0)
            refused = 1; /* a fill value is a number of the element type: Python converts it */
        else
            matched++;
    }
    if ((refused || matched != k->value_count) && values_by_python(k, kwargs, values) < 0)
        return NULL;
    if (out == Py_None)
        out = NULL;
    int n = call_threads(threads);
    return n < 0 ? NULL : kernel_run(k, x, NULL, out, n, values);
}

static PyMethodDef kernel_methods[] = {
    {"_bind", kernel_bind, METH_VARARGS,
     "_bind(gate, kernel address, dtype, buffer format or None, itemsize, input shape (-1: known at run "
     "time), output shape (None if symbolic), value names, symbolic, the fill value's index or -1)"},
    {NULL, NULL, 0, NULL},
};

static PyType_Slot kernel_slots[] = {
    {Py_tp_new, PyType_GenericNew},
    {Py_tp_dealloc, kernel_dealloc},
    {Py_tp_call, kernel_call},
    {Py_tp_methods, kernel_methods},
    {Py_tp_doc, "The call of a slicegen Kernel (see slicegen.Kernel)."},
    {0, NULL},
};

static PyType_Spec kernel_spec = {"slicegen._ext.KernelBase", sizeof(KernelBase), 0,
                                  Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE, kernel_slots};

/* ---- Slicer: slicegen.slice ---------------------------------------------
 * Keeps the kernel last used for each of the last SG_SLICE_CACHE spec
 * strings; a call whose input fits that kernel runs it, any other asks
 * miss(x, spec) for the kernel (the context's own cache, or a compile). */

typedef struct {
    PyObject_HEAD PyObject *miss;
    PyObject *cache; /* spec string -> Kernel, in insertion order */
} Slicer;

static PyObject *slicer_new(PyTypeObject *type, PyObject *args, PyObject *kwargs)
{
    PyObject *miss;
    if (kwargs != NULL || !PyArg_ParseTuple(args, "O:Slicer", &miss))
        return NULL;
    Slicer *self = (Slicer *)PyType_GenericAlloc(type, 0);
    if (self == NULL)
        return NULL;
    self->miss = Py_NewRef(miss);
    self->cache = PyDict_New();
    if (self->cache == NULL)
        Py_CLEAR(self);
    return (PyObject *)self;
}

static int slicer_traverse(PyObject *self, visitproc visit, void *arg)
{
    Py_VISIT(((Slicer *)self)->miss);
    Py_VISIT(((Slicer *)self)->cache);
    Py_VISIT(Py_TYPE(self));
    return 0;
}

static int slicer_clear(PyObject *self)
{
    Py_CLEAR(((Slicer *)self)->miss);
    Py_CLEAR(((Slicer *)self)->cache);
    return 0;
}

static void slicer_dealloc(PyObject *self)
{
    PyTypeObject *type = Py_TYPE(self);
    PyObject_GC_UnTrack(self);
    slicer_clear(self);
    type_free(self);
    Py_DECREF(type);
}

/* Keeps kernel for spec, forgetting the oldest spec beyond SG_SLICE_CACHE. */
static int slicer_keep(Slicer *s, PyObject *spec, PyObject *kernel)
{
    if (PyDict_Size(s->cache) >= SG_SLICE_CACHE && PyDict_GetItemWithError(s->cache, spec) == NULL) {
        Py_ssize_t pos = 0;
        PyObject *oldest, *unused;
        if (PyErr_Occurred() || !PyDict_Next(s->cache, &pos, &oldest, &unused) ||
            PyDict_DelItem(s->cache, oldest) < 0)
            return -1;
    }
    return PyDict_SetItem(s->cache, spec, kernel);
}

/* slice(x, spec, *, out=None, threads=1) */
static PyObject *slicer_call(PyObject *self, PyObject *args, PyObject *kwargs)
{
    Slicer *s = (Slicer *)self;
    PyObject *x, *spec, *out = NULL, *threads = NULL;
    if (!PyArg_ParseTuple(args, "OO:slice", &x, &spec))
        return NULL;
    Py_ssize_t pos = 0;
    PyObject *key, *value;
    while (kwargs != NULL && PyDict_Next(kwargs, &pos, &key, &value)) {
        if (PyUnicode_CompareWithASCIIString(key, "out") == 0)
            out = value;
        else if (PyUnicode_CompareWithASCIIString(key, "threads") == 0)
            threads = value;
        else {
            PyErr_Format(PyExc_TypeError, "slice() got an unexpected keyword argument '%U'", key);
            return NULL;
        }
    }
    if (out == Py_None)
        out = NULL;
    int n = call_threads(threads);
    if (n < 0)
        return NULL;
    if (PyUnicode_CheckExact(spec)) {
        PyObject *kernel = PyDict_GetItemWithError(s->cache, spec);
        Py_buffer in;
        if (kernel != NULL) {
            KernelBase *k = (KernelBase *)kernel;
            /* held: taking the buffer or the call may run code that drops
             * the cache's entry */
            Py_INCREF(kernel);
            if (k->gate->ctx != NULL && k->value_count == 0 && input_fast(k, x, &in)) {
                PyObject *result = kernel_run(k, x, &in, out, n, NULL);
                Py_DECREF(kernel);
                return result;
            }
            Py_DECREF(kernel);
        } else if (PyErr_Occurred()) {
            return NULL;
        }
    }
    PyObject *kernel = PyObject_CallFunctionObjArgs(s->miss, x, spec, NULL);
    if (kernel == NULL)
        return NULL;
    if (!PyObject_TypeCheck(kernel, kernel_type) || ((KernelBase *)kernel)->gate == NULL) {
        Py_DECREF(kernel);
        PyErr_SetString(PyExc_SystemError, "slicegen: slice's miss() returned no kernel");
        return NULL;
    }
    PyObject *result = NULL;
    KernelBase *k = (KernelBase *)kernel;
    int kept = !PyUnicode_CheckExact(spec) || slicer_keep(s, spec, kernel) == 0;
    int64_t none[SG_MAX_VALUES];
    if (kept && k->value_count > 0 && values_by_python(k, NULL, none) == 0) /* it raises: no values given */
        PyErr_SetString(PyExc_SystemError, "slicegen: a kernel with values was called without them");
    else if (kept && k->value_count == 0)
        result = kernel_run(k, x, NULL, out, n, NULL);
    Py_DECREF(kernel);
    return result;
}

static PyObject *slicer_forget(PyObject *self, PyObject *unused)
{
    (void)unused;
    PyDict_Clear(((Slicer *)self)->cache);
    return Py_NewRef(Py_None);
}

static PyMethodDef slicer_methods[] = {
    {"forget", slicer_forget, METH_NOARGS, "Forgets the kernels kept."},
    {NULL, NULL, 0, NULL},
};

static PyType_Slot slicer_slots[] = {
    {Py_tp_new, slicer_new},
    {Py_tp_dealloc, slicer_dealloc},
    {Py_tp_traverse, slicer_traverse},
    {Py_tp_clear, slicer_clear},
    {Py_tp_call, slicer_call},
    {Py_tp_methods, slicer_methods},
    {Py_tp_doc, "Slicer(miss): slice(x, spec, *, out=None, threads=1) with the kernels of the last 64 spec "
                "strings; miss(x, spec) returns the kernel of any other call."},
    {0, NULL},
};

static PyType_Spec slicer_spec = {"slicegen._ext.Slicer", sizeof(Slicer), 0,
                                  Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC, slicer_slots};

/* ---- the module ----------------------------------------------------------- */

static PyObject *setup(PyObject *module, PyObject *args)
{
    PyObject *given[8];
    (void)module;
    if (!PyArg_UnpackTuple(args, "_setup", 8, 8, &given[0], &given[1], &given[2], &given[3], &given[4],
                           &given[5], &given[6], &given[7]))
        return NULL;
    PyObject **slots[8] = {&slice_error, &np_empty,     &input_slow, &out_slow,
                           &values_slow, &threads_slow, &run_error,  &prepare_error};
    for (int i = 0; i < 8; i++)
        set_ref(slots[i], given[i]);
    return Py_NewRef(Py_None);
}

static PyMethodDef module_methods[] = {
    {"_setup", setup, METH_VARARGS,
     "_setup(SliceError, numpy.empty, input_slow, out_slow, values_slow, threads_slow, run_error, "
     "prepare_error): the helpers of _core.py"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {PyModuleDef_HEAD_INIT,
                                        "slicegen._ext",
                                        "The hot path of slicegen's kernel calls (see slicegen_ext.c).",
                                        -1,
                                        module_methods,
                                        NULL,
                                        NULL,
                                        NULL,
                                        NULL};

PyMODINIT_FUNC PyInit__ext(void)
{
    PyObject *module = PyModule_Create(&module_def);
    if (module == NULL)
        return NULL;
    gate_type = (PyTypeObject *)PyType_FromSpec(&gate_spec);
    kernel_type = (PyTypeObject *)PyType_FromSpec(&kernel_spec);
    PyObject *slicer_type = PyType_FromSpec(&slicer_spec);
    if (gate_type == NULL || kernel_type == NULL || slicer_type == NULL ||
        PyModule_AddObjectRef(module, "Gate", (PyObject *)gate_type) < 0 ||
        PyModule_AddObjectRef(module, "KernelBase", (PyObject *)kernel_type) < 0 ||
        PyModule_AddObjectRef(module, "Slicer", slicer_type) < 0 ||
        PyModule_AddIntConstant(module, "GIL_BYTES", SG_GIL_BYTES) < 0 ||
        PyModule_AddIntConstant(module, "SLICE_CACHE", SG_SLICE_CACHE) < 0) {
        Py_XDECREF(slicer_type);
        Py_DECREF(module);
        return NULL;
    }
    Py_DECREF(slicer_type);
    return module;
}
