/* The message of a lab's stub: which function the student writes, and where to read how. */
#include <ccos/lab.h>
#include <ccos/printk.h>

void lab_todo_report(const char *handout, const char *file, const char *func)
{
	printk(KERN_WARNING "LAB TODO: %s: %s() is yours to write (docs/labs/%s.md)\n",
	       file, func, handout);
}
