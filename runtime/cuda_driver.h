/* The part of the CUDA driver API's ABI that slicegen uses: the types and
 * values of cuda.h, declared here so that nothing of CUDA is needed to
 * build slicegen. The runtime (cuda.c) calls the driver through them and
 * the tests' fake driver (tests/support/fake_cuda.c) implements them. The values
 * are cuda.h's, which are fixed across driver versions. */
#ifndef SLICEGEN_CUDA_DRIVER_H
#define SLICEGEN_CUDA_DRIVER_H

typedef int CUresult;
typedef int CUdevice;
typedef unsigned long long CUdeviceptr;
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUstream_st *CUstream;
typedef struct CUevent_st *CUevent;
typedef int CUjit_option;

enum { CUDA_SUCCESS = 0, CUDA_ERROR_OUT_OF_MEMORY = 2, CUDA_ERROR_NO_DEVICE = 100 };
enum { CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76 };
enum {
    CU_JIT_INFO_LOG_BUFFER = 3,
    CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES = 4,
    CU_JIT_ERROR_LOG_BUFFER = 5,
    CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6
};
enum { CU_EVENT_DEFAULT = 0, CU_STREAM_NON_BLOCKING = 1 };

#endif
