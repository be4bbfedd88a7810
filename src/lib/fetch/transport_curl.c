/* transport_curl.c: the libcurl transport — one GET with certificate checks, bounded redirects
 * (never from https to http), Range, low-speed abort, proxies from the environment, and every CURLcode mapped to a
 * cudnnctl_err. The only file that includes curl.h. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include <curl/curl.h>

#include "internal.h"
#include "transport.h"

#define CC_NVIDIA_REDIST_URL "https://developer.download.nvidia.com/compute/cudnn/redist/"

struct cc_transport {
    CURL *h;
};

typedef struct {
    const cc_transport_req *req;
    cc_transport_res *res;
    CURL *h;
    int head_done;
    cudnnctl_err abort_code; /* set when our callback stopped the transfer */
    char *abort_why;
    /* Content-Range of the response being received (reset at each status line) */
    int have_cr;
    int64_t cr_start, cr_total;
    char location[512]; /* the last redirect's Location (for the https-to-http refusal) */
    struct curl_slist *headers; /* req->accept as a header; freed when the attempt ends */
    unsigned char *acc;         /* body bytes not yet handed to on_data (BODY_BATCH at most) */
    size_t acc_n;
} xfer;

/* libcurl hands a body over in pieces of 16 KiB (CURL_MAX_WRITE_SIZE) whatever its buffer: the
 * pieces are gathered to this size before on_data sees them, so that a download writes its part,
 * hashes and wakes its decoder once per batch, not once per 16 KiB (22k calls each for a 366 MB
 * wheel). Everything received is handed over when the transfer ends, failed or not. */
#define BODY_BATCH (256u * 1024u)
#define RECV_BUFFER (256L * 1024L)

/* The n bytes at s (a header line, not NUL-terminated) start with p, ignoring case. */
static int prefix_ci(const char *s, size_t n, const char *p)
{
    size_t k = strlen(p);
    return n >= k && cc_str_ieqn(s, p, k);
}

static int is_https(const char *url)
{
    return prefix_ci(url, strlen(url), "https://");
}

static size_t on_header(char *line, size_t size, size_t nitems, void *user)
{
    xfer *x = user;
    size_t n = size * nitems;
    if (prefix_ci(line, n, "HTTP/")) {
        x->have_cr = 0; /* a new response (redirect hop, 100-continue) */
    } else if (prefix_ci(line, n, "location:")) {
        size_t k = n - 9 < sizeof(x->location) - 1 ? n - 9 : sizeof(x->location) - 1;
        memcpy(x->location, line + 9, k);
        x->location[k] = '\0';
        char *t = cc_str_trim(x->location);
        memmove(x->location, t, strlen(t) + 1);
    } else if (prefix_ci(line, n, "content-range:")) {
        /* "Content-Range: bytes START-END/TOTAL" (TOTAL may be '*') */
        char tmp[128];
        size_t k = n < sizeof(tmp) - 1 ? n : sizeof(tmp) - 1;
        memcpy(tmp, line, k);
        tmp[k] = '\0';
        char *p = strchr(tmp, ':') + 1;
        while (*p == ' ' || *p == '\t')
            p++;
        if (prefix_ci(p, strlen(p), "bytes"))
            p += 5;
        while (*p == ' ')
            p++;
        char *end;
        long long a = strtoll(p, &end, 10);
        if (end != p && *end == '-') {
            char *slash = strchr(end, '/');
            x->have_cr = 1;
            x->cr_start = a;
            x->cr_total = -1;
            if (slash && isdigit((unsigned char)slash[1]))
                x->cr_total = strtoll(slash + 1, NULL, 10);
        }
    }
    return n;
}

/* Report the response head to the caller once; non-OK stops the transfer. */
static cudnnctl_err do_head(xfer *x)
{
    x->head_done = 1;
    long status = 0;
    curl_off_t cl = -1;
    char *eff = NULL;
    curl_easy_getinfo(x->h, CURLINFO_RESPONSE_CODE, &status);
    curl_easy_getinfo(x->h, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &cl);
    curl_easy_getinfo(x->h, CURLINFO_EFFECTIVE_URL, &eff);
    cc_transport_head h = {status, (int64_t)cl, 0, (int64_t)cl, eff ? eff : x->req->url};
    x->res->http_status = status;
    if (status == 206) {
        if (!x->have_cr) {
            x->abort_why = cc_asprintf("%s answered 206 without a Content-Range header; the server "
                                       "or a proxy in between mangles range requests",
                                       h.final_url);
            return CUDNNCTL_E_NETWORK;
        }
        h.range_start = x->cr_start;
        h.total_size = x->cr_total >= 0 ? x->cr_total : (cl >= 0 ? x->cr_start + cl : -1);
    }
    if (!x->req->on_head)
        return CUDNNCTL_E_OK;
    return x->req->on_head(x->req->user, &h, &x->abort_why);
}

