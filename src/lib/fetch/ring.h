/* ring.h: a bounded byte ring between one producer thread (download / file reader) and one
 * consumer (the archive decoder), so that network, hashing and decoding overlap. */
#ifndef CC_RING_H
#define CC_RING_H

#include <stddef.h>
#include <stdint.h>

typedef struct cc_ring cc_ring;

/* A ring of cap bytes; NULL on allocation failure. */
cc_ring *cc_ring_new(size_t cap);
void cc_ring_free(cc_ring *r);

/* Producer: copy all len bytes in, blocking while the ring is full. 0, or -1 once the consumer
 * cancelled. */
int cc_ring_write(cc_ring *r, const void *data, size_t len);
/* Spill mode, for a producer that writes every byte to a file before handing it over (a
 * download into its cache part): cc_ring_write never waits — bytes that do not fit stay only
 * in the file, and cc_ring_read_ex tells the consumer to read them from there. A slow decoder
 * then never stalls the network. Call before the producer starts. */
void cc_ring_enable_spill(cc_ring *r);

/* Spill mode: a reader that finds too little waits until `bytes` more are there (or as many as
 * it asked for, when fewer; the end, a failure or a wake-up as always), so that a consumer
 * faster than the download (a zip scanner going past entry data) is woken once per batch, not
 * once per network chunk. 0: as soon as one byte is there. */
void cc_ring_set_batch(cc_ring *r, uint64_t bytes);

/* Producer: no more bytes will come; failed != 0 says the stream broke. */
void cc_ring_close(cc_ring *r, int failed);

/* Consumer: block until at least one byte, the end, a failure or a wake-up.
 * Returns n > 0 bytes copied, 0 at a clean end, -1 when the producer failed, -2 when woken by
 * cc_ring_wake with nothing to read. */
long long cc_ring_read(cc_ring *r, void *buf, size_t len);
/* Consumer, spill mode: as cc_ring_read, or CC_RING_IN_FILE when the next *file_avail bytes are
 * only in the producer's file, from stream offset *file_off: read (some of) them there, then
 * report how many with cc_ring_read_from_file. */
#define CC_RING_IN_FILE (-3)
long long cc_ring_read_ex(cc_ring *r, void *buf, size_t len, uint64_t *file_off,
                          uint64_t *file_avail);
void cc_ring_read_from_file(cc_ring *r, uint64_t n);
/* Consumer: stop; the producer's next (or current, blocked) write fails. */
void cc_ring_cancel(cc_ring *r);
int cc_ring_cancelled(cc_ring *r);

/* Producer: make a blocked (or the next) cc_ring_read return -2 (something to report). */
void cc_ring_wake(cc_ring *r);
/* Producer: sleep ms unless the consumer cancels first; 1 if cancelled. */
int cc_ring_sleep(cc_ring *r, unsigned ms);

#endif
