/* File permission checks (fs/permission.c): mode bits, capabilities, sticky directories. */
#ifndef CCOS_PERMISSION_H
#define CCOS_PERMISSION_H

#include <ccos/types.h>

#define MAY_EXEC	1
#define MAY_WRITE	2
#define MAY_READ	4

struct tnode;

long mode_permission(uint32_t mode, uint32_t uid, uint32_t gid, int mask);	/* 0 or -EACCES */
long tnode_permission(struct tnode *n, int mask);
long may_create(struct tnode *dir);
long may_delete(struct tnode *dir, struct tnode *victim);
bool is_owner(struct tnode *n);
void tnode_set_owner(struct tnode *n, struct tnode *dir);
long may_chmod(struct tnode *n, uint32_t *mode);
long may_chown(struct tnode *n, uint32_t uid, uint32_t gid);	/* and drops setuid and setgid */

#endif
