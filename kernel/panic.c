/* panic: print what went wrong, the registers and a stack trace, then stop. */
#include <ccos/printk.h>
#include <asm/arch.h>
#include <ccos/power.h>

/* The symbol table that tools/ksyms writes into the .ksyms section. */
struct ksym {
	uint64_t addr;
	const char *name;
};
extern const struct {
	uint64_t count;
	struct ksym syms[];
} ksyms;

const char *ksym_lookup(uint64_t addr, uint64_t *offset)
{
	uint64_t lo = 0, hi = ksyms.count;

	*offset = 0;
	if (!hi || addr < ksyms.syms[0].addr)
		return NULL;
	while (hi - lo > 1) {		/* the last symbol at or below addr */
		uint64_t mid = (lo + hi) / 2;

		if (ksyms.syms[mid].addr <= addr)
			lo = mid;
		else
			hi = mid;
	}
	*offset = addr - ksyms.syms[lo].addr;
	return ksyms.syms[lo].name;
}

static bool kernel_stack_address(uint64_t a)
{
	return a >= 0xffff800000000000 && !(a & 7);
}

/* Walk the rbp chain: each frame holds the caller's rbp, then the return address. */
void dump_stack_from(uint64_t rbp)
{
	int depth;

	printk(KERN_ERR "Call trace:\n");
	for (depth = 0; depth < 32 && kernel_stack_address(rbp); depth++) {
		const uint64_t *frame = (const uint64_t *)rbp;
		uint64_t off, ret = frame[1];
		const char *name = ksym_lookup(ret, &off);

		if (!name)
			break;
		printk(KERN_ERR "  [<%016lx>] %s+0x%lx\n", ret, name, off);
		rbp = frame[0];
	}
}

static bool panicking;

static __noreturn void panic_va(struct trap_frame *tf, const char *fmt, va_list ap)
{
	char msg[256];

	cli();
	if (panicking)		/* a fault while panicking: stop at once */
		power_off(PANIC_EXIT_STATUS);
	panicking = true;
	console_lock_break();
	console_loglevel = 7;
	vsnprintf(msg, sizeof(msg), fmt, ap);
	printk(KERN_ERR "\nKernel panic: %s\n", msg);
	if (tf) {
		dump_registers(tf);
		dump_stack_from(tf->rbp);
	} else {
		dump_stack_from((uint64_t)__builtin_frame_address(0));
	}
	printk(KERN_ERR "---[ end Kernel panic: %s ]---\n", msg);
	power_off(PANIC_EXIT_STATUS);
}

void panic(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	panic_va(NULL, fmt, ap);
}

void panic_frame(struct trap_frame *tf, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	panic_va(tf, fmt, ap);
}
