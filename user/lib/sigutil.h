/* sigutil: what the signal tests share: addresses, handlers, the fault recorder. */
#ifndef USER_SIGUTIL_H
#define USER_SIGUTIL_H

#include "testutil.h"

#define KERNEL_HOLE	0xffffa00000000000UL	/* kernel half, mapped by nobody */
#define USER_CS		0x33
#define USER_DS		0x2b
#define KERNEL_CS	0x10
#define KERNEL_DS	0x18

#define EFLAGS_TF	0x100UL
#define EFLAGS_IF	0x200UL
#define EFLAGS_IOPL	0x3000UL
#define EFLAGS_NT	0x4000UL
#define EFLAGS_VM	0x20000UL
#define EFLAGS_AC	0x40000UL
#define EFLAGS_VIF	0x80000UL
#define EFLAGS_VIP	0x100000UL

/* Page-fault error code bits (REG_ERR of a SIGSEGV from a page fault). */
#define PF_PROT		0x1
#define PF_WRITE	0x2
#define PF_USER		0x4
#define PF_INSTR	0x10

/* A child's "# " diagnostic line, and 1: its failure exit status. */
#define FAIL(...)	(ktap_diag(__VA_ARGS__), 1)

const char *sig_name(int sig);

/* Handlers, actions and the blocked set. */
long set_handler(int sig, void (*fn)(int, siginfo_t *, void *),
		 unsigned long flags, sigset_t mask);
long set_action(int sig, void (*fn)(int));
sigset_t get_mask(void);
void set_mask(sigset_t m);
void *map(int prot);
unsigned long unmapped_page(void);

/* Run fn in a child: 1 if it exited with 0, or if sig killed it. */
int child_passes(int (*fn)(void *), void *arg);
int child_killed_by(int (*fn)(void *), void *arg, int sig);

/* What the fault handler (record) saw, and where it sends the program on. */
extern volatile struct seen {
	int count, signo, errno_, code;
	unsigned long addr;		/* si_addr */
	unsigned long rip, rsp, eflags, err, trapno, cr2;
	unsigned long handler_sp;	/* where the handler's frame was */
	sigset_t mask;			/* the blocked set inside the handler */
	sigset_t uc_sigmask;
	stack_t uc_stack;
} seen;
extern volatile unsigned long resume_at;	/* new rip; 0: return to the same place */
extern volatile int resume_pops;		/* pop a return address (a faulting call) */

void record(int sig, siginfo_t *si, void *ctx);
void catch_faults(unsigned long flags);

/* A handler that counts SIGUSR1 deliveries in usr1_count. */
extern volatile int usr1_count;
void on_usr1_count(int sig, siginfo_t *si, void *ctx);

/* ---- faulting instructions ---- */

/*
 * Each is a function of one argument (rdi): NAME_insn labels the
 * instruction that faults or traps, NAME_resume the one after it, where
 * the handler sends the program on. `before` prepares the fault and
 * `after` undoes what it changed.
 */
#define FAULT_FN(name, before, insn, after)				\
	extern const char name##_insn[], name##_resume[];		\
	void name(unsigned long arg);					\
	__asm__(".text\n"						\
		".type " #name ", @function\n"				\
		#name ":\n\t" before "\n"				\
		#name "_insn:\n\t" insn "\n"				\
		#name "_resume:\n\t" after "\n"				\
		"\tret\n"						\
		".size " #name ", . - " #name "\n")


/* movb (%rdi), %al: the load the fault tests share (sigutil.c) */
extern const char load_byte_insn[], load_byte_resume[];
void load_byte(unsigned long arg);

#endif