/* Hand n body bytes to on_data; 0, or -1 (x->abort_code set) when it stops the transfer. */
static int hand_over(xfer *x, const void *data, size_t n)
{
    cudnnctl_err e = x->req->on_data(x->req->user, data, n, &x->abort_why);
    if (e != CUDNNCTL_E_OK) {
        x->abort_code = e;
        return -1;
    }
    x->res->body_bytes += n;
    return 0;
}

/* Hand the gathered bytes over (none after the transfer was stopped). */
static int flush_body(xfer *x)
{
    if (x->abort_code != CUDNNCTL_E_OK)
        return -1;
    size_t n = x->acc_n;
    x->acc_n = 0;
    return n ? hand_over(x, x->acc, n) : 0;
}

static size_t on_body(char *data, size_t size, size_t nmemb, void *user)
{
    xfer *x = user;
    size_t n = size * nmemb;
    if (!x->head_done) {
        cudnnctl_err e = do_head(x);
        if (e != CUDNNCTL_E_OK) {
            x->abort_code = e;
            return 0; /* != n: curl stops with CURLE_WRITE_ERROR */
        }
    }
    if (n == 0)
        return 0;
    if (!x->acc && !(x->acc = malloc(BODY_BATCH))) {
        x->abort_code = CUDNNCTL_E_NOMEM;
        x->abort_why = cc_strdup("out of memory for the download's buffer");
        return 0;
    }
    if (x->acc_n + n > BODY_BATCH && flush_body(x) != 0)
        return 0;
    if (n >= BODY_BATCH) /* a piece as large as the batch goes straight on */
        return hand_over(x, data, n) == 0 ? n : 0;
    memcpy(x->acc + x->acc_n, data, n);
    x->acc_n += n;
    if (x->acc_n == BODY_BATCH && flush_body(x) != 0)
        return 0;
    return n;
}

static int on_xferinfo(void *user, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal,
                       curl_off_t ulnow)
{
    (void)dltotal;
    (void)dlnow;
    (void)ultotal;
    (void)ulnow;
    xfer *x = user;
    return x->req->cancelled && x->req->cancelled(x->req->user) ? 1 : 0;
}

/* The proxy libcurl takes from the environment for this URL, for error messages only
 * (libcurl itself reads https_proxy / HTTPS_PROXY, http_proxy, all_proxy and no_proxy). */
static char *proxy_note(const char *url)
{
    const char *names_https[] = {"https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY", NULL};
    const char *names_http[] = {"http_proxy", "all_proxy", "ALL_PROXY", NULL};
    const char **names = cc_str_starts(url, "https:") ? names_https : names_http;
    for (int i = 0; names[i]; i++) {
        const char *v = cc_pf_getenv(names[i]);
        if (v && *v) {
            const char *np = cc_pf_getenv("no_proxy");
            if (!np || !*np)
                np = cc_pf_getenv("NO_PROXY");
            return cc_asprintf(" (through the proxy %s=%s%s%s; check it, or list the host in "
                               "NO_PROXY to bypass it)",
                               names[i], v, np && *np ? ", NO_PROXY=" : "", np && *np ? np : "");
        }
    }
    return cc_strdup("");
}

static int is_tls_error(CURLcode rc)
{
    switch (rc) {
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_CERTPROBLEM:
    case CURLE_SSL_CIPHER:
    case CURLE_SSL_CACERT_BADFILE:
    case CURLE_SSL_ENGINE_NOTFOUND:
    case CURLE_SSL_ENGINE_SETFAILED:
    case CURLE_SSL_SHUTDOWN_FAILED:
    case CURLE_SSL_CRL_BADFILE:
    case CURLE_SSL_ISSUER_ERROR:
    case CURLE_SSL_PINNEDPUBKEYNOTMATCH:
    case CURLE_SSL_INVALIDCERTSTATUS:
        return 1;
    default:
        return 0;
    }
}

