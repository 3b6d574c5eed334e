// libcurl loaded at run time, for the portable Stata plugin (built with -DLLMV_CURL_DLOPEN).
//
// Distributions version libcurl's symbols differently (Debian: CURL_OPENSSL_4, RHEL: none), so
// a binary linked against one distribution's libcurl does not load with another's. The plugin
// links these definitions instead of -lcurl: each forwards to the function of the same name in
// the libcurl.so.4 found at the first call. Without the define this file is empty, so the
// engine's other builds (the CLI, the R package) link libcurl as usual.
//
// LLMV_LIBCURL names the library to load instead (a path or a soname).
// LLMV_CURL_WITHOUT_MULTI_POLL=1 uses the fallback for libcurl < 7.66 (RHEL 8, CentOS 7: no
// curl_multi_poll) with any libcurl, so that the fallback is tested on every machine.
#if defined(LLMV_CURL_DLOPEN)

#define CURL_DISABLE_TYPECHECK  // the macros of curl/typecheck-gcc.h would rename the setters
#include <curl/curl.h>
#include <dlfcn.h>

#include <chrono>
#include <cstdarg>
#include <cstdlib>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "llmvalidate/error.hpp"

namespace {

using GenericFunction = void (*)();

struct CurlApi {
    CURLcode (*global_init)(long) = nullptr;
    char* (*version)() = nullptr;
    CURL* (*easy_init)() = nullptr;
    void (*easy_cleanup)(CURL*) = nullptr;
    void (*easy_reset)(CURL*) = nullptr;
    CURLcode (*easy_setopt)(CURL*, CURLoption, ...) = nullptr;
    CURLcode (*easy_getinfo)(CURL*, CURLINFO, ...) = nullptr;
    const char* (*easy_strerror)(CURLcode) = nullptr;
    curl_slist* (*slist_append)(curl_slist*, const char*) = nullptr;
    void (*slist_free_all)(curl_slist*) = nullptr;
    CURLM* (*multi_init)() = nullptr;
    CURLMcode (*multi_cleanup)(CURLM*) = nullptr;
    CURLMcode (*multi_setopt)(CURLM*, CURLMoption, ...) = nullptr;
    CURLMcode (*multi_add_handle)(CURLM*, CURL*) = nullptr;
    CURLMcode (*multi_remove_handle)(CURLM*, CURL*) = nullptr;
    CURLMcode (*multi_perform)(CURLM*, int*) = nullptr;
    CURLMsg* (*multi_info_read)(CURLM*, int*) = nullptr;
    const char* (*multi_strerror)(CURLMcode) = nullptr;
    CURLMcode (*multi_wait)(CURLM*, curl_waitfd*, unsigned int, int, int*) = nullptr;
    CURLMcode (*multi_timeout)(CURLM*, long*) = nullptr;
    CURLMcode (*multi_poll)(CURLM*, curl_waitfd*, unsigned int, int, int*) = nullptr;  // >= 7.66
};

// The names tried in order: an explicit choice, the usual soname, and Debian's GnuTLS build
// (installed on many desktops without the OpenSSL one).
std::vector<std::string> candidate_libraries() {
    const char* chosen = std::getenv("LLMV_LIBCURL");
    if (chosen && *chosen) return {chosen};
    return {"libcurl.so.4", "libcurl-gnutls.so.4"};
}

template <typename Function>
void bind(void* library, const char* name, Function& slot, std::string& missing) {
    slot = reinterpret_cast<Function>(dlsym(library, name));
    if (!slot) missing += std::string(missing.empty() ? "" : ", ") + name;
}

CurlApi load() {
    std::string tried;
    void* library = nullptr;
    for (const std::string& name : candidate_libraries()) {
        library = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
        if (library) break;
        const char* reason = dlerror();
        tried += (tried.empty() ? "" : "; ") + (reason ? std::string(reason) : name);
    }
    if (!library) {
        throw llmv::Error(llmv::code::transport,
                          "libcurl could not be loaded (" + tried +
                              "): requests to a provider need the system's libcurl "
                              "(libcurl.so.4: package libcurl4 on Debian and Ubuntu, libcurl on "
                              "RHEL, Rocky and Fedora), or LLMV_LIBCURL set to its path; the "
                              "simulated provider and `llmvalidate test` work without it");
    }
    CurlApi api;
    std::string missing;
    bind(library, "curl_global_init", api.global_init, missing);
    bind(library, "curl_version", api.version, missing);
    bind(library, "curl_easy_init", api.easy_init, missing);
    bind(library, "curl_easy_cleanup", api.easy_cleanup, missing);
    bind(library, "curl_easy_reset", api.easy_reset, missing);
    bind(library, "curl_easy_setopt", api.easy_setopt, missing);
    bind(library, "curl_easy_getinfo", api.easy_getinfo, missing);
    bind(library, "curl_easy_strerror", api.easy_strerror, missing);
    bind(library, "curl_slist_append", api.slist_append, missing);
    bind(library, "curl_slist_free_all", api.slist_free_all, missing);
    bind(library, "curl_multi_init", api.multi_init, missing);
    bind(library, "curl_multi_cleanup", api.multi_cleanup, missing);
    bind(library, "curl_multi_setopt", api.multi_setopt, missing);
    bind(library, "curl_multi_add_handle", api.multi_add_handle, missing);
    bind(library, "curl_multi_remove_handle", api.multi_remove_handle, missing);
    bind(library, "curl_multi_perform", api.multi_perform, missing);
    bind(library, "curl_multi_info_read", api.multi_info_read, missing);
    bind(library, "curl_multi_strerror", api.multi_strerror, missing);
    bind(library, "curl_multi_wait", api.multi_wait, missing);
    bind(library, "curl_multi_timeout", api.multi_timeout, missing);
    if (!missing.empty()) {
        dlclose(library);
        throw llmv::Error(llmv::code::transport,
                          "the libcurl that was loaded lacks " + missing +
                              ": the llmvalidate plugin needs libcurl 7.28 or later");
    }
    const char* without_poll = std::getenv("LLMV_CURL_WITHOUT_MULTI_POLL");
    if (!(without_poll && std::string(without_poll) == "1")) {
        api.multi_poll = reinterpret_cast<decltype(api.multi_poll)>(dlsym(library, "curl_multi_poll"));
    }
    return api;  // the library stays loaded for the life of the process
}

std::mutex api_mutex;
CurlApi* loaded_api = nullptr;

// Loads libcurl on first use. A failed load throws and is tried again at the next call.
const CurlApi& api() {
    std::lock_guard<std::mutex> lock(api_mutex);
    if (!loaded_api) loaded_api = new CurlApi(load());
    return *loaded_api;
}

// Every option of the setters carries its argument's type in its number (curl.h's
// CURLOPTTYPE_* bases); the argument is read with that type and passed on.
template <typename Setter, typename Handle, typename Option>
auto forward_option(Setter setter, Handle* handle, Option option, va_list args) {
    const long number = static_cast<long>(option);
    if (number < CURLOPTTYPE_OBJECTPOINT) return setter(handle, option, va_arg(args, long));
    if (number < CURLOPTTYPE_FUNCTIONPOINT) return setter(handle, option, va_arg(args, void*));
    if (number < CURLOPTTYPE_OFF_T) return setter(handle, option, va_arg(args, GenericFunction));
    if (number < CURLOPTTYPE_BLOB) return setter(handle, option, va_arg(args, curl_off_t));
    return setter(handle, option, va_arg(args, void*));
}

}  // namespace

