/* optspec.c: every option as the user sees it, one line each (cli.h, cli_optspec): name, short
 * name, value name, the commands that take it ("*": all), value completer, help. Help, usage
 * errors, man pages, completions and docs/cli.md's tables all come from here. To port an option
 * added the old way (opts.c: enum + getopt line + switch case + cli_opts field), add its line. */
#include "cli.h"

#define SEL "available plan install mirror"

/* clang-format off */
const cli_optspec cli_optspecs[] = {
    /* global */
    {"root", 0, "DIR", "*", CLI_COMP_DIR, "resolve every absolute path the tool reads or writes under DIR"},
    {"json", 0, NULL, "*", CLI_COMP_NONE, "machine output on stdout (one JSON document); human text to stderr"},
    {"quiet", 'q', NULL, "*", CLI_COMP_NONE, "errors and warnings only: no progress, no info; the command's own output (detect's report, doctor's findings, ...) stays"},
    {"verbose", 'v', NULL, "*", CLI_COMP_NONE, "more detail: the steps and info lines (-vv: the debug log too)"},
    {"debug", 0, NULL, "*", CLI_COMP_NONE, "debug log and error origins (function, file, line)"},
    {"no-progress", 0, NULL, "*", CLI_COMP_NONE, "no progress display (a live line on a terminal, else a line per stage)"},
    {"color", 0, "WHEN", "*", CLI_COMP_COLOR, "auto, always or never (NO_COLOR is honoured)"},
    {"cache-dir", 0, "DIR", "*", CLI_COMP_DIR, "download cache (default: $XDG_CACHE_HOME/cudnnctl, ~/.cache/cudnnctl; cudnnctl config shows it)"},
    {"state-dir", 0, "DIR", "*", CLI_COMP_DIR, "receipts, journal, lock (default: /var/lib/cudnnctl as root, else $XDG_STATE_HOME/cudnnctl; cudnnctl config shows it)"},
    {"help", 'h', NULL, "*", CLI_COMP_NONE, "this help"},
    {"print-version", 0, NULL, "*", CLI_COMP_NONE, "print \"cudnnctl VERSION\" (kept for scripts; see --version)"},
    /* selection */
    {"cudnn", 0, "V", SEL, CLI_COMP_CUDNN, "cuDNN version: 9, 9.19 or 9.19.0.56 (the newest match for the CUDA major and platform)"},
    {"cudnn", 0, "V", "use", CLI_COMP_INSTALLED, "switch --prefix DIR to this cuDNN version, installed there side by side (a link flip)"},
    {"cuda", 0, "M[.m]", SEL " use env", CLI_COMP_CUDA, "CUDA major or toolkit version (default: the active toolkit's)"},
    {"platform", 0, "P", SEL " doctor", CLI_COMP_PLATFORM, "platform key (default: this machine's)"},
    {"for", 0, "PKG==V", "plan install mirror doctor", CLI_COMP_CONSUMER, "the cuDNN torch==X or tensorflow==X was built with"},
    {"driver-version", 0, "V", "plan install", CLI_COMP_NONE, "plan for another machine's driver"},
    {"flavor", 0, "full|jit", SEL, CLI_COMP_NONE, "full: NVIDIA's whole cuDNN (default); jit: the Graph JIT library (libcudnn, libcudnn_graph, libcudnn_engines_runtime_compiled; no legacy API)"},
    {"components", 0, "LIST", "available plan install", CLI_COMP_NONE, "what to install of the archive: runtime, dev, static, comma-separated (default: all)"},
    /* source */
    {"archive", 0, "FILE|URL", "install", CLI_COMP_FILE, "a cuDNN archive already at hand"},
    {"sha256", 0, "HEX", "install", CLI_COMP_NONE, "expected SHA-256 of --archive"},
    {"source", 0, "archive|wheel|auto", "plan install", CLI_COMP_NONE, "where the bytes come from: archive (NVIDIA's redist archive, default), wheel (NVIDIA's wheel, fetched by pip download through your Python packaging configuration), auto (the wheel when it carries the components: runtime, dev)"},
    {"index-url", 0, "URL", "plan install", CLI_COMP_NONE, "the package index pip downloads the wheel from (implies --source wheel; default: the index pip is configured with)"},
    {"python", 0, "EXE", "install", CLI_COMP_FILE, "the interpreter whose pip fetches the wheel (default: python3 on PATH)"},
    {"insecure-skip-verify", 0, NULL, "install", CLI_COMP_NONE, "install an --archive whose SHA-256 is unknown"},
    {"manifest", 0, "FILE|URL", SEL, CLI_COMP_FILE, "add a redistrib JSON to the catalog (repeatable)"},
    {"mirror", 0, "URL|DIR", "plan install config", CLI_COMP_DIR, "base that an archive's relative_path is joined to"},
    {"mirror", 0, "URL|DIR", "mirror", CLI_COMP_DIR, "upstream to copy from (default: NVIDIA)"},
    {"mirror", 0, "URL|DIR", "update", CLI_COMP_DIR, "the redist listing to read (default: manifest-base-url, mirror, else NVIDIA's)"},
    {"cacert", 0, "FILE", SEL " update config", CLI_COMP_FILE, "CA bundle for https (archives, manifests and listings)"},
    /* target */
    {"cuda-home", 0, "DIR", "plan install uninstall rollback list validate report", CLI_COMP_DIR, "target: merge into this CUDA tree"},
    {"cuda-home", 0, "DIR", "env", CLI_COMP_DIR, "activate this CUDA toolkit (= env DIR)"},
    {"prefix", 0, "DIR", "plan install uninstall rollback list use env validate report config", CLI_COMP_DIR, "target: a per-version prefix under DIR"},
    /* install */
    {"dry-run", 0, NULL, "install", CLI_COMP_NONE, "say what would be done, change nothing"},
    {"dry-run", 0, NULL, "cache", CLI_COMP_NONE, "clean: list what would be removed, remove nothing"},
    {"no-validate", 0, NULL, "install", CLI_COMP_NONE, "skip the GPU validation after installing"},
    {"force", 0, NULL, "install", CLI_COMP_NONE, "install again even when the same build is there"},
    {"no-ldconfig", 0, NULL, "install uninstall rollback use env", CLI_COMP_NONE, "do not run ldconfig"},
    {"system", 0, NULL, "install use env", CLI_COMP_NONE, "wire the environment for every user"},
    /* uninstall / mirror */
    {"version", 0, "V", "uninstall", CLI_COMP_INSTALLED, "the installed cuDNN version to remove"},
    {"all", 0, NULL, "uninstall", CLI_COMP_NONE, "remove every install on the target"},
    {"all", 0, NULL, "mirror", CLI_COMP_NONE, "every matching version, not only the newest"},
    {"to", 0, "DIR", "mirror", CLI_COMP_DIR, "the mirror directory to fill"},
    {"all-platforms", 0, NULL, "mirror", CLI_COMP_NONE, "every platform, not only --platform"},
    /* env */
    {"shell", 0, "SHELL", "env", CLI_COMP_SHELL, "sh, bash, zsh, fish, pwsh, cmd, or lmod / tcl for a modulefile (default: $SHELL's)"},
    {"ld-library-path", 0, NULL, "env", CLI_COMP_NONE, "also set LD_LIBRARY_PATH (this session only)"},
    {"persist", 0, NULL, "env", CLI_COMP_NONE, "write the activation into the shell start-up files"},
    {"remove", 0, NULL, "env", CLI_COMP_NONE, "take a persisted activation out again"},
    {"no-ld-library-path", 0, NULL, "env", CLI_COMP_NONE, "do not put a selected cuDNN the loader would not find in front of LD_LIBRARY_PATH"},
    {"modulefiles", 0, "DIR", "env", CLI_COMP_DIR, "with --persist: write the selection's modulefile as DIR/cudnn/<version>-cuda<M>.lua (--shell tcl: a Tcl one); with --remove: take cudnnctl's modulefiles there out"},
    /* which */
    {"python", 0, "EXE", "which doctor", CLI_COMP_FILE, "the CUDA frameworks of that Python interpreter, read from their files (never imported)"},
    {"env-of", 0, "FILE", "which", CLI_COMP_FILE, "model LD_LIBRARY_PATH after sh evaluates that activation file"},
    {"dll", 0, "NAME", "which", CLI_COMP_NONE, "the Windows DLL search order for a plain LoadLibrary of NAME"},
    {"build", 0, NULL, "which", CLI_COMP_NONE, "which cudnn.h the C/C++ compiler and nvcc include and which libcudnn.so ld links, against what the loader maps"},
    /* validate / doctor / report */
    {"device", 0, "N", "install validate report", CLI_COMP_NONE, "GPU ordinal to validate on"},
    {"timeout", 0, "SECONDS", "install validate report", CLI_COMP_NONE, "give the validation child this long (default 60)"},
    {"deep", 0, NULL, "doctor", CLI_COMP_NONE, "re-hash the files of install receipts"},
    {"deep", 0, NULL, "use", CLI_COMP_NONE, "re-hash the installed files against their receipt before switching"},
    {"windows-env", 0, "FILE", "doctor", CLI_COMP_FILE, "NAME=VALUE lines standing in for a Windows tree's environment and registry (with --platform windows-x86_64 --root DIR)"},
    {"wait", 0, "[SECONDS]", "install uninstall rollback use recover", CLI_COMP_NONE, "wait for another run on the same target or state dir (at most SECONDS: --wait 5 or --wait=5) instead of exiting 8"},
    {"max-unpacked", 0, "SIZE", "install", CLI_COMP_NONE, "cap on the archive's declared unpacked size (bytes, or with K/M/G/T; default: 10x the archive, 256 MiB to 6 GiB)"},
    {"link-mode", 0, "MODE", "install", CLI_COMP_NONE, "use the unpacked store: an archive extracted once (with this option) is kept there, and a later install of it with this option fills its files from the store instead of decoding: auto (reflink where the filesystem can, else copy), copy, reflink, or hardlink (prefixes only, never a CUDA tree); without it the store is neither filled nor read"},
    {"allow-manifest-override", 0, NULL, "install", CLI_COMP_NONE, "install even when a --manifest contradicts NVIDIA's embedded manifest (recorded in the receipt)"},
    {"allow-manifest-override", 0, NULL, "mirror", CLI_COMP_NONE, "mirror even when a --manifest contradicts NVIDIA's embedded manifest"},
    {"allow-manifest-override", 0, NULL, "update", CLI_COMP_NONE, "store a pinned label whose file now names other archives (recorded in the catalog and the receipts)"},
    {"connections", 0, "N", "install mirror", CLI_COMP_NONE, "download over N connections when the server serves byte ranges (0 = automatic from the measured rate, 1 = one stream; at most 16)"},
    {"validate", 0, NULL, "report", CLI_COMP_NONE, "also validate the active cuDNN (or TARGET)"},
    {NULL, 0, NULL, NULL, CLI_COMP_NONE, NULL},
};
/* clang-format on */
