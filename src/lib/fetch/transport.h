/* transport.h: one HTTP(S) GET attempt behind a vtable (libcurl by default, transport_curl.c;
 * tests may plug in their own). Retries, resume and caching policy live in fetch.c; a transport
 * only performs a single request and classifies how it ended. */
#ifndef CC_TRANSPORT_H
#define CC_TRANSPORT_H

#include <stddef.h>
#include <stdint.h>

#include "cudnnctl/cudnnctl.h"

/* What the response said before its first body byte. */
typedef struct {
    long status;            /* final HTTP status (after redirects): 200, 206, ... */
    int64_t content_length; /* of this response's body, -1 unknown */
    int64_t range_start;    /* 206: first byte offset of the body, else 0 */
    int64_t total_size;     /* 206: the total from Content-Range, else content_length */
    const char *final_url;  /* after redirects */
} cc_transport_head;

typedef struct {
    const char *url;
    uint64_t offset;          /* > 0: ask for bytes offset- (Range); the server may ignore it */
    const char *cacert;       /* CA bundle replacing the system one; NULL = system */
    unsigned low_speed_bytes; /* abort when slower than this many bytes/s ... */
    unsigned low_speed_secs;  /* ... for this many seconds */
    unsigned connect_timeout_secs;
    unsigned max_redirects;
    /* Called once, before the first body byte (or at the end for an empty body). A non-OK
     * return aborts the transfer and becomes its result (with the detail the callee recorded
     * through *why, a malloc'd string). */
    cudnnctl_err (*on_head)(void *user, const cc_transport_head *h, char **why);
    /* Body bytes; a non-OK return aborts the transfer the same way. */
    cudnnctl_err (*on_data)(void *user, const void *data, size_t len, char **why);
    /* Polled during the transfer; nonzero aborts it (CUDNNCTL_E_INTERRUPTED). */
    int (*cancelled)(void *user);
    void *user;
    /* > 0: a bounded range, bytes [offset, limit) (Range: bytes=offset-(limit-1)); 0: to the
     * end. A bounded request that ends early is a short body (retryable), as without a limit. */
    uint64_t limit;
    const char *proxy; /* NULL = libcurl's default */
    /* For the fix a failure's message names: what is fetched (NULL: an archive, "manifest"),
     * and whether the URL is under the user's --mirror (then "use --mirror" is no fix). */
    const char *what;
    int via_mirror;
    /* NULL, or the media types the Accept header asks for (a PEP 691 package index page) */
    const char *accept;
} cc_transport_req;

typedef struct {
    cudnnctl_err code;   /* OK, or why the attempt failed */
    int retryable;       /* a transient failure (5xx, reset, partial body, stall) */
    long http_status;    /* last status seen, 0 if none */
    uint64_t body_bytes; /* body bytes delivered to on_data in this attempt */
    char *detail;        /* malloc'd: what failed and how to fix it; NULL when OK */
} cc_transport_res;

/* Several GETs at once (libcurl's multi interface: one thread, one connection pool). The batch
 * starts requests while fewer than max_parallel run and reports each end; it returns once
 * next() says nothing more will come and none runs, or once stop() says so. */
typedef struct cc_transport_batch {
    unsigned max_parallel; /* read before each start: the caller may change it at any time */
    /* 1: *req filled (it and what it points to stay valid until done()); 0: nothing to start
     * now (a piece waits for its back-off); -1: nothing more will come */
    int (*next)(void *user, cc_transport_req *req);
    /* A request ended; res->detail is the callee's to free. req is the one next() filled. */
    void (*done)(void *user, const cc_transport_req *req, cc_transport_res *res);
    /* Polled at least every 100 ms: nonzero aborts every running request (no done() for
     * them) and ends the batch. */
    int (*stop)(void *user);
    void *user;
} cc_transport_batch;

typedef struct cc_transport cc_transport;
typedef struct cc_transport_ops {
    const char *name;
    /* A transport instance (keeps connections between attempts). NULL on failure. */
    cc_transport *(*open)(void);
    /* One GET; fills *res (res->detail to be freed by the caller). */
    void (*get)(cc_transport *t, const cc_transport_req *req, cc_transport_res *res);
    void (*close)(cc_transport *t);
    /* Optional (NULL: the transport does one request at a time): run a batch of GETs. */
    void (*get_many)(cc_transport *t, cc_transport_batch *b);
} cc_transport_ops;

/* The libcurl transport (transport_curl.c). */
const cc_transport_ops *cc_transport_curl(void);

#endif
