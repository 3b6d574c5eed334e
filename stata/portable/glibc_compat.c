/* The portable plugin's glibc floor (2.17, as on RHEL/CentOS 7).
 *
 * The plugin is built against this machine's glibc, which gives many functions a newer symbol
 * version than the one old systems have (pthread_* and dl* moved into libc in 2.34, stat* became
 * real symbols in 2.33, fcntl64 appeared in 2.28), and the static libstdc++ and libgcc call a
 * few functions that old systems lack altogether. Two remedies, for every object in the link
 * (the engine, SQLite, libstdc++.a, libgcc_eh.a):
 *
 * - REDIRECT: the link wraps the symbol (-Wl,--wrap=NAME, listed in portable.cmake), and the
 *   wrapper calls the old version of the same function, bound with .symver;
 * - a definition here of a function or variable the old glibc lacks (_dl_find_object,
 *   arc4random, pthread_cond_clockwait, __libc_single_threaded), which the link prefers to
 *   libc's. The version script keeps all of them local to the plugin.
 *
 * stata/tests/check_plugin_binary.sh --portable fails when any symbol version above the floor is
 * left, so a new call that needs a redirect is found by the build's tests. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define LLMV_LOCAL __attribute__((visibility("hidden")))

/* REDIRECT(return type, name, version, (parameters), (arguments)): __wrap_name calls
 * name@version. */
