/* What the fake CUDA driver (tests/support/fake_cuda.c, built as libcuda.so.1 in
 * the build tree's tests/fake_cuda folder) lets a test read besides the
 * driver API: counts of the objects alive and the last launch. A test
 * finds these with dlsym on the library slicegen loaded. */
#ifndef SG_FAKE_CUDA_H
#define SG_FAKE_CUDA_H

typedef struct fake_cuda_counts {
    int allocations;      /* cuMemAlloc blocks not freed */
    int modules;          /* modules loaded, not unloaded */
    int streams, events;  /* created, not destroyed */
    int retained;         /* primary context references (retains less releases), all devices */
    int current;          /* contexts pushed and not popped, this thread */
    long loads;           /* cuModuleLoadDataEx calls that succeeded */
    long launches;        /* cuLaunchKernel calls that succeeded */
} fake_cuda_counts;

typedef struct fake_cuda_launch {
    char name[128];       /* the function's name */
    unsigned grid[3], block[3], shared;
    void *stream;
    unsigned long long in, out; /* the two parameters */
} fake_cuda_launch;

typedef void (*fake_cuda_counts_fn)(fake_cuda_counts *counts);
/* Returns the number of launches; *launch is the last one (if any). */
typedef long (*fake_cuda_last_launch_fn)(fake_cuda_launch *launch);

/* The byte the fake writes to every output byte of a launch (it cannot run
 * PTX): from `out` to the end of its allocation, at most 16 bytes per
 * thread of the grid. */
#define FAKE_CUDA_MARKER 0x5a

#endif
