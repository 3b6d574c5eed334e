/* A library linked the ordinary way against this machine's glibc: its pthread and dl references
 * name libc.so.6, as the plugin's did before stata/portable/portable.cmake linked it against
 * stand-ins. check_plugin_binary.sh must reject it (CTest), and glibc before 2.34 must refuse to
 * load it into a host without libpthread (tools/test.d/stata-old-glibc.sh). */
#include <dlfcn.h>
#include <pthread.h>

static void* run(void* argument) { return argument; }

int pginit(void* table) {
    (void)table;
    return 3;
}

int stata_call(int argc, char** argv) {
    (void)argv;
    pthread_t thread;
    pthread_mutexattr_t attributes;
    if (pthread_mutexattr_init(&attributes) == 0) pthread_mutexattr_destroy(&attributes);
    if (pthread_create(&thread, NULL, run, NULL) != 0) return 1;
    pthread_join(thread, NULL);
    void* handle = dlopen("libm.so.6", RTLD_NOW);
    if (handle != NULL) dlclose(handle);
    return argc;
}
