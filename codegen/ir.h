/*
 * The LLVM IR builders every module of the code generator uses (the CPU
 * kernels of emit.c, the GPU kernels of gpu.c, the prologues of
 * prepare.c, the descriptions of aot.c), and the one place that bridges
 * LLVM 14's typed pointers and the opaque pointers of LLVM 15 on.
 */
#ifndef SG_CODEGEN_IR_H
#define SG_CODEGEN_IR_H

#include <llvm-c/Core.h>
#include <llvm/Config/llvm-config.h>

#include "slicegen.h"

/* The pointer type of `address_space`: i8* with typed pointers, ptr with
 * opaque ones. */
static inline LLVMTypeRef sg_ir_ptr_type(LLVMContextRef c, unsigned address_space)
{
#if LLVM_VERSION_MAJOR < 15
    return LLVMPointerType(LLVMInt8TypeInContext(c), address_space);
#else
    return LLVMPointerTypeInContext(c, address_space);
#endif
}

/* p as a pointer a load or store of `type` takes: with typed pointers a
 * pointer to that type (in `address_space`); with opaque ones p itself. */
static inline LLVMValueRef sg_ir_typed(LLVMBuilderRef b, LLVMValueRef p, LLVMTypeRef type,
                                       unsigned address_space)
{
#if LLVM_VERSION_MAJOR < 15
    return LLVMBuildBitCast(b, p, LLVMPointerType(type, address_space), "");
#else
    (void)b;
    (void)type;
    (void)address_space;
    return p;
#endif
}

/* A constant pointer as the pointer type `ptr` (a constant's own pointer
 * type with typed pointers; unchanged with opaque ones). */
static inline LLVMValueRef sg_ir_const_ptr(LLVMValueRef v, LLVMTypeRef ptr)
{
#if LLVM_VERSION_MAJOR < 15
    return LLVMConstBitCast(v, ptr);
#else
    (void)ptr;
    return v;
#endif
}

/* A new block at the end of function fn. */
static inline LLVMBasicBlockRef sg_ir_block(LLVMContextRef c, LLVMValueRef fn, const char *name)
{
    return LLVMAppendBasicBlockInContext(c, fn, name);
}

/* a mod m for 0 < m (the remainder from 0 up: Python's %), dividing only
 * where a is not already in [0, m): the coordinates of a border lie
 * mostly within one period of its window, and a division costs tens of
 * cycles. `is_signed`: a any i64; else a read as unsigned. Adds blocks to
 * the builder's function and leaves the builder in the last. */
static inline LLVMValueRef sg_ir_mod(LLVMBuilderRef b, LLVMValueRef a, LLVMValueRef m, bool is_signed)
{
    LLVMTypeRef type = LLVMTypeOf(a);
    LLVMBasicBlockRef from = LLVMGetInsertBlock(b);
    LLVMValueRef fn = LLVMGetBasicBlockParent(from);
    LLVMContextRef c = LLVMGetTypeContext(type);
    LLVMBasicBlockRef divide = sg_ir_block(c, fn, "mod"), done = sg_ir_block(c, fn, "modded");
    LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntULT, a, m, ""), done, divide);
    LLVMPositionBuilderAtEnd(b, divide);
    LLVMValueRef r;
    if (is_signed) {
        r = LLVMBuildSRem(b, a, m, "");
        r = LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntSLT, r, LLVMConstInt(type, 0, 0), ""),
                            LLVMBuildAdd(b, r, m, ""), r, "");
    } else {
        r = LLVMBuildURem(b, a, m, "");
    }
    LLVMBuildBr(b, done);
    LLVMPositionBuilderAtEnd(b, done);
    LLVMValueRef phi = LLVMBuildPhi(b, type, "");
    LLVMValueRef values[2] = {a, r};
    LLVMBasicBlockRef blocks[2] = {from, divide};
    LLVMAddIncoming(phi, values, blocks, 2);
    return phi;
}

