#!/usr/bin/env python3
"""httpd.py: the test HTTP(S) server — serves a directory on 127.0.0.1 with Range requests,
a request log, and fault modes, for cudnnctl's fetch and install tests and benchmarks.

Start:  httpd.py --root DIR --port-file FILE [--log FILE] [--tls-cert C --tls-key K]
                 [--throttle BYTES_PER_S] [--link-rate BYTES_PER_S] [--max-lifetime S]
                 [--parent PID | --watch PID] [--dir-index]
--throttle paces every response (connection) on its own; --link-rate paces all of them together,
as one shared link (both paced: time a slow reader leaves unused is lost).
The port (picked by the OS) is written to --port-file once the server listens. The server exits
on SIGTERM/SIGINT, when its parent process (or --parent PID) goes away, or after --max-lifetime
seconds.

Faults are chosen per request by a path prefix, so that a mirror base URL can carry them:
    /__fault/<spec>/<path under root>
    spec = MODE[,arg=N][,times=K][,skip=J]
          (times: only the first K requests of this URL get the fault; for flip and badrange,
           the K responses after the first J that the fault applies to)
MODE:
    404, 500, 503, ...   answer with that status
    reset   send the head and arg bytes of the body, then reset the connection (RST)
    cut     send the head and arg bytes of the body, then close cleanly (short body)
    badlen  announce Content-Length = real + arg (default +1000; negative works), send the body
    drip    send the body at arg bytes/s (default 100)
    throttle  same as drip, for benchmarks (e.g. arg=40000000)
    loop    302 to the same URL, forever
    redirect  302 to the path without the fault prefix
    plainhttp 302 to http://127.0.0.1:<arg>/<path without the fault prefix> (an https server
            downgrading to a plain-http one)
    norange ignore Range headers (always 200 with the whole file)
    badrange  answer a Range request with the bytes (and a matching Content-Range) from arg
            bytes later than asked (default 1): a server that mishandles ranges
    flip    flip the byte at file offset arg in a response that covers it (times: only the
            first K responses covering it)
    endless 200 without Content-Length (Connection: close): the file, then junk without end
            (arg: bytes/s, default unpaced; junk=1: junk from the first byte) — a body only
            the client's own limit can stop
Log (--log): one JSON object per request, written when the status is sent:
    {"method", "path", "range", "status"}
"""
import argparse
import http.server
import json
import os
import signal
import socket
import socketserver
import ssl
import struct
import sys
import threading
import time
import urllib.parse

CHUNK = 256 * 1024
LINK_BURST_S = 0.05  # --throttle / drip: a link's queue; a stalled reader loses the rest


class Server(http.server.ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, addr, handler, args):
        super().__init__(addr, handler)
        self.args = args
        self.root = os.path.realpath(args.root)
        self.dir_index = args.dir_index
        self.ssl_ctx = None
        if args.tls_cert:
            ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            ctx.load_cert_chain(args.tls_cert, args.tls_key)
            self.ssl_ctx = ctx
        self.counts = {}
        self.lock = threading.Lock()
        self.link_lock = threading.Lock()
        self.link_due = time.monotonic()
        self.logf = open(args.log, "a", buffering=1) if args.log else None

    def finish_request(self, request, client_address):
        # TLS handshake in the request's own thread: a client refusing our certificate must not
        # stall the accept loop
        if self.ssl_ctx:
            try:
                request.settimeout(30)
                request = self.ssl_ctx.wrap_socket(request, server_side=True)
            except (ssl.SSLError, OSError):
                return
        try:
            self.RequestHandlerClass(request, client_address, self)
        except (OSError, ValueError):
            pass
        finally:
            if self.ssl_ctx:
                try:
                    request.close()
                except OSError:
                    pass

    def handle_error(self, request, client_address):
        pass  # resets and aborted clients are part of the tests

    def count(self, key):
        with self.lock:
            n = self.counts.get(key, 0) + 1
            self.counts[key] = n
            return n

    def log(self, **rec):
        if self.logf:
            with self.lock:
                self.logf.write(json.dumps(rec) + "\n")


