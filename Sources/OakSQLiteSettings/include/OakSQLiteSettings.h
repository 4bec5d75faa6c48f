#ifndef OAK_SQLITE_SETTINGS_H
#define OAK_SQLITE_SETTINGS_H

/// Applies the process-wide SQLite settings Oak Compendium runs with, once; later calls only report.
/// SQLite takes them only before its first connection, so they are applied when the program loads, and this
/// call (made where a store opens its database) keeps them linked into every program that opens one.
///
/// The one setting: no memory statistics (SQLITE_CONFIG_MEMSTATUS off, as SQLite's recommended build options
/// have it). With them on, every allocation of every connection takes one process-wide mutex, which threads
/// working on different databases at once (a server's readers and writer, the simulator's devices) queue on.
///
/// Returns 1 when the settings are in force, 0 when SQLite had started before they could be applied.
int oak_sqlite_apply_settings(void);

#endif
