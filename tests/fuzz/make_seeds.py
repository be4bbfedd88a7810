#!/usr/bin/env python3
"""make_seeds.py: (re)build the seed corpora of tests/fuzz/corpus/ from real files.

  make_seeds.py ERAS_DIR HOSTILE_DIR [CUDA_TREE]

ERAS_DIR / HOSTILE_DIR: the output of tests/fixtures/make_archive.py eras / hostile (NVIDIA's
layouts of every era and the hostile archives); CUDA_TREE (default /usr/local/cuda-13.0): a real
toolkit with cuDNN (version.json, cudnn_version.h, library names, a small ELF). Receipts and
journals come from real installs (tests/fuzz/README in docs/fuzzing.md says how); this script
never overwrites a seed that exists (crash regressions stay)."""
import glob
import os
import sys
import tarfile
import zipfile

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus")


def put(kind, name, data):
    d = os.path.join(HERE, kind)
    os.makedirs(d, exist_ok=True)
    p = os.path.join(d, name)
    if not os.path.exists(p):
        with open(p, "wb") as f:
            f.write(data if isinstance(data, bytes) else data.encode())


def listing(path):
    """archive → the fuzz_entry line format: '<type><name>\\t<link>' per entry."""
    out = []
    if path.endswith(".zip"):
        with zipfile.ZipFile(path) as z:
            for i in z.infolist():
                out.append(("d" if i.is_dir() else "f") + i.filename)
        return 4, out
    with tarfile.open(path) as t:
        for m in t.getmembers():
            c = {tarfile.DIRTYPE: "d", tarfile.SYMTYPE: "l", tarfile.LNKTYPE: "h",
                 tarfile.CHRTYPE: "c", tarfile.BLKTYPE: "b", tarfile.FIFOTYPE: "p"}.get(m.type, "f")
            out.append(c + m.name + ("\t" + m.linkname if m.linkname else ""))
    return 0, out


def entries(eras, hostile):
    for p in sorted(glob.glob(os.path.join(eras, "cudnn-*"))):
        if p.endswith(".json"):
            continue
        zipbit, lines = listing(p)
        top = 2 if "-v8." in p else 1
        put("entry", os.path.basename(p), bytes([zipbit | top]) + "\n".join(lines).encode())
    for p in sorted(glob.glob(os.path.join(hostile, "*", "*"))):
        if os.path.isdir(p) or p.endswith(".json"):
            continue
        try:
            zipbit, lines = listing(p)
        except Exception:
            continue
        put("entry", "hostile-" + os.path.basename(os.path.dirname(p)),
            bytes([zipbit]) + "\n".join(lines).encode())


def names(eras, tree):
    for p in sorted(glob.glob(os.path.join(eras, "cudnn-*"))):
        if not p.endswith(".json"):
            put("platform", os.path.basename(p), os.path.basename(p) + "\nx86_64\n0")
    put("platform", "uname-linux-x86_64", "Linux\nx86_64\n0")
    put("platform", "uname-tegra", "Linux\naarch64\n1")
    for p in sorted(glob.glob(os.path.join(tree, "lib64", "libcudnn*")))[:6]:
        put("platform", os.path.basename(p), os.path.basename(p))
    put("platform", "dll", "cudnn_ops64_9.dll")
    put("platform", "dist-info", "nvidia_cudnn_cu13-9.19.0.56.dist-info")
    for f, n in (("version.json", "version.json"), ("include/cudnn_version.h", "cudnn_version.h")):
        p = os.path.join(tree, f)
        if os.path.exists(p):
            put("version", n, open(p, "rb").read())
    for v in ("9.19.0.56", "9.19", "9", "9.13.x", "13.0", "12.8", "11.5", "580.65.06"):
        put("version", "v-" + v, v)
    put("version", "nvcc", "nvcc: NVIDIA (R) Cuda compiler driver\nCuda compilation tools, "
        "release 13.0, V13.0.88\n")
    put("version", "proc-driver", "NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.65.06  "
        "Sun Jul 27 07:09:29 UTC 2025\n")


def elf(tree):
    for p in ("/lib/x86_64-linux-gnu/libdl.so.2", "/usr/lib/x86_64-linux-gnu/libdl.so.2"):
        if os.path.exists(p):
            put("elf", "libdl.so.2", open(p, "rb").read())
            break
    p = os.path.join(tree, "lib64", "libcudnn.so.9")
    if os.path.exists(p):
        put("elf", "libcudnn.so.9-head", open(p, "rb").read()[:16384])


def env():
    put("env", "toolkit", "/usr/local/cuda-13.0\n/usr/local/cuda-13.0/bin\n/usr/local/cuda-13.0"
        "\x01/opt/cudnn\n/usr/local/cuda-13.0")
    put("env", "awkward", "/opt/it's a [cuda]*\n/opt/it's a [cuda]*/bin\x01/opt/$HOME `x`/bin/\n"
        "/usr\n/opt/it's a [cuda]*")
    put("env", "none", "\n\n\n")


def main(argv):
    if len(argv) < 2:
        sys.exit(__doc__)
    tree = argv[2] if len(argv) > 2 else "/usr/local/cuda-13.0"
    entries(argv[0], argv[1])
    names(argv[0], tree)
    elf(tree)
    env()
    put("manifest", "traversal.json", '{"cudnn":{"version":"9.1.0.1","linux-x86_64":{"cuda12":'
        '{"relative_path":"../../etc/passwd","sha256":"' + "0" * 64 + '","md5":"","size":"1"}}}}')


if __name__ == "__main__":
    main(sys.argv[1:])
