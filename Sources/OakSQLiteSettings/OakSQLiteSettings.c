#include "OakSQLiteSettings.h"

#include <sqlite3.h>

static int applied = -1;

__attribute__((constructor)) static void oak_sqlite_apply_settings_at_load(void) {
    oak_sqlite_apply_settings();
}

int oak_sqlite_apply_settings(void) {
    if (applied < 0) {
        // sqlite3_config is variadic, so Swift cannot call it: this is why the settings live in C.
        applied = sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0) == SQLITE_OK;
    }
    return applied;
}
