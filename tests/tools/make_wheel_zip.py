#!/usr/bin/env python3
"""make_wheel_zip.py: a small wheel in NVIDIA's nvidia-cudnn-cuM layout, from files given, with the
zip defects the streaming unzip must notice (tests/integration/test_zip_stream.sh).

  make_wheel_zip.py OUT.whl --file ARCNAME=PATH[:MODE] ... [--descriptors] [--cd-drop NAME]
                   [--prefix-bytes N]

  --descriptors     every entry's sizes and CRC after its data (general purpose bit 3), as a
                    zip written to a pipe has them
  --cd-drop NAME    the central directory leaves entry NAME out (its local header and data stay
                    in the stream: an entry hidden from readers of the directory)
  --prefix-bytes N  N bytes before the first entry (a self-extracting stub)
The dist-info (WHEEL, METADATA, RECORD, licenses/License.txt) is added from the file name."""
import argparse, base64, hashlib, io, os, sys, zipfile


class Unseekable(io.RawIOBase):
    """A write-only stream zipfile cannot seek: it writes data descriptors."""
    def __init__(self, f):
        self.f = f
    def writable(self):
        return True
    def write(self, b):
        return self.f.write(b)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--file", action="append", default=[])
    ap.add_argument("--descriptors", action="store_true")
    ap.add_argument("--cd-drop")
    ap.add_argument("--prefix-bytes", type=int, default=0)
    a = ap.parse_args()
    stem = os.path.basename(a.out)
    name, ver = stem.split("-")[:2]
    di = f"{name}-{ver}.dist-info"
    files = []
    for spec in a.file:
        arc, path = spec.split("=", 1)
        mode = 0o644
        if ":" in path:
            path, m = path.rsplit(":", 1)
            mode = int(m, 8)
        files.append((arc, open(path, "rb").read(), mode))
    files.append((f"{di}/licenses/License.txt", b"test licence\n", 0o644))
    files.append((f"{di}/METADATA", f"Metadata-Version: 2.1\nName: {name}\nVersion: {ver}\n".encode(), 0o644))
    files.append((f"{di}/WHEEL", b"Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-manylinux_2_27_x86_64\n", 0o644))
    rec = "".join(f"{n},sha256={base64.urlsafe_b64encode(hashlib.sha256(d).digest()).rstrip(b'=').decode()},{len(d)}\n" for n, d, _ in files)
    files.append((f"{di}/RECORD", (rec + f"{di}/RECORD,,\n").encode(), 0o644))
    buf = io.BytesIO()
    buf.write(b"\x7fSFX" * (a.prefix_bytes // 4) + b"\0" * (a.prefix_bytes % 4))
    sink = Unseekable(buf) if a.descriptors else buf
    with zipfile.ZipFile(sink, "w", zipfile.ZIP_DEFLATED) as z:
        for n, d, m in files:
            zi = zipfile.ZipInfo(n, (2024, 1, 1, 0, 0, 0))
            zi.compress_type = zipfile.ZIP_DEFLATED
            zi.external_attr = (0o100000 | m) << 16
            z.writestr(zi, d)
    data = buf.getvalue()
    if a.cd_drop:
        eocd = data.rfind(b"PK\x05\x06")
        u16 = lambda o: int.from_bytes(data[o:o + 2], "little")
        start = int.from_bytes(data[eocd + 16:eocd + 20], "little") + a.prefix_bytes
        recs, o = [], start
        while data[o:o + 4] == b"PK\x01\x02":
            n = 46 + u16(o + 28) + u16(o + 30) + u16(o + 32)
            recs.append(data[o:o + n])
            o += n
        keep = [r for r in recs if r[46:46 + int.from_bytes(r[28:30], "little")] != a.cd_drop.encode()]
        assert len(keep) == len(recs) - 1, f"{a.cd_drop} is not in the central directory"
        cd = b"".join(keep)
        end = bytearray(data[eocd:])
        end[8:10] = end[10:12] = len(keep).to_bytes(2, "little")
        end[12:16] = len(cd).to_bytes(4, "little")
        data = data[:start] + cd + bytes(end)
    open(a.out, "wb").write(data)


if __name__ == "__main__":
    sys.exit(main())