/* Map a finished attempt's CURLcode (and HTTP status) to our error, retry class and text. */
/* An HTTP error status: what it means for a download, and whether a retry may help. */
static void map_http_status(xfer *x, const char *url)
{
    cc_transport_res *res = x->res;
    long st = 0;
    curl_easy_getinfo(x->h, CURLINFO_RESPONSE_CODE, &st);
    res->http_status = st;
    res->code = CUDNNCTL_E_HTTP_STATUS;
    int manifest = x->req->what && strcmp(x->req->what, "manifest") == 0;
    if ((st == 404 || st == 410) && manifest)
        res->detail = cc_asprintf(
            "HTTP %ld for %s: there is no manifest at that address; check the URL (NVIDIA's are "
            "%sredistrib_X.Y.Z.json; a mirror made by `cudnnctl mirror` has them at its top), "
            "or pass a downloaded one as --manifest FILE",
            st, url, CC_NVIDIA_REDIST_URL);
    else if ((st == 404 || st == 410) && x->req->via_mirror)
        res->detail = cc_asprintf(
            "HTTP %ld for %s: the mirror does not have this archive; fill it with `cudnnctl "
            "mirror --to DIR` (with the same --cudnn, --cuda and --platform) on a machine that "
            "reaches NVIDIA, or leave out --mirror to fetch from NVIDIA",
            st, url);
    else if (st == 404 || st == 410)
        res->detail = cc_asprintf(
            "HTTP %ld for %s: the archive is not at that address; check the cuDNN version "
            "and platform (`cudnnctl available`), or point --mirror at a mirror that has it",
            st, url);
    else if (st == 401 || st == 403)
        res->detail = cc_asprintf("HTTP %ld for %s: access denied; the server or a proxy "
                                  "refuses the download, %s",
                                  st, url,
                                  manifest ? "pass a downloaded copy as --manifest FILE"
                                  : x->req->via_mirror
                                      ? "check the mirror's permissions, or use --archive FILE"
                                      : "use --mirror or --archive FILE");
    else {
        res->retryable = st == 408 || st == 429 || st >= 500;
        res->detail = cc_asprintf("HTTP %ld for %s: %s", st, url,
                                  st < 500             ? "the server refused the request"
                                  : x->req->via_mirror ? "the mirror has trouble; try again later"
                                                       : "the server has trouble; try again "
                                                         "later or use --mirror");
    }
}

/* The fix for a host that cannot be reached: another source than the one that failed. */
static const char *unreachable_fix(const cc_transport_req *req)
{
    if (req->what && strcmp(req->what, "manifest") == 0)
        return "check the URL, or pass a downloaded copy as --manifest FILE";
    if (req->via_mirror)
        return "check the --mirror URL (its host name, the server), or use a local copy: "
               "--mirror DIR or --archive FILE";
    return "use --mirror DIR|URL or --archive FILE";
}

/* A transfer that failed below HTTP: TLS, a timeout or stall, name resolution, connecting, or
 * the connection breaking (retryable). */
static void map_network(xfer *x, CURLcode rc, const char *url, const char *why)
{
    cc_transport_res *res = x->res;
    const cc_transport_req *req = x->req;
    char *px = proxy_note(url);
    if (is_tls_error(rc)) {
        res->code = CUDNNCTL_E_TLS;
        res->detail =
            cc_asprintf("TLS error talking to %s%s: %s; if your network inspects TLS with its own "
                        "certificate authority, pass its certificate with --cacert FILE",
                        url, px ? px : "", why);
    } else if (rc == CURLE_OPERATION_TIMEDOUT) {
        res->code = CUDNNCTL_E_NET_TIMEOUT;
        /* a stall after bytes arrived is worth resuming; a connect timeout is not */
        res->retryable = x->head_done;
        if (x->head_done)
            res->detail = cc_asprintf("download of %s stalled: slower than %u bytes/s for %u s%s; "
                                      "the partial file is kept and a rerun resumes it",
                                      url, req->low_speed_bytes, req->low_speed_secs, px ? px : "");
        else
            res->detail = cc_asprintf("no answer from %s within %u s%s: %s; check the network "
                                      "or use --mirror",
                                      url, req->connect_timeout_secs, px ? px : "", why);
    } else if (rc == CURLE_COULDNT_RESOLVE_HOST || rc == CURLE_COULDNT_RESOLVE_PROXY) {
        res->code = CUDNNCTL_E_NETWORK;
        res->detail = cc_asprintf("cannot resolve the %s for %s%s: %s; %s",
                                  rc == CURLE_COULDNT_RESOLVE_PROXY ? "proxy" : "host", url,
                                  px ? px : "", why,
                                  rc == CURLE_COULDNT_RESOLVE_PROXY
                                      ? "check the proxy setting (proxy, CUDNNCTL_PROXY or "
                                        "*_proxy)"
                                  : req->via_mirror || req->what
                                      ? unreachable_fix(req)
                                      : "the machine looks offline — use --mirror DIR|URL or "
                                        "--archive FILE");
    } else if (rc == CURLE_COULDNT_CONNECT) {
        res->code = CUDNNCTL_E_NETWORK;
        res->detail = cc_asprintf("cannot connect for %s%s: %s; %s", url, px ? px : "", why,
                                  req->via_mirror || req->what
                                      ? unreachable_fix(req)
                                      : "check the network, or use --mirror DIR|URL");
    } else {
        res->code = CUDNNCTL_E_NETWORK;
        res->retryable = rc == CURLE_RECV_ERROR || rc == CURLE_SEND_ERROR ||
                         rc == CURLE_PARTIAL_FILE || rc == CURLE_GOT_NOTHING || rc == CURLE_HTTP2 ||
                         rc == CURLE_HTTP2_STREAM;
        res->detail =
            cc_asprintf("download of %s failed after %llu bytes%s: %s (curl error %d)", url,
                        (unsigned long long)res->body_bytes, px ? px : "", why, (int)rc);
    }
    free(px);
}