/* The input index that border mode `mode` reads for coordinate x of a
 * dimension of d > 0 elements (both i64): sg_mode_index (planner/modes.c)
 * computed at run time, for every emitter of mapped loops (the CPU's
 * levels.c, the GPU's gpu_values.c); *inside, for FILL, whether it reads
 * at all (x in [0, d)), else left as it is. */
static inline LLVMValueRef sg_ir_mode_index(LLVMBuilderRef b, sg_trt_mode mode, LLVMValueRef x, LLVMValueRef d,
                                            LLVMValueRef *inside)
{
    LLVMTypeRef i64 = LLVMTypeOf(x);
    LLVMValueRef zero = LLVMConstInt(i64, 0, 0), one = LLVMConstInt(i64, 1, 0);
    switch (mode) {
    case SG_TRT_CLAMP: {
        LLVMValueRef up = LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntSLT, x, zero, ""), zero, x, "");
        LLVMValueRef last = LLVMBuildSub(b, d, one, "");
        return LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntSGT, up, last, ""), last, up, "");
    }
    case SG_TRT_FILL:
        *inside = LLVMBuildICmp(b, LLVMIntULT, x, d, ""); /* 0 <= x < d */
        return x;
    case SG_TRT_WRAP:
        return sg_ir_mod(b, x, d, true);
    case SG_TRT_REFLECT: { /* |x| mod (2d - 2), folded back above d - 1; 0 when d == 1 */
        LLVMValueRef period = LLVMBuildSub(b, LLVMBuildAdd(b, d, d, ""), LLVMConstInt(i64, 2, 0), "");
        period = LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntEQ, d, one, ""), one, period, "");
        LLVMValueRef mag = LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntSLT, x, zero, ""),
                                           LLVMBuildSub(b, zero, x, ""), x, "");
        LLVMValueRef c = sg_ir_mod(b, mag, period, false);
        return LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntUGE, c, d, ""), LLVMBuildSub(b, period, c, ""), c,
                               "");
    }
    case SG_TRT_STRICT:
        break;
    }
    return x;
}

/* A 16-byte chunk of values[0 .. 16 / piece), integers of `piece` bytes
 * each (piece < 16), as the four 32-bit lanes of a <4 x i32>: built lane
 * by lane (shifts and ors), which the NVPTX backend keeps as one 16-byte
 * store, where a vector of bytes or halves is stored in 4- or 8-byte
 * pieces (and a bitcast of one is folded back into it). */
static inline LLVMValueRef sg_ir_chunk_lanes(LLVMBuilderRef b, LLVMContextRef c, LLVMValueRef *values,
                                             int64_t piece)
{
    LLVMTypeRef i32 = LLVMInt32TypeInContext(c), i64 = LLVMInt64TypeInContext(c);
    LLVMValueRef v = LLVMGetUndef(LLVMVectorType(i32, 4));
    for (int64_t lane = 0; lane < 4; lane++) {
        LLVMValueRef x;
        if (piece == 8) {
            LLVMValueRef p = values[lane / 2];
            if (lane % 2)
                p = LLVMBuildLShr(b, p, LLVMConstInt(i64, 32, 0), "");
            x = LLVMBuildTrunc(b, p, i32, "");
        } else {
            x = NULL;
            for (int64_t m = 0; m < 4 / piece; m++) {
                LLVMValueRef p = values[lane * (4 / piece) + m];
                if (piece < 4)
                    p = LLVMBuildZExt(b, p, i32, "");
                if (m > 0)
                    p = LLVMBuildShl(b, p, LLVMConstInt(i32, (unsigned long long)(8 * piece * m), 0), "");
                x = x ? LLVMBuildOr(b, x, p, "") : p;
            }
        }
        v = LLVMBuildInsertElement(b, v, x, LLVMConstInt(i32, (unsigned long long)lane, 0), "");
    }
    return v;
}

#endif
