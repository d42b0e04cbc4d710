/* The kernel log: the last 16 KiB that printk printed, and syslog(2), which reads it (what dmesg shows). */
#include <ccos/printk.h>
#include <ccos/syscall.h>
#include <ccos/errno.h>
#include <ccos/lib.h>
#include <ccos/uaccess.h>

#define LOG_SIZE	16384	/* a power of two: the count runs free and wraps */

static char log_buf[LOG_SIZE];
static uint64_t log_end;		/* bytes ever stored */

void log_store(const char *s, size_t len)
{
	while (len--)
		log_buf[log_end++ % LOG_SIZE] = *s++;
}

#define SYSLOG_ACTION_READ_ALL		3
#define SYSLOG_ACTION_SIZE_BUFFER	10

/*
 * Linux's syslog(2), the two actions dmesg needs: READ_ALL copies the
 * newest bytes of the log, up to len, oldest first, and returns their
 * number; SIZE_BUFFER returns the log's size.
 */
long sys_syslog(int type, char __user *buf, int len)
{
	uint64_t n, start;
	char chunk[256];

	if (type == SYSLOG_ACTION_SIZE_BUFFER)
		return LOG_SIZE;
	if (type != SYSLOG_ACTION_READ_ALL)
		return -EINVAL;
	if (len < 0 || !buf)
		return -EINVAL;
	n = MIN((uint64_t)len, MIN(log_end, (uint64_t)LOG_SIZE));
	start = log_end - n;
	for (uint64_t done = 0; done < n;) {
		size_t k = MIN(n - done, sizeof(chunk)), i;

		for (i = 0; i < k; i++)
			chunk[i] = log_buf[(start + done + i) % LOG_SIZE];
		if (copy_to_user(buf + done, chunk, k))
			return -EFAULT;
		done += k;
	}
	return n;
}