static void map_result(xfer *x, CURLcode rc, const char *errbuf)
{
    cc_transport_res *res = x->res;
    const cc_transport_req *req = x->req;
    const char *why = errbuf[0] ? errbuf : curl_easy_strerror(rc);
    char *eff = NULL;
    curl_easy_getinfo(x->h, CURLINFO_EFFECTIVE_URL, &eff);
    const char *url = eff ? eff : req->url;

    if (rc == CURLE_OK) {
        res->code = CUDNNCTL_E_OK;
        return;
    }
    if (x->abort_code != CUDNNCTL_E_OK) {
        res->code = x->abort_code;
        res->detail = x->abort_why ? x->abort_why : cc_strdup(cudnnctl_strerror(x->abort_code));
        x->abort_why = NULL;
        return;
    }
    switch (rc) {
    case CURLE_ABORTED_BY_CALLBACK:
        res->code = CUDNNCTL_E_INTERRUPTED;
        res->detail = cc_asprintf("download of %s cancelled", url);
        return;
    case CURLE_HTTP_RETURNED_ERROR:
        map_http_status(x, url);
        return;
    case CURLE_TOO_MANY_REDIRECTS:
        res->code = CUDNNCTL_E_NETWORK;
        res->detail = cc_asprintf("more than %u redirects starting at %s (a redirect loop?); "
                                  "last address: %s; fix the URL or use --mirror",
                                  req->max_redirects, req->url, url);
        return;
    case CURLE_UNSUPPORTED_PROTOCOL:
        if (is_https(req->url) && prefix_ci(x->location, strlen(x->location), "http://")) {
            /* the redirect protocols of an https request are https alone (setup_easy) */
            res->code = CUDNNCTL_E_TLS;
            res->detail = cc_asprintf(
                "%s redirected to %s: cudnnctl never follows a redirect from https to plain "
                "http (the bytes would come without TLS while the request and the receipt say "
                "https); fix: use an https mirror that does not downgrade (--mirror https://...), "
                "or give the http:// address itself if plain http is acceptable (the SHA-256 "
                "still checks an archive)",
                req->url, x->location);
            return;
        }
        /* fall through */
    case CURLE_URL_MALFORMAT:
        res->code = CUDNNCTL_E_USAGE;
        res->detail = cc_asprintf("cannot download %s: %s (only http:// and https:// URLs, "
                                  "file:// and local paths are supported)",
                                  url, why);
        return;
    case CURLE_OUT_OF_MEMORY:
        res->code = CUDNNCTL_E_NOMEM;
        res->detail = cc_strdup("out of memory in libcurl");
        return;
    default:
        break;
    }
    map_network(x, rc, url, why);
}

static cc_transport *curl_open(void)
{
    if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
        return NULL;
    cc_transport *t = calloc(1, sizeof(*t));
    if (t)
        t->h = curl_easy_init();
    if (!t || !t->h) {
        free(t);
        curl_global_cleanup();
        return NULL;
    }
    return t;
}

static void curl_close(cc_transport *t)
{
    if (!t)
        return;
    curl_easy_cleanup(t->h);
    free(t);
    curl_global_cleanup();
}

