/* Signal actions: one table per process, shared by its threads (CLONE_SIGHAND), copied by fork. */
#include <ccos/proc.h>
#include <ccos/mm.h>
#include <ccos/lib.h>
#include <ccos/errno.h>

/*
 * A thread reaches the actions as p->sig.action, the array of a struct
 * sighand, so that p->sig.action[sig - 1] is sig's; refs counts the
 * threads sharing it. Both are the kernel lock's (docs/smp.md).
 */
static struct sighand *sighand_of(struct k_sigaction *action)
{
	return container_of(action, struct sighand, action[0]);
}

/* Every action SIG_DFL, or NULL when out of memory. */
struct k_sigaction *sighand_alloc(void)
{
	struct sighand *sh = kzalloc(sizeof(*sh));

	if (!sh)
		return NULL;
	sh->refs = 1;
	return sh->action;
}

struct k_sigaction *sighand_copy(struct k_sigaction *action)
{
	struct k_sigaction *copy = sighand_alloc();

	if (copy)
		memcpy(copy, action, sizeof(sighand_of(action)->action));
	return copy;
}

struct k_sigaction *sighand_share(struct k_sigaction *action)
{
	sighand_of(action)->refs++;
	return action;
}

void sighand_put(struct k_sigaction *action)
{
	struct sighand *sh = sighand_of(action);

	if (!--sh->refs)
		kfree(sh);
}

/* Make *action the caller's own (a copy if another process shares it): 0 or -ENOMEM. */
int sighand_unshare(struct k_sigaction **action)
{
	struct k_sigaction *copy;

	if (sighand_of(*action)->refs == 1)
		return 0;
	if (!(copy = sighand_copy(*action)))
		return -ENOMEM;
	sighand_put(*action);
	*action = copy;
	return 0;
}
