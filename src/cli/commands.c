/* commands.c: the table of sub-commands (curl-style: name, handler, help). */
#include "cli.h"

const cli_command cli_commands[] = {
    {"detect", cmd_detect, "toolkits, driver, platform key, every cuDNN copy found (read-only)", 0},
    {"available", cmd_available, "what the catalog offers", 0},
    {"plan", cmd_plan, "the choice and every step install would take, with reasons", 0},
    {"install", cmd_install, "fetch, verify, extract, commit, link, validate", 0},
    {"uninstall", cmd_uninstall, "remove exactly what a receipt lists, restore what it replaced", 0},
    {"rollback", cmd_rollback, "undo the last install on a target", 0},
    {"recover", cmd_recover, "settle an interrupted run (roll back or finish), nothing else", 0},
    {"list", cmd_list, "installs made by cudnnctl, and foreign copies", 0},
    {"use", cmd_use, "make CUDA toolkit X.Y the active one", 0},
    {"env", cmd_env, "print shell activation for a toolkit / prefix", 0},
    {"validate", cmd_validate, "prove on the GPU that the installed cuDNN works", 0},
    {"__validate-child", cmd_validate_child, "(internal) the validation child process", 1},
    {"doctor", cmd_doctor, "find problems, name causes and fixes", 0},
    {"report", cmd_report, "record this environment as JSON", 0},
    {"compare", cmd_compare, "drift between environment records", 0},
    {"mirror", cmd_mirror, "fetch manifests and archives for offline use", 0},
    {NULL, NULL, NULL, 0},
};
