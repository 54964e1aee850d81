#include <sqlite3.h>

// SQLITE_TRANSIENT is a cast of -1 to a function pointer, a macro Swift
// cannot import; this constant gives Swift the same value.
static sqlite3_destructor_type const mqa_sqlite_transient = (sqlite3_destructor_type)-1;
