/* Files: the GRUB modules as read-only files, the console, /proc, file descriptors. */
#ifndef CCOS_FILE_H
#define CCOS_FILE_H

#include <ccos/types.h>
#include <ccos/abi.h>

struct module_file {
	const char *name;	/* the module string: /bin/init */
	const uint8_t *data;
	size_t size;
};

struct file;
struct stat;
struct dirent_out;

struct file_ops {
	ssize_t (*read)(struct file *f, char __user *buf, size_t n);
	ssize_t (*write)(struct file *f, const char __user *buf, size_t n);
	long (*ioctl)(struct file *f, unsigned int req, uint64_t arg);
	void (*release)(struct file *f);
	unsigned int (*poll)(struct file *f);	/* POLLIN | POLLOUT | ...; NULL: always ready */
	void (*stat)(struct file *f, struct stat *st);	/* NULL: a read-only regular file */
	bool stream;			/* a pipe or a terminal: lseek gives ESPIPE */
	/* A directory: 0 and its entry number index, DIRENT_END past the last, or an error (getdents64). */
	int (*dirent)(struct file *f, uint64_t index, struct dirent_out *d);
};

struct file {
	const struct file_ops *ops;
	int refs;		/* descriptors, and system calls using it (fd_get) */
	uint64_t offset;
	const uint8_t *data;	/* a module's bytes, or a generated text */
	size_t size;
	int flags;		/* O_ACCMODE, O_NONBLOCK, O_APPEND: what F_GETFL shows */
	void *priv;		/* the pipe, the tmpfs node, ... */
	char *path;		/* kmalloc'd: outside /tmp, the path it was opened by */
};

void files_init(void);
const struct module_file *module_lookup(const char *path);
const struct module_file *module_at(const char *dir, uint64_t i);	/* the i-th in dir, or NULL */
uint64_t modules_in(const char *dir);
uint64_t modules_pages(uint64_t *count);	/* the pages the modules fill; how many modules */
uint64_t module_ino(const struct module_file *m);	/* its place among the modules, from 1 */
void file_stat(struct file *f, struct stat *st);
struct file *file_open_path(const char *path, int flags, long *err);
struct file *file_get(struct file *f);
void file_put(struct file *f);
int fd_install(struct file *f);
struct file *fd_get(unsigned int fd);	/* referenced: file_put it */

/*
 * expr, with f naming descriptor fd's file, held for as long as expr runs
 * (it may sleep, and another thread may close fd meanwhile); -EBADF if fd
 * is not open. Every system call that takes a descriptor goes this way.
 */
#define WITH_FILE(fd, f, expr) ({					\
	struct file *f = fd_get(fd);					\
	long r_ = f ? (long)(expr) : -EBADF;				\
	if (f)								\
		file_put(f);						\
	r_;								\
})
struct file *file_new(const struct file_ops *ops, const void *data, size_t size);

/* Open for reading or for writing (O_ACCMODE), and able to. */
static inline bool file_readable(const struct file *f)
{
	return f->ops->read && (f->flags & O_ACCMODE) != O_WRONLY;
}

static inline bool file_writable(const struct file *f)
{
	return f->ops->write && (f->flags & O_ACCMODE) != O_RDONLY;
}

/* Generated /proc files (fs/procfs.c): a kmalloc'd text, its length. */
long procfs_generate(const char *path, char **text, size_t *len);
struct process *procfs_process(const char *path, const char **rest);	/* of /proc/PID... */
int procfs_pid_at(uint64_t i);		/* the i-th process of /proc, or 0 */
const char *procfs_pid_file_at(uint64_t i);	/* the i-th name in /proc/PID, or NULL */
char *proc_cpuinfo(size_t *len);	/* fs/proc_cpuinfo.c */
char *proc_meminfo(size_t *len);	/* fs/proc_meminfo.c */
char *proc_maps(struct process *p, size_t *len);	/* fs/proc_maps.c */
char *proc_smaps(struct process *p, size_t *len);
char *proc_smaps_rollup(struct process *p, size_t *len);
char *proc_mounts(size_t *len);		/* fs/statfs.c */
long proc_sys_generate(const char *path, char **text, size_t *len);	/* fs/proc_sys.c */
extern const char *const proc_sys_kernel_names[];
extern const char *const proc_sys_fs_names[];

/* /tmp's FIFOs (fs/pipe.c): open a node's pipe (fstat shows ino), made at the first open; forget the node. */
#define PIPE_BUF	4096		/* a write of at most this much goes in whole */
#define PIPE_MAX_SIZE	(1024 * 1024ul)	/* /proc/sys/fs/pipe-max-size */
struct pipe;
long pipe_fcntl_size(struct file *f, bool set, uint64_t arg);	/* F_GETPIPE_SZ, F_SETPIPE_SZ */
struct file *fifo_open(struct pipe **slot, uint64_t ino, int flags, long *err);
void fifo_orphan(struct pipe *pp);

/* /dev/null, /dev/zero, /dev/tty and /dev/rtc0 (drivers/char/dev.c); NULL with *err -ENOENT for another path. */
struct file *dev_open(const char *path, long *err);
struct file *rtc_open(void);	/* /dev/rtc0 (drivers/char/rtc.c) */

#define NOFILE		1024	/* descriptors a process may have open: Linux's RLIMIT_NOFILE soft limit */

/* A process's descriptors: one table shared by its threads (CLONE_FILES), copied by fork. */
struct fdtable {
	int refs;
	uint64_t cloexec[NOFILE / 64];	/* bit fd: close fd at exec (FD_CLOEXEC) */
	struct file *fd[NOFILE];
};

/* The descriptors p may open: RLIMIT_NOFILE's soft limit, within the table. */
#define fd_limit(p)	((unsigned int)MIN(rlimit((p), RLIMIT_NOFILE), (uint64_t)NOFILE))

static inline bool fd_cloexec(const struct fdtable *t, unsigned int fd)
{
	return t->cloexec[fd / 64] >> (fd % 64) & 1;
}

static inline void fd_set_cloexec(struct fdtable *t, unsigned int fd, bool on)
{
	if (on)
		t->cloexec[fd / 64] |= 1ull << (fd % 64);
	else
		t->cloexec[fd / 64] &= ~(1ull << (fd % 64));
}

/* fs/lock.c: record locks, OFD locks and flock */
long file_lock_fcntl(struct file *f, unsigned int cmd, uint64_t arg);
void locks_close(struct file *f, const struct fdtable *t);	/* a descriptor of f closes */
void locks_release(struct file *f);				/* f's last reference goes */

/* fs/fdtable.c */
struct fdtable *fdtable_alloc(void);
struct fdtable *fdtable_copy(struct fdtable *t);
struct fdtable *fdtable_share(struct fdtable *t);
void fdtable_put(struct fdtable *t);
int fdtable_unshare(struct fdtable **t);

#endif