/* Every option of one GET on handle h (fresh or reset); range is scratch for the Range text.
 * An https request follows redirects to https only: bytes asked for over TLS never arrive in
 * clear text (docs/security.md, "Running as root"). */
static void setup_easy(CURL *h, xfer *x, char *errbuf, char range[64])
{
    const cc_transport_req *req = x->req;
    int tls_only = is_https(req->url);
    curl_easy_setopt(h, CURLOPT_URL, req->url);
    curl_easy_setopt(h, CURLOPT_ERRORBUFFER, errbuf);
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L); /* we run in a background thread */
    curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 1L);
    curl_easy_setopt(h, CURLOPT_MAXREDIRS, (long)req->max_redirects);
#if LIBCURL_VERSION_NUM >= 0x075500
    curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(h, CURLOPT_REDIR_PROTOCOLS_STR, tls_only ? "https" : "http,https");
#else
    curl_easy_setopt(h, CURLOPT_PROTOCOLS, (long)(CURLPROTO_HTTP | CURLPROTO_HTTPS));
    curl_easy_setopt(h, CURLOPT_REDIR_PROTOCOLS,
                     tls_only ? (long)CURLPROTO_HTTPS : (long)(CURLPROTO_HTTP | CURLPROTO_HTTPS));
#endif
    curl_easy_setopt(h, CURLOPT_FAILONERROR, 1L);
    curl_easy_setopt(h, CURLOPT_SSL_VERIFYPEER, 1L);
    curl_easy_setopt(h, CURLOPT_SSL_VERIFYHOST, 2L);
    if (req->cacert)
        curl_easy_setopt(h, CURLOPT_CAINFO, req->cacert);
    if (req->proxy)
        curl_easy_setopt(h, CURLOPT_PROXY, req->proxy);
    curl_easy_setopt(h, CURLOPT_USERAGENT, "cudnnctl/" CUDNNCTL_VERSION_STRING);
    if (req->accept) {
        char line[256];
        snprintf(line, sizeof(line), "Accept: %s", req->accept);
        x->headers = curl_slist_append(NULL, line);
        curl_easy_setopt(h, CURLOPT_HTTPHEADER, x->headers);
    }
    curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT, (long)req->connect_timeout_secs);
    curl_easy_setopt(h, CURLOPT_LOW_SPEED_LIMIT, (long)req->low_speed_bytes);
    curl_easy_setopt(h, CURLOPT_LOW_SPEED_TIME, (long)req->low_speed_secs);
    curl_easy_setopt(h, CURLOPT_TCP_KEEPALIVE, 1L);
    curl_easy_setopt(h, CURLOPT_BUFFERSIZE, RECV_BUFFER); /* fewer recv and poll calls */
    if (req->limit > req->offset) {
        snprintf(range, 64, "%llu-%llu", (unsigned long long)req->offset,
                 (unsigned long long)(req->limit - 1));
        curl_easy_setopt(h, CURLOPT_RANGE, range);
    } else if (req->offset > 0) {
        snprintf(range, 64, "%llu-", (unsigned long long)req->offset);
        curl_easy_setopt(h, CURLOPT_RANGE, range);
    }
    curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(h, CURLOPT_HEADERDATA, x);
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, x);
    curl_easy_setopt(h, CURLOPT_NOPROGRESS, 0L);
    curl_easy_setopt(h, CURLOPT_XFERINFOFUNCTION, on_xferinfo);
    curl_easy_setopt(h, CURLOPT_XFERINFODATA, x);
}

/* After the transfer: an empty body never reported its head; then classify the end. */
static void end_easy(xfer *x, CURLcode rc, const char *errbuf)
{
    curl_slist_free_all(x->headers); /* the attempt is over: libcurl no longer reads them */
    x->headers = NULL;
    if (flush_body(x) != 0 && rc == CURLE_OK) /* what arrived is kept, even from a broken one */
        rc = CURLE_WRITE_ERROR;
    free(x->acc);
    x->acc = NULL;
    if (rc == CURLE_OK && !x->head_done) {
        cudnnctl_err e = do_head(x);
        if (e != CUDNNCTL_E_OK) {
            x->abort_code = e;
            rc = CURLE_WRITE_ERROR;
        }
    }
    map_result(x, rc, errbuf);
    free(x->abort_why);
    x->abort_why = NULL;
    curl_easy_setopt(x->h, CURLOPT_ERRORBUFFER, NULL);
}

