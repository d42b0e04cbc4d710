/* lab_todo: what a course lab's starting point runs where the student's code goes (docs/labs/). */
#ifndef CCOS_LAB_H
#define CCOS_LAB_H

#include <ccos/types.h>

void lab_todo_report(const char *handout, const char *file, const char *func);

/*
 * The stubs of a student tree (docs/teaching.md) call this where the
 * solution was taken out: it says once, on the console, which file and
 * function to write and which handout explains it; the stub then fails
 * cleanly on its own (a signal, or nothing mapped), never with a crash.
 */
#define lab_todo(handout)                                                 \
	do {                                                              \
		static bool lab_todo_said;                                \
		if (!lab_todo_said) {                                     \
			lab_todo_said = true;                             \
			lab_todo_report(handout, __FILE__, __func__);     \
		}                                                         \
	} while (0)

#endif
