/* syncer.h: fsync files in a background thread as they are finished (extraction hands each
 * staged file over when it is closed), so that the commit's own fsyncs find nothing left. */
#ifndef CC_SYNCER_H
#define CC_SYNCER_H

typedef struct cc_syncer cc_syncer;

/* Start the thread; NULL when it cannot be started (the caller then relies on later fsyncs). */
cc_syncer *cc_syncer_new(void);
/* Queue path (copied) to be fsync'd; 0, or -1 out of memory. */
int cc_syncer_add(cc_syncer *s, const char *path);
/* Wait until every queued file is synced; 0, or -1 with *err (malloc'd) naming the first file
 * that could not be flushed. */
int cc_syncer_finish(cc_syncer *s, char **err);
/* Stop without waiting for the rest of the queue, and free. */
void cc_syncer_free(cc_syncer *s);

#endif
