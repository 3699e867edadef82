#define _GNU_SOURCE
#include "server.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

const char *test_tollgate_bin(void) {
    const char *configured = getenv("TOLLGATE_BIN");
    return configured && *configured ? configured : TOLLGATE_REPO_DIR "/.build/debug/tollgate";
}

bool test_make_dir(char *path, size_t size) {
    const char *base = getenv("TMPDIR");
    snprintf(path, size, "%s/tollgate-c-test.XXXXXX", base && *base ? base : "/tmp");
    return mkdtemp(path) != NULL;
}

void test_remove_dir(const char *path) {
    pid_t pid = fork();
    if (pid == 0) {
        execlp("rm", "rm", "-rf", path, (char *)NULL);
        _exit(127);
    }
    if (pid > 0) waitpid(pid, NULL, 0);
}

/* Runs argv with stdout and stderr sent to log_path (appended); returns the pid, or -1. */
static pid_t spawn(char *const argv[], const char *log_path) {
    pid_t pid = fork();
    if (pid != 0) return pid;
    int log = open(log_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    int null = open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (log < 0 || null < 0 || dup2(null, 0) < 0 || dup2(log, 1) < 0 || dup2(log, 2) < 0) _exit(126);
    execv(argv[0], argv);
    _exit(127);
}

bool test_make_certs(const char *dir) {
    char *argv[] = {TOLLGATE_REPO_DIR "/clients/test-certs", (char *)dir, NULL};
    pid_t pid = spawn(argv, "/dev/null");
    int status = 0;
    if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        fprintf(stderr, "    clients/test-certs %s failed\n", dir);
        return false;
    }
    return true;
}

bool test_seed(const char *database, int users, const char *inactive_share) {
    char count[16];
    snprintf(count, sizeof count, "%d", users);
    char *argv[] = {(char *)test_tollgate_bin(), "seed", "--database", (char *)database, "--users", count,
                    "--inactive-share", (char *)inactive_share, NULL};
    pid_t pid = spawn(argv, "/dev/null");
    int status = 0;
    if (pid < 0 || waitpid(pid, &status, 0) != pid) return false;
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        fprintf(stderr, "    tollgate seed failed (binary: %s)\n", test_tollgate_bin());
        return false;
    }
    return true;
}

/* The port in the log's "listening on HOST:PORT" line, or 0 while there is none. */
static uint16_t listening_port(const char *log_path, off_t from) {
    FILE *log = fopen(log_path, "r");
    if (!log) return 0;
    fseeko(log, from, SEEK_SET);
    char line[1024];
    uint16_t port = 0;
    while (!port && fgets(line, sizeof line, log)) {
        const char *found = strstr(line, "listening on ");
        const char *colon = found ? strchr(found + 13, ':') : NULL;
        if (colon) port = (uint16_t)atoi(colon + 1);
    }
    fclose(log);
    return port;
}

bool test_server_start(test_server *server, const char *database, const char *config, uint16_t port,
                       const char *log_path) {
    char listen[64];
    snprintf(listen, sizeof listen, "127.0.0.1:%u", (unsigned)port);
    snprintf(server->log_path, sizeof server->log_path, "%s", log_path);
    FILE *existing = fopen(log_path, "a");
    off_t from = existing ? ftello(existing) : 0;
    if (existing) fclose(existing);
    char *argv[] = {(char *)test_tollgate_bin(), "serve", "--listen", listen, "--database", (char *)database,
                    "--log-level", "warning", config ? "--config" : NULL, (char *)config, NULL};
    server->pid = spawn(argv, log_path);
    server->port = 0;
    if (server->pid < 0) return false;
    for (int waited = 0; waited < 30000; waited += 20) {
        if ((server->port = listening_port(log_path, from)) != 0) return true;
        int status;
        if (waitpid(server->pid, &status, WNOHANG) == server->pid) {
            fprintf(stderr, "    tollgate serve exited early; see %s\n", log_path);
            server->pid = -1;
            return false;
        }
        nanosleep(&(struct timespec){.tv_nsec = 20 * 1000000}, NULL);
    }
    fprintf(stderr, "    tollgate serve did not listen within 30 s; see %s\n", log_path);
    test_server_stop(server);
    return false;
}

void test_server_stop(test_server *server) {
    if (server->pid <= 0) return;
    kill(server->pid, SIGTERM);
    int status;
    for (int waited = 0; waited < 10000; waited += 10) {
        if (waitpid(server->pid, &status, WNOHANG) == server->pid) {
            server->pid = -1;
            return;
        }
        nanosleep(&(struct timespec){.tv_nsec = 10 * 1000000}, NULL);
    }
    kill(server->pid, SIGKILL);
    waitpid(server->pid, &status, 0);
    server->pid = -1;
}

bool test_live_setup(char *dir, size_t dir_size, char *database, size_t database_size, int users,
                     const char *inactive_share) {
    if (access(test_tollgate_bin(), X_OK) != 0) {
        fprintf(stderr, "no tollgate binary at %s: run `swift build` or set TOLLGATE_BIN\n", test_tollgate_bin());
        return false;
    }
    if (!test_make_dir(dir, dir_size)) return false;
    snprintf(database, database_size, "%s/tollgate.sqlite", dir);
    if (!test_seed(database, users, inactive_share)) {
        fprintf(stderr, "could not seed the database; files kept in %s\n", dir);
        return false;
    }
    return true;
}

int test_live_finish(const char *dir, int status) {
    if (status == 0) {
        test_remove_dir(dir);
    } else {
        fprintf(stderr, "server logs kept in %s\n", dir);
    }
    return status;
}
