/* SPDX-License-Identifier: BSD-2-Clause */
/* src/journal/io_posix.c - the journal's default I/O layer: the file system,
 * a handle being the file descriptor. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "jinternal.h"

static int px_open(void *self, const char *path, int create, int direct)
{
	(void)self;
	int flags = O_RDWR | O_CLOEXEC | (create ? O_CREAT : 0);
#ifdef O_DIRECT
	if (direct)
		flags |= O_DIRECT;
#else
	if (direct)
		return -EINVAL;
#endif
	int fd;
	do
		fd = open(path, flags, 0644);
	while (fd < 0 && errno == EINTR);
	return fd < 0 ? -errno : fd;
}

static int px_close(void *self, int h)
{
	(void)self;
	return close(h) < 0 && errno != EINTR ? -errno : 0;
}

static int64_t px_pread(void *self, int h, void *buf, size_t len, uint64_t off)
{
	(void)self;
	ssize_t n;
	do
		n = pread(h, buf, len, (off_t)off);
	while (n < 0 && errno == EINTR);
	return n < 0 ? -errno : (int64_t)n;
}

static int64_t px_pwrite(void *self, int h, const void *buf, size_t len,
			 uint64_t off)
{
	(void)self;
	size_t done = 0;
	while (done < len) {
		ssize_t n = pwrite(h, (const char *)buf + done, len - done,
				   (off_t)(off + done));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			break;
		done += (size_t)n;
	}
	return (int64_t)done;
}

static int px_datasync(void *self, int h)
{
	(void)self;
	return fdatasync(h) < 0 ? -errno : 0;
}

static int64_t px_size(void *self, int h)
{
	(void)self;
	struct stat st;
	return fstat(h, &st) < 0 ? -errno : (int64_t)st.st_size;
}

static int px_list(void *self, const char *dir,
		   int (*fn)(void *ctx, const char *name), void *ctx)
{
	(void)self;
	DIR *d = opendir(dir);
	if (!d)
		return -errno;
	int rc = 0;
	struct dirent *e;
	errno = 0;
	while (rc == 0 && (e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		rc = fn(ctx, e->d_name);
		errno = 0;
	}
	if (rc == 0 && errno)
		rc = -errno;
	closedir(d);
	return rc;
}

static int px_sync_dir(void *self, const char *dir)
{
	(void)self;
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	int rc = fsync(fd) < 0 ? -errno : 0;
	close(fd);
	return rc;
}

static int px_fd(void *self, int h)
{
	(void)self;
	return h;
}

static const conq_journal_io posix_io = {
	.self = NULL,
	.open = px_open,
	.close = px_close,
	.pread = px_pread,
	.pwrite = px_pwrite,
	.datasync = px_datasync,
	.size = px_size,
	.list = px_list,
	.sync_dir = px_sync_dir,
	.fd = px_fd,
};

const conq_journal_io *conq_journal_io_posix(void)
{
	return &posix_io;
}