extern "C" {

// The transport calls this inside std::call_once, which must not be left by an exception (the
// unwinder would have to pass through pthread_once): a failed load is reported by the next
// call, curl_multi_init.
CURLcode curl_global_init(long flags) {
    try {
        return api().global_init(flags);
    } catch (const llmv::Error&) {
        return CURLE_FAILED_INIT;
    }
}
char* curl_version() { return api().version(); }
CURL* curl_easy_init() { return api().easy_init(); }
void curl_easy_cleanup(CURL* handle) { api().easy_cleanup(handle); }
void curl_easy_reset(CURL* handle) { api().easy_reset(handle); }
const char* curl_easy_strerror(CURLcode code) { return api().easy_strerror(code); }
curl_slist* curl_slist_append(curl_slist* list, const char* text) {
    return api().slist_append(list, text);
}
void curl_slist_free_all(curl_slist* list) { api().slist_free_all(list); }
CURLM* curl_multi_init() { return api().multi_init(); }
CURLMcode curl_multi_cleanup(CURLM* multi) { return api().multi_cleanup(multi); }
CURLMcode curl_multi_add_handle(CURLM* multi, CURL* handle) {
    return api().multi_add_handle(multi, handle);
}
CURLMcode curl_multi_remove_handle(CURLM* multi, CURL* handle) {
    return api().multi_remove_handle(multi, handle);
}
CURLMcode curl_multi_perform(CURLM* multi, int* running) {
    return api().multi_perform(multi, running);
}
CURLMsg* curl_multi_info_read(CURLM* multi, int* queued) {
    return api().multi_info_read(multi, queued);
}
const char* curl_multi_strerror(CURLMcode code) { return api().multi_strerror(code); }
CURLMcode curl_multi_wait(CURLM* multi, curl_waitfd extra_fds[], unsigned int extra_nfds,
                          int timeout_ms, int* ret) {
    return api().multi_wait(multi, extra_fds, extra_nfds, timeout_ms, ret);
}
CURLMcode curl_multi_timeout(CURLM* multi, long* timeout_ms) {
    return api().multi_timeout(multi, timeout_ms);
}

CURLcode curl_easy_setopt(CURL* handle, CURLoption option, ...) {
    va_list args;
    va_start(args, option);
    const CURLcode result = forward_option(api().easy_setopt, handle, option, args);
    va_end(args);
    return result;
}

CURLMcode curl_multi_setopt(CURLM* multi, CURLMoption option, ...) {
    va_list args;
    va_start(args, option);
    const CURLMcode result = forward_option(api().multi_setopt, multi, option, args);
    va_end(args);
    return result;
}

CURLcode curl_easy_getinfo(CURL* handle, CURLINFO info, ...) {
    va_list args;
    va_start(args, info);
    void* destination = va_arg(args, void*);  // every CURLINFO_* writes through a pointer
    va_end(args);
    return api().easy_getinfo(handle, info, destination);
}

// curl_multi_poll waits the whole timeout even when curl has no socket to watch;
// curl_multi_wait then returns at once. Without curl_multi_poll the rest of the timeout is
// slept, shortened to curl's own next timer, so that the transport's loop does not spin.
CURLMcode curl_multi_poll(CURLM* multi, curl_waitfd extra_fds[], unsigned int extra_nfds,
                          int timeout_ms, int* ret) {
    const CurlApi& curl = api();
    if (curl.multi_poll) return curl.multi_poll(multi, extra_fds, extra_nfds, timeout_ms, ret);
    const auto start = std::chrono::steady_clock::now();
    int active = 0;
    const CURLMcode result = curl.multi_wait(multi, extra_fds, extra_nfds, timeout_ms, &active);
    if (ret) *ret = active;
    if (result != CURLM_OK || active > 0) return result;
    long remaining = timeout_ms - static_cast<long>(std::chrono::duration_cast<std::chrono::milliseconds>(
                                                        std::chrono::steady_clock::now() - start)
                                                        .count());
    long curl_timer = -1;
    if (curl.multi_timeout(multi, &curl_timer) == CURLM_OK && curl_timer >= 0 &&
        curl_timer < remaining)
        remaining = curl_timer;
    if (remaining > 0) std::this_thread::sleep_for(std::chrono::milliseconds(remaining));
    return result;
}

}  // extern "C"

#endif  // LLMV_CURL_DLOPEN
