/* Tests of the seqcount writer (lab 5): seq odd while the data changes, even once it is all written. */
#include <ccos/ktest.h>
#include <ccos/time.h>
#include <asm/arch.h>

static struct vsyscall_gtod_data test_gtod;
static uint32_t seq_in_fill;
static int fills;

/* A fill that records the counter it sees, then writes its data. */
static void probe_fill(struct vsyscall_gtod_data *g)
{
	seq_in_fill = READ_ONCE(g->seq);
	fills++;
	g->wall_time_sec = 1000 + fills;
}

KTEST(vgtod_publish_odd_during_update_even_after)
{
	int i;

	test_gtod.seq = 10;
	fills = 0;
	for (i = 1; i <= 3; i++) {
		vgtod_publish(&test_gtod, probe_fill);
		KEXPECT_EQ(fills, i);
		if (!(seq_in_fill & 1))
			ktest_fail(__FILE__, __LINE__, "update %d: seq was %u (even) while the data was written",
				   i, seq_in_fill);
		KEXPECT_EQ(test_gtod.seq, 10 + 2 * i);
		KEXPECT_EQ(test_gtod.wall_time_sec, 1000 + i);
	}
}