def parse_spec(spec):
    parts = spec.split(",")
    mode, opts = parts[0], {}
    for p in parts[1:]:
        k, _, v = p.partition("=")
        opts[k] = int(v)
    return mode, opts


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "cudnnctl-test-httpd/1"

    def log_message(self, fmt, *a):
        pass

    def finish(self):
        try:
            super().finish()
        except (OSError, ValueError):
            pass

    def status(self, code, headers=(), body=b""):
        self.server.log(method=self.command, path=self.path,
                        range=self.headers.get("Range"), status=code)
        self.send_response(code)
        for k, v in headers:
            self.send_header(k, v)
        if not any(k.lower() == "content-length" for k, _ in headers):
            self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if body and self.command != "HEAD":
            self.wfile.write(body)

    def do_HEAD(self):
        self.do_GET()

    def do_GET(self):
        url = urllib.parse.urlsplit(self.path)
        path = urllib.parse.unquote(url.path)
        mode, opts = None, {}
        if path.startswith("/__fault/"):
            spec, _, rest = path[len("/__fault/"):].partition("/")
            mode, opts = parse_spec(spec)
            if mode not in ("flip", "badrange"):  # those count the responses they change
                n = self.server.count(self.path)
                if "times" in opts and n > opts["times"]:
                    mode = None  # the fault is used up: serve normally
            path = "/" + rest
        if mode and mode.isdigit():
            return self.status(int(mode), body=f"fault {mode}\n".encode())
        if mode == "loop":
            return self.status(302, [("Location", self.path)])
        if mode == "redirect":
            return self.status(302, [("Location", path)])
        if mode == "plainhttp":
            return self.status(302, [("Location", f"http://127.0.0.1:{opts.get('arg', 80)}{path}")])
        full = os.path.realpath(os.path.join(self.server.root, path.lstrip("/")))
        pep691 = "application/vnd.pypi.simple.v1+json"
        if self.server.dir_index and os.path.isdir(full):
            # a simple package index's project page: PEP 691 JSON to a client asking for it
            if pep691 in self.headers.get("Accept", "") and \
                    os.path.isfile(os.path.join(full, "index.json")):
                full = os.path.join(full, "index.json")
            elif os.path.isfile(os.path.join(full, "index.html")):
                full = os.path.join(full, "index.html")
        if not full.startswith(self.server.root + os.sep) or not os.path.isfile(full):
            return self.status(404, body=b"not found\n")
        size = os.path.getsize(full)
        if mode == "endless":
            return self.send_endless(full, opts.get("arg", 0), opts.get("junk", 0))
        start, end, code = 0, size, 200
        rng = self.headers.get("Range")
        if rng and mode != "norange" and rng.startswith("bytes=") and "," not in rng:
            a, _, b = rng[6:].partition("-")
            try:
                if a == "":  # suffix range: the last b bytes
                    start = max(0, size - int(b))
                else:
                    start = int(a)
                    if b:
                        end = min(size, int(b) + 1)
            except ValueError:
                start = 0
            if start >= size:
                return self.status(416, [("Content-Range", f"bytes */{size}")])
            code = 206
            if mode == "badrange" and self.used(opts, "badrange"):
                shift = opts.get("arg", 1)
                start = min(size - 1, start + shift)
                end = min(size, end + shift)
        length = end - start
        ctype = "text/html" if full.endswith(".html") else \
            pep691 if self.server.dir_index and full.endswith("/index.json") else "application/octet-stream"
        headers = [("Content-Type", ctype), ("Accept-Ranges", "bytes")]
        announced = length
        if mode == "badlen":
            announced = max(0, length + opts.get("arg", 1000))
        headers.append(("Content-Length", str(announced)))
        if code == 206:
            headers.append(("Content-Range", f"bytes {start}-{end - 1}/{size}"))
        self.status(code, headers)
        if self.command == "HEAD":
            return
        send = min(length, announced)
        rate = 0
        if mode in ("drip", "throttle"):
            rate = opts.get("arg", 100)
        elif self.server.args.throttle:
            rate = self.server.args.throttle
        if mode in ("reset", "cut"):
            send = min(send, opts.get("arg", length // 2))
        flip_at = -1
        if mode == "flip" and start <= opts.get("arg", 0) < start + send:
            flip_at = opts.get("arg", 0)  # counted (times=K) only once that byte is sent
        with open(full, "rb") as f:
            self.send_body(f, start, send, rate, flip_at, opts)
        if mode == "reset":
            self.wfile.flush()
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            self.connection.close()
            self.close_connection = True
        elif mode in ("cut", "badlen") or send < announced:
            self.wfile.flush()
            self.close_connection = True
            try:
                self.connection.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def send_endless(self, full, rate, junk_only):
        self.server.log(method=self.command, path=self.path,
                        range=self.headers.get("Range"), status=200)
        self.close_connection = True
        self.send_response(200)
        self.send_header("Content-Type", "application/octet-stream")
        self.send_header("Connection", "close")
        self.end_headers()
        if self.command == "HEAD":
            return
        junk = bytes(range(256)) * (CHUNK // 256)
        try:
            if not junk_only:
                with open(full, "rb") as f:
                    self.send_body(f, 0, os.path.getsize(full), rate)
            while True:
                self.wfile.write(junk)
                if rate:
                    time.sleep(len(junk) / rate)
        except OSError:
            pass  # the client gave up: what this mode is for

    def used(self, opts, what):
        """A fault that only some responses get: count this one, 1 while within times=K."""
        n = self.server.count(self.path + "#" + what)
        skip = opts.get("skip", 0)
        return n > skip and ("times" not in opts or n <= skip + opts["times"])

    def link_wait(self, n):
        """--link-rate: reserve n bytes on the shared link and wait for their slot."""
        rate = self.server.args.link_rate
        if not rate:
            return
        with self.server.link_lock:
            now = time.monotonic()
            due = max(self.server.link_due, now - LINK_BURST_S) + n / rate
            self.server.link_due = due
        if due > now:
            time.sleep(due - now)

    def send_body(self, f, start, count, rate, flip_at=-1, opts=None):
        if rate == 0 and flip_at < 0 and not self.server.args.link_rate and not self.server.ssl_ctx:
            self.wfile.flush()
            self.connection.sendfile(f, start, count)
            return
        f.seek(start)
        # A paced link: at most `rate` bytes/s with LINK_BURST_S of slack. Time a slow reader
        # leaves unused is lost, as on a real link (a token bucket that let a stalled client
        # catch up at loopback speed would hide every stall of the download).
        due = time.monotonic()
        sent = 0
        chunk = CHUNK if rate == 0 else max(1, min(CHUNK, rate // 100 or 1))
        if self.server.args.link_rate:
            chunk = min(chunk, max(1, self.server.args.link_rate // 200))
        while sent < count:
            data = f.read(min(chunk, count - sent))
            if not data:
                break
            if start + sent <= flip_at < start + sent + len(data) and self.used(opts, "flip"):
                b = bytearray(data)
                b[flip_at - start - sent] ^= 0xFF
                data = bytes(b)
            self.link_wait(len(data))
            self.wfile.write(data)
            sent += len(data)
            if rate:
                self.wfile.flush()
                now = time.monotonic()
                due = max(due, now - LINK_BURST_S) + len(data) / rate
                if due > now:
                    time.sleep(due - now)


def alive(pid):
    try:
        os.kill(pid, 0)
        return True
    except ProcessLookupError:
        return False
    except PermissionError:
        return True


def watchdog(parent, deadline, watch=0):
    # the parent may already be gone when we start (a loaded machine): check it is alive, not
    # only that we were not re-parented. --watch PID: only that process (started by a shell that
    # is gone at once: the unit tests' fetch_fixture.h, through cc_pf_run)
    while True:
        if watch:
            gone = not alive(watch)
        else:
            gone = os.getppid() != parent or not alive(parent)
        if gone or time.monotonic() > deadline:
            os._exit(0)
        time.sleep(0.2)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--root", required=True)
    ap.add_argument("--port-file", required=True)
    ap.add_argument("--log")
    ap.add_argument("--tls-cert")
    ap.add_argument("--tls-key")
    ap.add_argument("--throttle", type=int, default=0, help="bytes/s for every response")
    ap.add_argument("--link-rate", type=int, default=0,
                    help="bytes/s for all responses together (a shared link)")
    ap.add_argument("--max-lifetime", type=float, default=900)
    ap.add_argument("--dir-index", action="store_true",
                    help="a directory answers with its index.html, or its index.json to a client that asks for "
                         "PEP 691 JSON (a simple package index)")
    ap.add_argument("--parent", type=int, default=0,
                    help="exit when this process ends (default: the parent process)")
    ap.add_argument("--watch", type=int, default=0,
                    help="exit when this process ends, whoever the parent is")
    args = ap.parse_args()
    parent = args.parent or os.getppid()

    srv = Server(("127.0.0.1", 0), Handler, args)
    port = srv.server_address[1]
    tmp = args.port_file + ".tmp"
    with open(tmp, "w") as f:
        f.write(f"{port}\n")
    os.replace(tmp, args.port_file)

    signal.signal(signal.SIGTERM, lambda *_: os._exit(0))
    threading.Thread(target=watchdog,
                     args=(parent, time.monotonic() + args.max_lifetime, args.watch),
                     daemon=True).start()
    try:
        srv.serve_forever(poll_interval=0.2)
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    sys.exit(main())