#define REDIRECT(type, name, version, params, args)                          \
    extern type llmv_old_##name params;                                      \
    __asm__(".symver llmv_old_" #name "," #name "@" #version);               \
    LLMV_LOCAL type __wrap_##name params;                                    \
    type __wrap_##name params { return llmv_old_##name args; }

/* Threads: libpthread.so.0's versions before 2.34. */
REDIRECT(int, pthread_create, GLIBC_2.2.5,
         (pthread_t * thread, const pthread_attr_t* attr, void* (*start)(void*), void* arg),
         (thread, attr, start, arg))
REDIRECT(int, pthread_join, GLIBC_2.2.5, (pthread_t thread, void** result), (thread, result))
REDIRECT(int, pthread_detach, GLIBC_2.2.5, (pthread_t thread), (thread))
REDIRECT(int, pthread_once, GLIBC_2.2.5, (pthread_once_t * once, void (*init)(void)),
         (once, init))
REDIRECT(int, pthread_key_create, GLIBC_2.2.5,
         (pthread_key_t * key, void (*destructor)(void*)), (key, destructor))
REDIRECT(int, pthread_key_delete, GLIBC_2.2.5, (pthread_key_t key), (key))
REDIRECT(void*, pthread_getspecific, GLIBC_2.2.5, (pthread_key_t key), (key))
REDIRECT(int, pthread_setspecific, GLIBC_2.2.5, (pthread_key_t key, const void* value),
         (key, value))
REDIRECT(int, pthread_mutex_trylock, GLIBC_2.2.5, (pthread_mutex_t * mutex), (mutex))
REDIRECT(int, pthread_mutexattr_init, GLIBC_2.2.5, (pthread_mutexattr_t * attr), (attr))
REDIRECT(int, pthread_mutexattr_destroy, GLIBC_2.2.5, (pthread_mutexattr_t * attr), (attr))
REDIRECT(int, pthread_mutexattr_settype, GLIBC_2.2.5, (pthread_mutexattr_t * attr, int kind),
         (attr, kind))
REDIRECT(int, pthread_cond_timedwait, GLIBC_2.3.2,
         (pthread_cond_t * cond, pthread_mutex_t* mutex, const struct timespec* deadline),
         (cond, mutex, deadline))

/* gthr's "are threads in use" test: a weak reference, libpthread.so.0's version before 2.34. */
REDIRECT(int, __pthread_key_create, GLIBC_2.2.5,
         (pthread_key_t * key, void (*destructor)(void*)), (key, destructor))

/* libm: the versions before 2.29's new implementations (the same results on a new glibc,
 * whose old versions call the new code). */
REDIRECT(double, pow, GLIBC_2.2.5, (double x, double y), (x, y))

/* Dynamic loading: libdl.so.2's versions before 2.34. */
REDIRECT(void*, dlopen, GLIBC_2.2.5, (const char* file, int mode), (file, mode))
REDIRECT(void*, dlsym, GLIBC_2.2.5, (void* handle, const char* name), (handle, name))
REDIRECT(int, dlclose, GLIBC_2.2.5, (void* handle), (handle))
REDIRECT(char*, dlerror, GLIBC_2.2.5, (void), ())
REDIRECT(int, dladdr, GLIBC_2.2.5, (const void* address, Dl_info* info), (address, info))

/* stat and friends were inline calls of __xstat & co. before 2.33. */
extern int llmv_xstat64(int, const char*, struct stat64*);
extern int llmv_lxstat64(int, const char*, struct stat64*);
extern int llmv_fxstat64(int, int, struct stat64*);
extern int llmv_fxstatat64(int, int, const char*, struct stat64*, int);
__asm__(".symver llmv_xstat64,__xstat64@GLIBC_2.2.5");
__asm__(".symver llmv_lxstat64,__lxstat64@GLIBC_2.2.5");
__asm__(".symver llmv_fxstat64,__fxstat64@GLIBC_2.2.5");
__asm__(".symver llmv_fxstatat64,__fxstatat64@GLIBC_2.4");
enum { kStatVersion = 1 }; /* _STAT_VER_LINUX on x86_64 */

LLMV_LOCAL int __wrap_stat64(const char* path, struct stat64* buffer) {
    return llmv_xstat64(kStatVersion, path, buffer);
}
LLMV_LOCAL int __wrap_lstat64(const char* path, struct stat64* buffer) {
    return llmv_lxstat64(kStatVersion, path, buffer);
}
LLMV_LOCAL int __wrap_fstat64(int fd, struct stat64* buffer) {
    return llmv_fxstat64(kStatVersion, fd, buffer);
}
LLMV_LOCAL int __wrap_fstatat64(int dirfd, const char* path, struct stat64* buffer, int flags) {
    return llmv_fxstatat64(kStatVersion, dirfd, path, buffer, flags);
}
/* On x86_64 struct stat and struct stat64 are the same. */
LLMV_LOCAL int __wrap_stat(const char* path, struct stat* buffer) {
    return llmv_xstat64(kStatVersion, path, (struct stat64*)buffer);
}
LLMV_LOCAL int __wrap_lstat(const char* path, struct stat* buffer) {
    return llmv_lxstat64(kStatVersion, path, (struct stat64*)buffer);
}
LLMV_LOCAL int __wrap_fstat(int fd, struct stat* buffer) {
    return llmv_fxstat64(kStatVersion, fd, (struct stat64*)buffer);
}

/* fcntl64 (2.28) is fcntl on x86_64; its third argument, when there is one, is an int or a
 * pointer, read as a pointer-sized value as glibc itself does. */
extern int llmv_old_fcntl(int fd, int command, ...);
__asm__(".symver llmv_old_fcntl,fcntl@GLIBC_2.2.5");
LLMV_LOCAL int __wrap_fcntl64(int fd, int command, ...) {
    va_list args;
    va_start(args, command);
    void* argument = va_arg(args, void*);
    va_end(args);
    return llmv_old_fcntl(fd, command, argument);
}

/* Functions and variables that glibc 2.17 does not have. */

/* libstdc++ skips its atomic reference counts while this is true; false is always safe. */
LLMV_LOCAL char __libc_single_threaded = 0;

/* The unwinder of libgcc 12 asks _dl_find_object (2.35) for the unwind tables of the object
 * that holds an address. This answers from the program headers (the search the unwinder made
 * itself before glibc had the function). */
struct find_object_search {
    uintptr_t address;
    struct dl_find_object* result;
    int found;
};

static int find_object_visit(struct dl_phdr_info* info, size_t size, void* data) {
    struct find_object_search* search = data;
    (void)size;
    uintptr_t low = UINTPTR_MAX, high = 0;
    const void* eh_frame = NULL;
    int contains = 0;
    for (int i = 0; i < info->dlpi_phnum; ++i) {
        const ElfW(Phdr)* header = &info->dlpi_phdr[i];
        const uintptr_t start = info->dlpi_addr + header->p_vaddr;
        if (header->p_type == PT_LOAD) {
            const uintptr_t end = start + header->p_memsz;
            if (search->address >= start && search->address < end) contains = 1;
            if (start < low) low = start;
            if (end > high) high = end;
        } else if (header->p_type == PT_GNU_EH_FRAME) {
            eh_frame = (const void*)start;
        }
    }
    if (!contains) return 0;
    memset(search->result, 0, sizeof *search->result);
    search->result->dlfo_map_start = (void*)low;
    search->result->dlfo_map_end = (void*)high;
    search->result->dlfo_eh_frame = (void*)eh_frame;
    search->found = 1;
    return 1;
}

LLMV_LOCAL int _dl_find_object(void* address, struct dl_find_object* result) {
    struct find_object_search search = {(uintptr_t)address, result, 0};
    dl_iterate_phdr(find_object_visit, &search);
    return search.found ? 0 : -1;
}

/* pthread_cond_clockwait (2.30), which std::condition_variable uses for steady-clock waits:
 * the remaining time is waited on the realtime clock. An early or late wake-up is harmless:
 * the callers check their own clock and wait again. */
LLMV_LOCAL int pthread_cond_clockwait(pthread_cond_t* cond, pthread_mutex_t* mutex, clockid_t clock,
                                      const struct timespec* deadline) {
    if (clock == CLOCK_REALTIME) return __wrap_pthread_cond_timedwait(cond, mutex, deadline);
    if (clock != CLOCK_MONOTONIC) return EINVAL;
    struct timespec now_clock, now_real;
    clock_gettime(clock, &now_clock);
    clock_gettime(CLOCK_REALTIME, &now_real);
    int64_t remaining = (int64_t)(deadline->tv_sec - now_clock.tv_sec) * 1000000000 +
                        (deadline->tv_nsec - now_clock.tv_nsec);
    if (remaining < 0) remaining = 0;
    const int64_t real_deadline = (int64_t)now_real.tv_sec * 1000000000 + now_real.tv_nsec + remaining;
    const struct timespec real = {(time_t)(real_deadline / 1000000000),
                                  (long)(real_deadline % 1000000000)};
    return __wrap_pthread_cond_timedwait(cond, mutex, &real);
}

/* arc4random (2.36), for std::random_device: bytes from the kernel (getrandom, else
 * /dev/urandom). */
static void random_bytes(void* buffer, size_t size) {
    unsigned char* out = buffer;
    while (size > 0) {
        const long got = syscall(SYS_getrandom, out, size, 0);
        if (got > 0) {
            out += got;
            size -= (size_t)got;
        } else if (got < 0 && errno == EINTR) {
            continue;
        } else {
            break;
        }
    }
    if (size == 0) return;
    const int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
    while (fd >= 0 && size > 0) {
        const ssize_t got = read(fd, out, size);
        if (got > 0) {
            out += got;
            size -= (size_t)got;
        } else if (!(got < 0 && errno == EINTR)) {
            break;
        }
    }
    if (fd >= 0) close(fd);
    if (size > 0) abort(); /* no source of randomness at all */
}

LLMV_LOCAL uint32_t arc4random(void) {
    uint32_t value;
    random_bytes(&value, sizeof value);
    return value;
}

LLMV_LOCAL void arc4random_buf(void* buffer, size_t size) { random_bytes(buffer, size); }

/* getentropy (2.25), also for std::random_device. */
LLMV_LOCAL int getentropy(void* buffer, size_t size) {
    if (size > 256) {
        errno = EIO;
        return -1;
    }
    random_bytes(buffer, size);
    return 0;
}
