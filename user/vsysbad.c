/* vsysbad: one legacy vsyscall with a bad pointer, the crash that docs/gdb.md walks back from. */
#include "ulib.h"
#include "gate.h"

/*
 * gettimeofday through the vsyscall page with tv pointing into the
 * kernel half: in emulate and xonly modes the kernel's emulation gets
 * -EFAULT from copy_to_user, warns "vsyscall fault (exploit attempt?)"
 * and kills the program with SIGSEGV, rip left at the entry. `stage`
 * records how far it got, for a watchpoint to find (docs/gdb.md).
 */
volatile int stage;

int main(int argc, char **argv, char **envp)
{
	struct timeval *bad = (struct timeval *)0xffff800000000000UL;

	(void)argc, (void)argv, (void)envp;

	stage = 1;
	printf("vsysbad: calling gettimeofday at %#lx with tv=%p\n", VSYS_GETTIMEOFDAY, bad);
	stage = 2;
	vgettimeofday(bad, NULL);
	stage = 3;
	printf("vsysbad: the call returned: the pointer was not checked\n");
	return 1;
}
