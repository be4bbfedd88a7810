#!/usr/bin/env python3
"""A PEP 691 package index for tests: ROOT PORT.

/simple/<project>/ answers JSON (Accept: application/vnd.pypi.simple.v1+json) or, for a client
that does not ask for JSON, the HTML of PEP 503, listing what ROOT/files.json gives for that
project ({"project": [{"filename", "url", "hashes": {"sha256"}, "size", ...}, ...]}; read per
request, so a test may rewrite it between runs); /files/<name> serves ROOT/files/<name>.
"""
import http.server
import json
import os
import shutil
import sys

root = sys.argv[1]


class H(http.server.BaseHTTPRequestHandler):
    def log_message(self, *a):
        pass

    def do_GET(self):
        parts = [p for p in self.path.split("?")[0].split("/") if p]
        if len(parts) == 2 and parts[0] == "files" and os.path.isfile(os.path.join(root, "files", parts[1])):
            path = os.path.join(root, "files", parts[1])
            self.send_response(200)
            self.send_header("Content-Type", "application/octet-stream")
            self.send_header("Content-Length", str(os.path.getsize(path)))
            self.end_headers()
            with open(path, "rb") as f:
                shutil.copyfileobj(f, self.wfile, 1 << 20)
            return
        listed = json.load(open(os.path.join(root, "files.json")))
        if len(parts) != 2 or parts[0] != "simple" or parts[1] not in listed:
            return self.reply(404, "text/plain", b"not found")
        files = listed[parts[1]]
        if "application/vnd.pypi.simple.v1+json" in self.headers.get("Accept", ""):
            doc = {"meta": {"api-version": "1.1"}, "name": parts[1], "files": files}
            return self.reply(200, "application/vnd.pypi.simple.v1+json", json.dumps(doc).encode())
        links = "".join('<a href="%s#sha256=%s">%s</a>\n' % (f["url"], f["hashes"]["sha256"], f["filename"])
                        for f in files)
        return self.reply(200, "text/html", ("<html><body>%s</body></html>" % links).encode())

    def reply(self, code, ctype, body):
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


http.server.ThreadingHTTPServer(("127.0.0.1", int(sys.argv[2])), H).serve_forever()
