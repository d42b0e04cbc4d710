/* The text screen: where the firmware left one (SeaBIOS: 80x25 at 0xb8000), the console shows there too. */
#include <ccos/boot.h>
#include <ccos/mm.h>
#include <ccos/printk.h>
#include <ccos/lib.h>

/* Each cell is two bytes: the character, then its colour (0x07: grey on black). */
#define ATTR	0x0700

static volatile uint16_t *screen;
static uint32_t cols, rows, pitch_cells, col, row;

static void clear_row(uint32_t r)
{
	uint32_t c;

	for (c = 0; c < cols; c++)
		screen[r * pitch_cells + c] = ATTR | ' ';
}

/*
 * Scroll up one line: rows 1.. move up a row in one memmove, eight bytes
 * a step, padding past the last column and all.
 */
static void newline(void)
{
	col = 0;
	if (++row < rows)
		return;
	memmove((uint16_t *)screen, (uint16_t *)&screen[pitch_cells], (rows - 1) * pitch_cells * 2);
	row = rows - 1;
	clear_row(row);
}

void vga_putc(char c)
{
	if (!screen)
		return;
	if (c == '\n') {
		newline();
		return;
	}
	if (c == '\r') {
		col = 0;
		return;
	}
	screen[row * pitch_cells + col] = ATTR | (uint8_t)c;
	if (++col == cols)
		newline();
}

/* After paging_init: the screen is device memory, mapped uncached. */
void vga_init(void)
{
	const struct boot_info *bi = &boot_info;
	uint32_t r;

	if (!bi->text_screen)
		return;
	screen = ioremap(bi->text_screen, bi->text_pitch * bi->text_rows);
	if (!screen)
		return;
	cols = bi->text_cols;
	rows = bi->text_rows;
	pitch_cells = bi->text_pitch / 2;
	for (r = 0; r < rows; r++)
		clear_row(r);
	printk("console: %ux%u text screen at %lx\n", cols, rows, bi->text_screen);
}
