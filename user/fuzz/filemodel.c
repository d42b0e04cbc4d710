/* fuzz's file check: random partial rewrites of a /tmp file, read back byte for byte against a model in memory. */
#include "fuzz.h"

#define MODEL_MAX	(long)(4 * PAGE_SIZE + 512)	/* the file stays within this: 5 pages at most */
#define STEPS		16
#define L(x)		((long)(x))
#define MIN(a, b)	((a) < (b) ? (a) : (b))

static unsigned char model[MODEL_MAX], data[MODEL_MAX], back[MODEL_MAX + 64];
static long size;	/* the model file's length */
static int report_fd;

/* An offset: mostly inside the file (a rewrite), sometimes at or past its end. */
static long offset_in(unsigned long r)
{
	long within = size ? (long)(r % size) : 0;

	return r >> 40 & 3 ? within : (long)((r >> 8) % MODEL_MAX);
}

/* The model after writing n bytes of data at off (a hole before it reads as zeros). */
static void model_write(long off, long n)
{
	if (off > size)
		memset(model + size, 0, off - size);
	memcpy(model + off, data, n);
	if (off + n > size)
		size = off + n;
}

/* One change to file and model; what it was, in desc. Returns 0, or 1 after a report. */
static int step(long fd, long append_fd, unsigned long r, char *desc, int len)
{
	long off = offset_in(next_random()), n = (long)(r >> 16 & 0x1fff) + 1, got, i;
	struct iovec iov[3];

	if (off + n > MODEL_MAX)
		n = MODEL_MAX - off;
	for (i = 0; i < n; i++)
		data[i] = next_random();
	switch (r % 6) {
	case 0:
	case 1:
		snprintf(desc, len, "pwrite of %ld bytes at %ld", n, off);
		got = syscall4(__NR_pwrite64, fd, L(data), n, off);
		break;
	case 2:
		snprintf(desc, len, "lseek to %ld and write of %ld bytes", off, n);
		lseek(fd, off, SEEK_SET);
		got = write(fd, data, n);
		break;
	case 3:
		iov[0] = (struct iovec){ data, n / 3 };
		iov[1] = (struct iovec){ data + n / 3, 0 };
		iov[2] = (struct iovec){ data + n / 3, n - n / 3 };
		snprintf(desc, len, "pwritev of %ld and %ld bytes at %ld", n / 3, n - n / 3, off);
		got = syscall4(__NR_pwritev, fd, L(iov), 3, off);
		break;
	case 4:
		off = size;
		n = MIN(n, MODEL_MAX - size);
		snprintf(desc, len, "O_APPEND write of %ld bytes at the end, %ld", n, off);
		got = write(append_fd, data, n);
		break;
	default:
		snprintf(desc, len, "ftruncate from %ld to %ld", size, off);
		if ((got = syscall2(__NR_ftruncate, fd, off)))
			return report(report_fd, "file check: %s returned %ld", desc, got);
		if (off > size)
			memset(model + size, 0, off - size);
		size = off;
		return 0;
	}
	if (got != n)
		return report(report_fd, "file check: %s returned %ld", desc, got);
	model_write(off, n);
	return 0;
}

/* The whole file, read back by pread, preadv or read in turn, must be the model. */
static int compare(long fd, const char *desc, int nr)
{
	static const char *const ways[] = { "pread", "preadv", "read" };
	struct iovec iov[2] = { { back, 1000 }, { back + 1000, sizeof(back) - 1000 } };
	struct stat st;
	long got, i;

	if (fstat(fd, &st) || st.st_size != size)
		return report(report_fd, "file check: after step %d, %s: st_size %ld, the model's %ld",
			      nr, desc, (long)st.st_size, size);
	memset(back, CANARY, sizeof(back));
	if (nr % 3 == 0) {
		got = syscall4(__NR_pread64, fd, L(back), sizeof(back), 0);
	} else if (nr % 3 == 1) {
		got = syscall4(__NR_preadv, fd, L(iov), 2, 0);
	} else {
		lseek(fd, 0, SEEK_SET);
		for (got = 0; (i = read(fd, back + got, 777)) > 0;)
			got += i;
	}
	if (got != size)
		return report(report_fd, "file check: after step %d, %s: %s read %ld of %ld bytes",
			      nr, desc, ways[nr % 3], got, size);
	for (i = 0; i < size; i++)
		if (back[i] != model[i])
			return report(report_fd, "file check: after step %d, %s: %s read byte %ld as %#x, the model's %#x",
				      nr, desc, ways[nr % 3], i, back[i], model[i]);
	if (back[size] != CANARY)
		return report(report_fd, "file check: after step %d, %s: %s wrote past the end",
			      nr, desc, ways[nr % 3]);
	return 0;
}

int check_file_model(int fd)
{
	long file, append;
	char desc[96];
	int i;

	report_fd = fd;
	size = 0;
	file = open(FUZZ_MODEL_FILE, O_RDWR | O_CREAT | O_TRUNC, 0600);
	append = open(FUZZ_MODEL_FILE, O_WRONLY | O_APPEND, 0);
	if (file < 0 || append < 0)
		return report(fd, "file check: open of %s: %ld, %ld", FUZZ_MODEL_FILE, file, append);
	for (i = 1; i <= STEPS; i++) {
		if (step(file, append, next_random(), desc, sizeof(desc)) || compare(file, desc, i))
			return 1;
	}
	return 0;
}
