/* LLVM's fatal errors end the process; sg_llvm_exit_on_fatal_error makes
 * that one line and exit status 1 instead of an abort. A child process
 * installs it and compiles a function for x86-64 with the CPU i386, which
 * LLVM refuses with a fatal error ("64-bit code requested on a subtarget
 * that doesn't support it"); the parent checks the child's stderr and exit.
 * Last line "fatal: N passed, M failed". */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <llvm-c/Core.h>
#include <llvm-c/Target.h>
#include <llvm-c/TargetMachine.h>

#include "../support/check.h"
#include "slicegen.h"

typedef struct suite {
    check_counts counts;
} suite;

/* In the child: a function compiled for a target LLVM cannot serve. */
static void provoke(void)
{
    LLVMInitializeX86TargetInfo();
    LLVMInitializeX86Target();
    LLVMInitializeX86TargetMC();
    LLVMInitializeX86AsmPrinter();
    LLVMTargetRef target;
    char *message = NULL;
    if (LLVMGetTargetFromTriple("x86_64-unknown-linux-gnu", &target, &message))
        _exit(3);
    LLVMTargetMachineRef tm =
        LLVMCreateTargetMachine(target, "x86_64-unknown-linux-gnu", "i386", "", LLVMCodeGenLevelNone,
                                LLVMRelocPIC, LLVMCodeModelDefault);
    /* An explicit context: LLVM 22 deprecates the global-context calls. */
    LLVMContextRef c = LLVMContextCreate();
    LLVMModuleRef m = LLVMModuleCreateWithNameInContext("m", c);
    LLVMValueRef f = LLVMAddFunction(m, "f", LLVMFunctionType(LLVMVoidTypeInContext(c), NULL, 0, 0));
    LLVMBuilderRef b = LLVMCreateBuilderInContext(c);
    LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(c, f, "entry"));
    LLVMBuildRetVoid(b);
    LLVMMemoryBufferRef object;
    LLVMTargetMachineEmitToMemoryBuffer(tm, m, LLVMObjectFile, &message, &object);
    _exit(4); /* LLVM did not stop */
}

int main(void)
{
    suite s = {CHECK_COUNTS_INIT};
    int fds[2];
    if (pipe(fds) != 0)
        return 1;
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        dup2(fds[1], STDERR_FILENO);
        sg_llvm_exit_on_fatal_error();
        provoke();
    }
    close(fds[1]);
    char said[4096] = "";
    size_t len = 0;
    ssize_t n;
    while ((n = read(fds[0], said + len, sizeof said - 1 - len)) > 0)
        len += (size_t)n;
    said[len] = '\0';
    int status = 0;
    waitpid(pid, &status, 0);
    CHECK(&s, WIFEXITED(status) && WEXITSTATUS(status) == 1, "exit status 1, not a signal (status %d)",
          status);
    CHECK(&s,
          strcmp(said, "slicegen: error: LLVM failed: 64-bit code requested on a subtarget that doesn't "
                       "support it!\n") == 0,
          "one line on stderr, got: %s", said);
    return finish("fatal", &s.counts);
}
