/* vsyscalltest's shared parts: the mode it found, the probe (probe.c), the page cases (pages.c). */
#ifndef USER_VSYSCALLTEST_H
#define USER_VSYSCALLTEST_H

#include "testutil.h"
#include "gate.h"

#define HPET_ADDR		0xffffffffff5fe000UL	/* main counter at 0xf0 */
#define KERNEL_TEXT		0xffffffff80100000UL
#define VSYS_NON_ENTRY		(VSYSCALL_ADDR + 0x100)	/* no entry: an illegal call */

#define VGETCPU_RDTSCP		1
#define PERCPU_SEL		0x7b
#define PR_SET_SECCOMP		22
#define SECCOMP_MODE_STRICT	1
#define SI_KERNEL		0x80
#define TRAP_TRACE		2
#define X86_TRAP_PF		14
#define PF_PROT			0x1
#define PF_WRITE		0x2
#define PF_USER			0x4
#define PF_INSTR		0x10
#define RFLAGS_TF		0x100

enum mode { NATIVE, EMULATE, XONLY, NONE };
extern const char *const mode_names[];
extern enum mode mode;

static inline int emulated(void)
{
	return mode == EMULATE || mode == XONLY;
}

static inline int callable(void)
{
	return mode != NONE;
}

/* ---- probe.c: call or touch an address and see what happened ---- */

struct probe {
	int sig;		/* 0: the call returned */
	int code;		/* si_code */
	unsigned long addr;	/* si_addr */
	unsigned long rip, trapno, err, cr2;
	long ret;		/* rax, when it returned */
};

/* Single-stepping (test_single_step): the handler counts instead of landing. */
extern int stepping;
extern int steps_total, steps_in_page;
enum { MAX_PAGE_STEPS = 256 };
extern unsigned long page_steps[MAX_PAGE_STEPS];	/* the rip of each step in the page */

long probe_call(unsigned long target, long a1, long a2, long a3);
long probe_jump_with_stack(unsigned long target, unsigned long rsp, long a1, long a2);
long step_call(unsigned long target, long a1, long a2);
void probe_landing(void);
void probe_load(void);
void probe_store(void);
void own_int_0xcc(void);

void install_handlers(void);
struct probe probe(unsigned long target, long a1, long a2, long a3);
struct probe probe_bad_stack(unsigned long target, unsigned long rsp, long a1, long a2);
const char *signame(int sig);
int probe_fail(const struct probe *p, const char *what, const char *expected);
int expect_segv_at(const struct probe *p, unsigned long addr, const char *what);

static inline unsigned long vvar_jiffies(void)
{
	return *(volatile unsigned long *)VVAR_ADDR;
}

static inline int vvar_vgetcpu_mode(void)
{
	return *(volatile int *)(VVAR_ADDR + 16);
}

/* /proc/self/maps as test_mode_detected read it: the line ending in name, or NULL. */
const char *find_line(const char *name);

/* ---- pages.c: the page's bytes, every offset, bad pointers, the vvar and HPET pages ---- */

extern unsigned long unmapped_addr, readonly_addr;
void make_bad_pages(void);
int test_page_readable(void);
int test_page_not_writable(void);
int test_page_bytes(void);
int test_every_offset(void);
int test_bad_pointers(void);
int test_outputs_across_pages(void);
int test_bad_stack(void);
int test_vvar_readable(void);
int test_vvar_not_writable(void);
int test_vvar_not_executable(void);
int test_hpet_readable(void);
int test_hpet_not_writable(void);
int test_hpet_not_executable(void);

/* ---- cow.c: outputs on pages fork shares and on pages nobody has touched ---- */

int test_outputs_on_pages_fork_shares(void);
int test_outputs_on_untouched_pages(void);
int test_bad_pointer_beside_shared_pages(void);

/* ---- pinned.c: getcpu's four paths on every CPU, pinned by sched_setaffinity ---- */

int test_getcpu_pinned(void);

#endif
