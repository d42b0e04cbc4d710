/* The attacker's program (user/attack/attack*.c): what its parts share. */
#ifndef USER_ATTACK_H
#define USER_ATTACK_H

#include "ulib.h"

#define VSYSCALL_PAGE	0xffffffffff600000ul
#define PAGE		4096

/* Code found in a copy of a page's bytes (attack_payload.c), as addresses in the victim. */
struct gadgets {
	unsigned long ret;		/* c3 */
	unsigned long zero_rax;		/* 31 c0 c3: xor %eax,%eax; ret */
	unsigned long syscall;		/* 0f 05, then pops, then c3 */
	int syscall_pops;		/* how many words those pops take off the stack */
};

/* The exit status the attacker picks for the service (docs/attack.md). */
#define CHOSEN_STATUS	42
/*
 * The selectors a 64-bit frame must carry: rt_sigreturn loads cs and ss
 * from it, as Linux does (a 0 there is a #GP at the return: SIGSEGV).
 */
#define FRAME_CS	0x33	/* Linux's __USER_CS: 64-bit code, ring 3 */
#define FRAME_SS	0x2b	/* __USER_DS */
/* What the chain's own read must return: rt_sigreturn's number. */
#define NR_RT_SIGRETURN	15

/* Linux's struct ucontext with its sigcontext, what rt_sigreturn reads at rsp (asm/sigcontext.h). */
struct sigcontext64 {
	unsigned long r8, r9, r10, r11, r12, r13, r14, r15;
	unsigned long rdi, rsi, rbp, rbx, rdx, rax, rcx, rsp, rip, eflags;
	unsigned short cs, gs, fs, ss;
	unsigned long err, trapno, oldmask, cr2, fpstate, reserved[8];
};

struct ucontext64 {
	unsigned long uc_flags, uc_link;
	unsigned long ss_sp, ss_flags, ss_size;
	struct sigcontext64 mc;
	unsigned long uc_sigmask;
};

int find_gadgets(const unsigned char *bytes, size_t len, unsigned long base, struct gadgets *g);
size_t build_srop_exit(unsigned char *req, size_t size, const struct gadgets *g);
size_t build_ret_sled(unsigned char *req, size_t size, unsigned long entry, size_t body_len);

/* attack_run.c: one run of the service, fed a request through a pipe */
struct outcome {
	int status;			/* wait4's */
	char out[512];			/* what the service printed */
	char kmsg[160];			/* the kernel's line about it, or "" */
};
typedef size_t (*request_fn)(unsigned char *req, size_t size, const char *first_line, void *arg);
int run_service(char *const argv[], int first_line, request_fn make, void *arg, struct outcome *o);
const char *signal_name(int sig);

/* attack_check.c: find_gadgets and build_srop_exit at made-up places */
void check_payload(void);

/* attack_probe.c: the heatmap's 4096 jumps */
void heatmap(void);

#endif
