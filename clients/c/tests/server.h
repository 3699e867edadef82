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

/* Starts `tollgate serve` and waits until it listens. config may be NULL. */
bool test_server_start(test_server *server, const char *database, const char *config, uint16_t port,
                       const char *log_path);

/* SIGTERM, then waits for the process. */
void test_server_stop(test_server *server);

#endif
