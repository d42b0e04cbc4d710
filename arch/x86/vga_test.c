/* In-kernel test of the text screen: what printk prints is in video memory. */
#include <ccos/ktest.h>
#include <ccos/boot.h>
#include <ccos/mm.h>
#include <ccos/printk.h>
#include <ccos/lib.h>

/* Does the screen at phys hold s, one character per two-byte cell? */
static bool screen_holds(const volatile uint16_t *cells, size_t n, const char *s)
{
	size_t i, j, len = strlen(s);

	for (i = 0; i + len <= n; i++) {
		for (j = 0; j < len && (cells[i + j] & 0xff) == (uint8_t)s[j]; j++)
			;
		if (j == len)
			return true;
	}
	return false;
}

KTEST(printk_reaches_the_text_screen)
{
	const struct boot_info *bi = &boot_info;
	const volatile uint16_t *cells;

	if (!bi->text_screen) {
		ktest_skip("no text screen (UEFI gives a graphic framebuffer)");
		return;
	}
	cells = ioremap(bi->text_screen, bi->text_pitch * bi->text_rows);
	KEXPECT(cells != NULL);
	printk("    # vga-marker-7f3a\n");
	KEXPECT(screen_holds(cells, bi->text_pitch / 2 * bi->text_rows, "vga-marker-7f3a"));
}
