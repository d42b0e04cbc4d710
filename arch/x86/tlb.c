/* TLB shootdown: one request at a time, an IPI to each CPU that may cache the mapping, and their answers. */
#include <asm/tlb.h>
#include <asm/lapic.h>
#include <ccos/mm.h>
#include <ccos/proc.h>
#include <ccos/spinlock.h>
#include <asm/trap.h>
#include <asm/x86.h>

/*
 * A CPU caches translations in its TLB, and no other CPU can reach into
 * it: a change to a page table that another CPU may be using must be
 * followed by an interrupt there, whose handler flushes (Intel SDM Vol. 3,
 * "Propagation of Paging-Structure Changes to Multiple Processors"). Only
 * CPUs whose CR3 holds that address space need it: ccos uses no global
 * pages and no PCIDs, so loading CR3 drops every other one. For the
 * kernel's own tables, every CPU.
 *
 * Lock rule: the request is written only by the holder of the kernel
 * lock, so there is one at a time; each target clears its own bit.
 */
static struct {
	uint64_t start, end;
	uint32_t pending;	/* CPUs still to flush, one bit each */
} request;

#define FLUSH_ALL_PAGES	32	/* past this many, reloading CR3 is cheaper than invlpg */

static void flush_local(uint64_t start, uint64_t end)
{
	uint64_t va;

	if ((end - start) / PAGE_SIZE > FLUSH_ALL_PAGES) {
		write_cr3(read_cr3());
		return;
	}
	for (va = start; va < end; va += PAGE_SIZE)
		invlpg(va);
}

/*
 * From the IPI, or from a CPU spinning for the kernel lock with
 * interrupts off (kernel/locking/spinlock.c): the sender holds that lock while it
 * waits for this answer, so the waiter must answer while it waits.
 */
void tlb_shootdown_poll(void)
{
	uint32_t me = 1u << this_cpu()->cpu;

	if (!(__atomic_load_n(&request.pending, __ATOMIC_ACQUIRE) & me))
		return;
	flush_local(request.start, request.end);
	__atomic_fetch_and(&request.pending, ~me, __ATOMIC_RELEASE);
}

static void tlb_interrupt(struct trap_frame *tf)
{
	(void)tf;
	lapic_eoi();
	tlb_shootdown_poll();
}

void tlb_shootdown(uint64_t pml4, uint64_t start, uint64_t end)
{
	int me = this_cpu()->cpu, i;
	uint32_t targets = 0;

	if (nr_cpus == 1)
		return;
	assert_kernel_locked();		/* one request at a time */
	for (i = 0; i < nr_cpus; i++)
		if (i != me && (pml4 == kernel_pml4 || READ_ONCE(cpus[i].pml4) == pml4))
			targets |= 1u << i;
	if (targets) {
		uint64_t t0 = rdtsc();

		request.start = start;
		request.end = end;
		__atomic_store_n(&request.pending, targets, __ATOMIC_RELEASE);
		for (i = 0; i < nr_cpus; i++)
			if (targets & (1u << i))
				lapic_send_ipi(cpus[i].apic_id, TLB_VECTOR);
		while (__atomic_load_n(&request.pending, __ATOMIC_ACQUIRE))
			pause();
		this_cpu()->shootdowns++;
		this_cpu()->shootdown_cycles += rdtsc() - t0;
	}
}

void tlb_init(void)
{
	idt_set_handler(TLB_VECTOR, tlb_interrupt);
}
