/* A real `tollgate serve` for the live tests: seeds a database, starts the server on a port
 * (0: any free one, read back from its "listening on HOST:PORT" line), stops it with SIGTERM.
 * The binary is $TOLLGATE_BIN, or the repository's .build/debug/tollgate. */
#ifndef TG_TEST_SERVER_H
#define TG_TEST_SERVER_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

typedef struct test_server {
    pid_t pid;
    uint16_t port;
    char log_path[512];
} test_server;

const char *test_tollgate_bin(void);

/* A fresh temporary directory (removed by test_remove_dir). */
bool test_make_dir(char *path, size_t size);
void test_remove_dir(const char *path);

/* clients/test-certs DIR: a throwaway test CA, server and client certificates (see the script). */
bool test_make_certs(const char *dir);

/* `tollgate seed --database DATABASE --users USERS --inactive-share SHARE` */
bool test_seed(const char *database, int users, const char *inactive_share);

/* A live test's start: the tollgate binary exists, a fresh directory (DIR), and DATABASE in it
 * (DIR/tollgate.sqlite) seeded with `users` users (`inactive_share` of them without access). False,
 * saying why on stderr, when any step fails. */
bool test_live_setup(char *dir, size_t dir_size, char *database, size_t database_size, int users,
                     const char *inactive_share);

/* A live test's end: DIR removed when status is 0, else kept and named on stderr; returns status. */
int test_live_finish(const char *dir, int status);

/* Starts `tollgate serve` and waits until it listens. config may be NULL. */
bool test_server_start(test_server *server, const char *database, const char *config, uint16_t port,
                       const char *log_path);

/* SIGTERM, then waits for the process. */
void test_server_stop(test_server *server);

#endif
