/* spin: loop forever in user mode, for scheduler and preemption tests. */

int main(void)
{
	for (;;)
		asm volatile("" ::: "memory");
}
