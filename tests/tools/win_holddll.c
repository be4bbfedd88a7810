/* win_holddll.c: keeps a DLL loaded the way a Python kernel or an IDE keeps cudnn64_9.dll loaded,
 * for the files-in-use tests. "win_holddll DLL READY RELEASE": LoadLibraryW(DLL), then writes
 * READY (holding the pid), then waits until RELEASE exists (at most 120 s) and exits. */
#include <stdio.h>
#include <stdlib.h>
#include <wchar.h>
#include <windows.h>

int wmain(int argc, wchar_t **argv)
{
    if (argc != 4) {
        fwprintf(stderr, L"usage: win_holddll DLL READY RELEASE\n");
        return 2;
    }
    HMODULE h = LoadLibraryW(argv[1]);
    if (!h) {
        fwprintf(stderr, L"LoadLibraryW(%ls): error %lu\n", argv[1], GetLastError());
        return 1;
    }
    FILE *f = _wfopen(argv[2], L"w");
    if (!f)
        return 1;
    fprintf(f, "%lu\n", (unsigned long)GetCurrentProcessId());
    fclose(f);
    for (int i = 0; i < 1200 && GetFileAttributesW(argv[3]) == INVALID_FILE_ATTRIBUTES; i++)
        Sleep(100);
    FreeLibrary(h);
    return 0;
}
