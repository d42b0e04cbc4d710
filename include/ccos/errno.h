/* Error numbers: Linux's x86-64 values, returned negated (-EINVAL) as on Linux. */
#ifndef CCOS_ERRNO_H
#define CCOS_ERRNO_H

#define EPERM		1	/* operation not permitted */
#define ENOENT		2	/* no such file or directory */
#define ESRCH		3	/* no such process */
#define EINTR		4	/* interrupted system call */
#define EIO		5	/* I/O error */
#define ENXIO		6	/* no such device or address */
#define E2BIG		7	/* argument list too long */
#define ENOEXEC		8	/* exec format error */
#define EBADF		9	/* bad file descriptor */
#define ECHILD		10	/* no child processes */
#define EAGAIN		11	/* try again */
#define ENOMEM		12	/* out of memory */
#define EACCES		13	/* permission denied */
#define EFAULT		14	/* bad address */
#define EBUSY		16	/* device or resource busy */
#define EEXIST		17	/* file exists */
#define ENODEV		19	/* no such device */
#define ENOTDIR		20	/* not a directory */
#define EISDIR		21	/* is a directory */
#define EINVAL		22	/* invalid argument */
#define ENFILE		23	/* file table overflow */
#define EMFILE		24	/* too many open files */
#define ENOTTY		25	/* not a typewriter */
#define EFBIG		27	/* file too large */
#define ENOSPC		28	/* no space left on device */
#define ESPIPE		29	/* illegal seek */
#define EROFS		30	/* read-only file system */
#define EPIPE		32	/* broken pipe */
#define EDOM		33	/* argument out of domain */
#define ERANGE		34	/* result out of range */
#define EDEADLK		35	/* resource deadlock would occur */
#define ENAMETOOLONG	36	/* file name too long */
#define ENOSYS		38	/* function not implemented */
#define ENOTEMPTY	39	/* directory not empty */
#define ELOOP		40	/* too many symbolic links */
#define EOVERFLOW	75	/* value too large for defined data type */
#define EOPNOTSUPP	95	/* operation not supported */
#define ETIMEDOUT	110	/* timed out */

/*
 * Never seen by user mode: a sleep that a signal ended returns it, and the
 * way out (deliver_signals) makes it -EINTR, or restarts the call when the
 * signal's handler has SA_RESTART or no handler runs. Linux's value.
 */
#define ERESTARTSYS	512
#define ERESTARTNOINTR	513	/* a call that restarts after a handler, SA_RESTART or not */

#endif
