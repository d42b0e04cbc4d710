/* The vvar page's kernel copy; mm maps the same page for user mode at VVAR_ADDRESS. */
#include <asm/arch.h>
#include <ccos/types.h>

/*
 * The only object in the .vvar input section, which linker/kernel.ld puts
 * at __vvar_page, a page of its own: so its offsets are the page's.
 */
struct vvar_page vvar __section(".vvar");

/*
 * jiffies is a name for offset 0 of the page, as in Linux (where the
 * linker script says jiffies = jiffies_64): an assembler alias, so that
 * kernel code can write `jiffies` like any variable.
 */
__asm__(".globl jiffies\n\t.set jiffies, vvar");
