/* commands.c: the table of sub-commands. Each line: name, handler, one-line summary, hidden,
 * positional arguments (synopsis, min, max — max -1: any number, -2: every word after the
 * command verbatim), how a shell completes them, and the paragraph of its help and man page.
 * Its options are the lines of optspec.c that name it. */
#include "cli.h"

const cli_command cli_commands[] = {
    {"detect", cmd_detect, "toolkits, driver, platform key, every cuDNN copy found (read-only)", 0,
     "", 0, 0, CLI_COMP_NONE,
     "Find every CUDA toolkit (and which one is active), the NVIDIA driver, the platform key and "
     "every copy of cuDNN on this machine: in CUDA trees, system library dirs, Python wheels, "
     "conda environments and cudnnctl prefixes. Reads only; changes nothing."},
    {"available", cmd_available, "what the catalog offers", 0, "", 0, 0, CLI_COMP_NONE,
     "List the cuDNN archives of the catalog (NVIDIA's manifests compiled into cudnnctl, plus "
     "every --manifest), newest first, for this machine's platform unless --platform says "
     "otherwise. --cudnn takes a version prefix: 9.19 lists every 9.19.x."},
    {"plan", cmd_plan, "the choice and every step install would take, with reasons", 0, "", 0, 0,
     CLI_COMP_NONE,
     "Choose the archive and the target install would use, and list every step it would take "
     "and every candidate it rejected, with the reason. Writes nothing. Without --cuda the "
     "active toolkit's major decides (also with --prefix). --cudnn 9.19 means the newest 9.19.x "
     "that has a build for the selected CUDA major and platform."},
    {"install", cmd_install, "fetch, verify, extract, commit, link, validate", 0, "", 0, 0,
     CLI_COMP_NONE,
     "Download (or take --archive), verify the SHA-256, unpack, commit atomically into a CUDA "
     "tree (--cuda-home) or a per-version prefix (--prefix), wire the links and ldconfig, write a "
     "receipt, then validate on the GPU. Versions are chosen as by plan. An interrupted run is "
     "settled by the next install, uninstall or rollback."},
    {"uninstall", cmd_uninstall, "remove exactly what a receipt lists, restore what it replaced",
     0, "[TARGET]", 0, 1, CLI_COMP_DIR,
     "Remove the files an install receipt lists (files you changed since are kept) and restore "
     "what that install replaced. TARGET is a CUDA tree or prefix (or use --cuda-home/--prefix); "
     "--version V picks the install (V as for plan: 9.19 is the newest installed 9.19.x)."},
    {"rollback", cmd_rollback, "undo the last install on a target", 0, "[TARGET]", 0, 1,
     CLI_COMP_DIR,
     "Undo the newest install on a target: the tree is then exactly as before it, and an earlier "
     "install there is the active one again."},
    {"recover", cmd_recover, "settle an interrupted run (roll back or finish), nothing else", 0,
     "", 0, 0, CLI_COMP_NONE,
     "Find a run that was interrupted (killed, power lost) in the state dir's journal and settle "
     "it: roll it back when it stopped before its commit point, finish it after. Does nothing "
     "else; install, uninstall and rollback do the same before they start."},
    {"list", cmd_list, "installs made by cudnnctl, and foreign copies", 0, "[TARGET]", 0, 1,
     CLI_COMP_DIR, "List the installs made by cudnnctl (from their receipts), on every target or "
                   "on TARGET."},
    {"use", cmd_use, "make CUDA toolkit X.Y the active one", 0, "X.Y", 0, 1, CLI_COMP_TOOLKIT,
     "Make CUDA toolkit X.Y the active one (the /usr/local/cuda link, alternatives where they are "
     "used) together with the cuDNN installed for it; or, with --prefix, a cudnnctl prefix."},
    {"env", cmd_env, "print shell activation for a toolkit / prefix", 0, "[X.Y|TARGET]", 0, 1,
     CLI_COMP_TOOLKIT,
     "Print what a shell needs to use a toolkit or prefix (PATH, CUDA_HOME and, with "
     "--ld-library-path, LD_LIBRARY_PATH), to be evaluated: eval \"$(cudnnctl env 13.0)\". "
     "--persist writes it into the shell start-up files (--system: for every user); --remove "
     "takes it out again."},
    {"validate", cmd_validate, "prove on the GPU that the installed cuDNN works", 0, "[TARGET]", 0,
     1, CLI_COMP_DIR,
     "Load cuDNN from TARGET (default: the active one) in a child process, check the versions "
     "of what the loader mapped, and run a convolution on the GPU against a CPU reference. Exit "
     "6 when it fails, 7 when no GPU or driver could run the GPU part."},
    {"__validate-child", cmd_validate_child, "(internal) the validation child process", 1, "", 0,
     0, CLI_COMP_NONE, "The validation child process; reads its request from stdin."},
    {"which", cmd_which, "which cuDNN / CUDA runtime / cuBLAS a program will really load, and why",
     0, "[PROGRAM|LIBRARY]", 0, 1, CLI_COMP_FILE,
     "Answer what a program will really load: for the current environment, an activation "
     "(--env-of FILE), an ELF program or shared library, or the CUDA frameworks of a Python "
     "interpreter (--python EXE, read from their files, never imported), name the libcudnn, "
     "libcudart and libcublas the dynamic loader would map, their versions, why (RPATH, "
     "LD_LIBRARY_PATH, RUNPATH, ld.so.cache, default dirs) and whether the combination fits what "
     "the consumer was built for (docs/which.md). --dll NAME models the Windows DLL search order."},
    {"__load-probe", cmd_load_probe, "(internal) dlopen sonames, print the files mapped", 1,
     "SONAME...", 1, 64, CLI_COMP_NONE, "dlopen each soname by name and print the file mapped."},
    {"doctor", cmd_doctor, "find problems, name causes and fixes", 0, "", 0, 0, CLI_COMP_NONE,
     "Look for problems (mixed cuDNN versions, broken links, a driver too old, interrupted "
     "installs, receipts whose files changed) and name the cause and a fix for each. Exit 1 "
     "when a finding is an error."},
    {"report", cmd_report, "record this environment as JSON", 0, "[TARGET]", 0, 1, CLI_COMP_DIR,
     "Write one JSON document recording this environment (detect, doctor, installs; with "
     "--validate also a validation of TARGET or the active cuDNN): cudnnctl report > host.json."},
    {"compare", cmd_compare, "drift between environment records", 0, "A.json B.json...", 2, -1,
     CLI_COMP_FILE, "Show where environment records written by report differ (drift across a "
                    "fleet)."},
    {"mirror", cmd_mirror, "fetch manifests and archives for offline use", 0, "", 0, 0,
     CLI_COMP_NONE,
     "Copy manifests and archives into --to DIR for offline or air-gapped installs: then "
     "install --mirror DIR --manifest DIR/redistrib_X.json. Versions are chosen as by plan, so "
     "the same --cudnn takes the same release in both."},
    {"update", cmd_update, "refresh the catalog from NVIDIA's (or a mirror's) manifest listing", 0,
     "", 0, 0, CLI_COMP_NONE,
     "Read the redist directory listing of NVIDIA (or --mirror URL|DIR, or the configured "
     "manifest-base-url / mirror), fetch every manifest it links to, validate each, and keep the "
     "new ones with their SHA-256 in the catalog under the state dir: available, plan, install "
     "and mirror know them from then on, offline too. A label already pinned (embedded, or "
     "fetched before) whose file now names other archives is refused (exit 3, both digests "
     "named; nothing stored) unless --allow-manifest-override. Offline it exits 10 and changes "
     "nothing."},
    {"config", cmd_config, "the effective configuration and where each value came from", 0, "",
     0, 0, CLI_COMP_NONE,
     "Show each setting (mirror, manifest-base-url, cacert, cache-dir, state-dir, proxy, "
     "prefix), its effective value and where it came from: a flag, a CUDNNCTL_* variable, the "
     "user's $XDG_CONFIG_HOME/cudnnctl/config or the system's /etc/cudnnctl/config (under "
     "--root). Later sources win: flag > variable > user file > system file. Exit 1 when a file "
     "has a problem (unknown key, syntax)."},
    {"cache", cmd_cache, "list, verify or clean the download cache", 0, "list|verify|clean", 1, 1,
     CLI_COMP_CACHE_OP,
     "list: the blobs in the cache (named by their SHA-256), resumable downloads (.part), the "
     "quarantine and cached manifests, with sizes. verify: re-hash every blob against its name "
     "(exit 3 when one does not match). clean: remove them all (--dry-run: only say what)."},
    {"help", cmd_help, "help on a command", 0, "[COMMAND]", 0, 1, CLI_COMP_COMMAND,
     "Print the help of COMMAND (the same as cudnnctl COMMAND --help), or the list of commands."},
    {"__man", cmd_man, "(internal) a man page in roff", 1, "[COMMAND]", 0, 1, CLI_COMP_COMMAND,
     "Print cudnnctl(1), or cudnnctl-COMMAND(1), as roff (used by the build)."},
    {"__doc-tables", cmd_doc_tables, "(internal) the tables of docs/cli.md", 1, "", 0, 0,
     CLI_COMP_NONE, "Print the generated tables of docs/cli.md."},
    {"__cli-check", cmd_cli_check, "(internal) check the option tables", 1, "", 0, 0,
     CLI_COMP_NONE, "Check that the getopt table and the option table agree."},
    {"__complete", cmd_complete, "(internal) shell completion candidates", 1, "WORDS...", 0, -2,
     CLI_COMP_NONE, "Print the completions of the last word, one per line (TAB, description)."},
    {NULL, NULL, NULL, 0, NULL, 0, 0, CLI_COMP_NONE, NULL},
};

const cli_exit_code cli_exit_codes[] = {
    {0, "done"},
    {1, "failure not listed below"},
    {2, "usage error (unknown command or option, missing value, extra argument, no such file)"},
    {3, "verification failed (SHA-256 or size)"},
    {4, "unsafe or malformed archive"},
    {5, "nothing compatible to install (toolkit, driver, platform)"},
    {6, "validation failed (wrong version loaded, compute mismatch, load error)"},
    {7, "validation could not run the GPU part (no GPU / no driver); versions were checked"},
    {8, "another cudnnctl holds the lock"},
    {9, "permission denied"},
    {10, "network error"},
    {0, NULL},
};