static void curl_get(cc_transport *t, const cc_transport_req *req, cc_transport_res *res)
{
    CURL *h = t->h;
    char errbuf[CURL_ERROR_SIZE];
    char range[64];
    xfer x;
    memset(res, 0, sizeof(*res));
    memset(&x, 0, sizeof(x));
    errbuf[0] = '\0';
    x.req = req;
    x.res = res;
    x.h = h;
    x.abort_code = CUDNNCTL_E_OK;
    curl_easy_reset(h); /* options back to defaults; the connection cache stays */
    setup_easy(h, &x, errbuf, range);
    end_easy(&x, curl_easy_perform(h), errbuf);
}

/* ---- several GETs at once (get_many) ---------------------------------------------------------- */

#define MAX_SLOTS 16

typedef struct {
    CURL *h;
    int busy;
    cc_transport_req req;
    cc_transport_res res;
    xfer x;
    char errbuf[CURL_ERROR_SIZE];
    char range[64];
} slot;

static unsigned count_busy(const slot *sl)
{
    unsigned n = 0;
    for (int i = 0; i < MAX_SLOTS; i++)
        n += sl[i].busy ? 1u : 0u;
    return n;
}

/* Start requests while slots and requests are there; returns next()'s last answer. */
static int fill_slots(CURLM *m, slot *sl, cc_transport_batch *b)
{
    int more = 1;
    unsigned cap = b->max_parallel < 1 ? 1 : b->max_parallel > MAX_SLOTS ? MAX_SLOTS
                                                                         : b->max_parallel;
    for (int i = 0; i < MAX_SLOTS && count_busy(sl) < cap; i++) {
        slot *s = &sl[i];
        if (s->busy)
            continue;
        if (!s->h && !(s->h = curl_easy_init()))
            break;
        memset(&s->req, 0, sizeof(s->req));
        if ((more = b->next(b->user, &s->req)) != 1)
            break;
        memset(&s->res, 0, sizeof(s->res));
        memset(&s->x, 0, sizeof(s->x));
        s->errbuf[0] = '\0';
        s->x.req = &s->req;
        s->x.res = &s->res;
        s->x.h = s->h;
        s->x.abort_code = CUDNNCTL_E_OK;
        curl_easy_reset(s->h);
        setup_easy(s->h, &s->x, s->errbuf, s->range);
        curl_easy_setopt(s->h, CURLOPT_PRIVATE, s);
        if (curl_multi_add_handle(m, s->h) != CURLM_OK) {
            s->res.code = CUDNNCTL_E_NOMEM;
            s->res.detail = cc_strdup("cannot start another transfer in libcurl");
            b->done(b->user, &s->req, &s->res);
            return -1;
        }
        s->busy = 1;
    }
    return more;
}

/* Report every transfer that ended. */
static void reap(CURLM *m, cc_transport_batch *b)
{
    CURLMsg *msg;
    int left;
    while ((msg = curl_multi_info_read(m, &left)) != NULL) {
        if (msg->msg != CURLMSG_DONE)
            continue;
        slot *s = NULL;
        curl_easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE, (char **)&s);
        CURLcode rc = msg->data.result;
        curl_multi_remove_handle(m, s->h);
        s->busy = 0;
        end_easy(&s->x, rc, s->errbuf);
        b->done(b->user, &s->req, &s->res);
    }
}

static void curl_get_many(cc_transport *t, cc_transport_batch *b)
{
    (void)t;
    CURLM *m = curl_multi_init();
    slot sl[MAX_SLOTS];
    memset(sl, 0, sizeof(sl));
    if (!m)
        return;
    for (;;) {
        if (b->stop(b->user))
            break;
        int more = fill_slots(m, sl, b);
        if (count_busy(sl) == 0) {
            if (more < 0)
                break;
            cc_pf_sleep_ms(50); /* every piece waits for its back-off */
            continue;
        }
        int running = 0;
        curl_multi_perform(m, &running);
        reap(m, b);
        if (running > 0)
            curl_multi_poll(m, NULL, 0, 100, NULL);
    }
    for (int i = 0; i < MAX_SLOTS; i++) {
        if (sl[i].busy) {
            curl_multi_remove_handle(m, sl[i].h);
            free(sl[i].x.abort_why);
            free(sl[i].x.acc);
        }
        if (sl[i].h)
            curl_easy_cleanup(sl[i].h);
    }
    curl_multi_cleanup(m);
}

static const cc_transport_ops curl_ops = {"libcurl", curl_open, curl_get, curl_close,
                                          curl_get_many};

const cc_transport_ops *cc_transport_curl(void)
{
    return &curl_ops;
}
