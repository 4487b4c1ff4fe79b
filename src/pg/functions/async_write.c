/*
 * async_write.c
 *	  One write at a time to a temporary file, done by a helper thread while
 *	  the backend goes on.
 *
 * The automatic-domain histogram keeps its chunks in a temporary file; on a
 * machine with slow page-cache writes they cost up to half the query's time
 * when the backend writes them itself (bench/RESULTS.md).  Here a helper
 * thread writes each chunk while the backend runs the query into the next
 * one.  The thread calls nothing of PostgreSQL: it writes with pwritev to
 * its own duplicate of the file's descriptor (so fd.c may close and reopen
 * its own), with every signal blocked.  The backend waits for the write in
 * flight before starting another and before reading the file, and raises
 * its error then.  A memory context callback, registered on the context of
 * the buffers being written, waits for the thread and closes the duplicate
 * before that memory goes, so an ERROR or a cancel elsewhere leaves no
 * thread behind; the file itself is removed by fd.c as before.
 *
 * fd.c does not see these writes, so temp_file_limit is checked here
 * against this file's size before each write.
 */
#include "functions/gpuops_functions.h"

#include <sys/uio.h>
#include <unistd.h>

#include "storage/fd.h"
#include "utils/guc.h"
#include "utils/memutils.h"

#define GPUOPS_ASYNC_MAX_IOV 4

struct GpuopsAsyncWrite
{
	int			fd;				/* duplicate of the file's descriptor, or -1 */
	bool		running;		/* a thread is writing */
	pthread_t	thread;
	struct iovec iov[GPUOPS_ASYNC_MAX_IOV];	/* the write in flight */
	int			iovcnt;
	off_t		offset;
	int			err;			/* errno of a failed write, or 0 */
	off_t		size;			/* bytes written or being written */
	MemoryContextCallback cleanup;
};

/* The helper thread: write every byte of the iovecs at offset, or record errno. */
static void *
gpuops_async_write_main(void *arg)
{
	GpuopsAsyncWrite *w = (GpuopsAsyncWrite *) arg;
	struct iovec *iov = w->iov;
	int			iovcnt = w->iovcnt;
	off_t		offset = w->offset;

	while (iovcnt > 0)
	{
		ssize_t		n = pwritev(w->fd, iov, iovcnt, offset);

		if (n < 0)
		{
			if (errno == EINTR)
				continue;
			w->err = errno;
			return NULL;
		}
		if (n == 0)
		{
			w->err = ENOSPC;
			return NULL;
		}
		offset += n;
		while (iovcnt > 0 && (size_t) n >= iov->iov_len)
		{
			n -= iov->iov_len;
			iov++;
			iovcnt--;
		}
		if (iovcnt > 0)
		{
			iov->iov_base = (char *) iov->iov_base + n;
			iov->iov_len -= n;
		}
	}
	return NULL;
}

/* Wait for the thread, if any (no error raised). */
static void
gpuops_async_write_join(GpuopsAsyncWrite *w)
{
	if (w->running)
	{
		pthread_join(w->thread, NULL);
		w->running = false;
	}
}

/* Memory context callback: no thread may outlive the buffers it writes. */
static void
gpuops_async_write_cleanup(void *arg)
{
	GpuopsAsyncWrite *w = (GpuopsAsyncWrite *) arg;

	gpuops_async_write_join(w);
	if (w->fd >= 0)
	{
		close(w->fd);
		ReleaseExternalFD();
	}
	w->fd = -1;
}

/*
 * A writer appending to file (empty so far), whose buffers live in cxt (or
 * a context that outlives the writes); it ends when cxt is reset or
 * deleted, or at gpuops_async_write_close.
 */
GpuopsAsyncWrite *
gpuops_async_write_open(File file, MemoryContext cxt)
{
	GpuopsAsyncWrite *w = MemoryContextAllocZero(cxt, sizeof(GpuopsAsyncWrite));
	int			raw = FileGetRawDesc(file);

	/* the duplicate is a descriptor fd.c does not manage: account for it */
	if (!AcquireExternalFD())
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_RESOURCES),
				 errmsg("gpuops: too many open files to write a temporary file in the background")));
	w->fd = raw >= 0 ? dup(raw) : -1;
	if (w->fd < 0)
	{
		int			save_errno = errno;

		ReleaseExternalFD();
		errno = raw >= 0 ? save_errno : EBADF;
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("gpuops: could not duplicate the temporary file's descriptor: %m")));
	}
	w->cleanup.func = gpuops_async_write_cleanup;
	w->cleanup.arg = w;
	MemoryContextRegisterResetCallback(cxt, &w->cleanup);
	return w;
}

/* Wait for the write in flight and raise its error, if any. */
void
gpuops_async_write_wait(GpuopsAsyncWrite *w)
{
	gpuops_async_write_join(w);
	if (w->err != 0)
	{
		errno = w->err;
		w->err = 0;
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("gpuops: could not write to temporary file: %m")));
	}
}

/*
 * Start writing iovcnt pieces at the file's end, once the write before has
 * ended.  The pieces must stay untouched until the next wait, and lie in the
 * writer's context (not on the stack: an ERROR may end the caller's frame
 * while the thread still reads them).
 */
void
gpuops_async_write_start(GpuopsAsyncWrite *w, const struct iovec *iov,
						 int iovcnt)
{
	size_t		len = 0;
	int			i;

	if (iovcnt < 1 || iovcnt > GPUOPS_ASYNC_MAX_IOV)
		elog(ERROR, "gpuops: %d pieces in one asynchronous write", iovcnt);
	gpuops_async_write_wait(w);
	for (i = 0; i < iovcnt; i++)
		len += iov[i].iov_len;
	/* what fd.c would check, for this file alone */
	if (temp_file_limit >= 0 &&
		(w->size + (off_t) len) / 1024 > (off_t) temp_file_limit)
		ereport(ERROR,
				(errcode(ERRCODE_CONFIGURATION_LIMIT_EXCEEDED),
				 errmsg("temporary file size exceeds temp_file_limit (%dkB)",
						temp_file_limit)));
	memcpy(w->iov, iov, sizeof(struct iovec) * iovcnt);
	w->iovcnt = iovcnt;
	w->offset = w->size;
	w->size += len;

	if (!gpuops_thread_start(&w->thread, gpuops_async_write_main, w))
	{
		/* no thread to be had: write here */
		gpuops_async_write_main(w);
		gpuops_async_write_wait(w);
		return;
	}
	w->running = true;
}

/* Wait for the write in flight (raising its error) and close the duplicate. */
void
gpuops_async_write_close(GpuopsAsyncWrite *w)
{
	gpuops_async_write_wait(w);
	gpuops_async_write_cleanup(w);
}
