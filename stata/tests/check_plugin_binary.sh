#!/usr/bin/env bash
# Checks the built plugin:
# - it exports exactly pginit and stata_call;
# - every library it names (the ELF NEEDED entries) is on an allow-list, and all resolve;
# - without --portable, it links libcurl dynamically (the plugin of a sanitizer build);
# - with --portable, the allow-list is glibc's own libraries only (the C++ runtime and SQLite
#   are linked in, libcurl is loaded at run time), and no symbol version (objdump -T) is above
#   the glibc floor: no GLIBC_ version above --glibc-floor, no GLIBCXX_, CXXABI_, GCC_ or
#   CURL_ version at all, and nothing that stops dlopen() elsewhere (text relocations, static
#   TLS, an executable stack, a run path); every pthread_* and dl* reference names the library
#   that defined it before glibc 2.34 (readelf -V: libpthread.so.0, libdl.so.2), not libc.so.6;
# - with --stripped, no symbol table or debug sections beyond the dynamic ones (the copy that
#   is installed).
# --expect-failure inverts the portable check, for the test that the check can fail: it passes
# only when both the version check and the allow-list reject the binary. --expect-failure-of
# REASON passes only when the check named REASON (libraries, stripped, ...) rejects it.
# --windows checks the Windows plugin instead (x86_64-w64-mingw32-objdump -p): a PE32+ DLL that
# exports exactly pginit and stata_call and imports only DLLs that every Windows has (the
# allow-list below); with --expect-failure it passes only when the import allow-list rejects it.
#
# usage: check_plugin_binary.sh [--portable --glibc-floor X.Y] [--stripped]
#                               [--expect-failure | --expect-failure-of REASON] PLUGIN
#        check_plugin_binary.sh --windows [--expect-failure] PLUGIN
set -euo pipefail
windows=0
portable=0
floor=""
expect_failure=0
stripped=0
expect_reason=""
while [ $# -gt 1 ]; do
  case "$1" in
    --portable) portable=1 ;;
    --windows) windows=1 ;;
    --glibc-floor) floor=$2; shift ;;
    --expect-failure) expect_failure=1 ;;
    --stripped) stripped=1 ;;
    --expect-failure-of) expect_failure=1; expect_reason=$2; shift ;;
    *) echo "check_plugin_binary.sh: unknown option '$1'" >&2; exit 2 ;;
  esac
  shift
done
plugin=${1:?usage: check_plugin_binary.sh [--portable --glibc-floor X.Y] PLUGIN}
if [ $portable = 1 ] && ! [[ $floor =~ ^2\.[0-9]+$ ]]; then
  echo "check_plugin_binary.sh: --portable needs --glibc-floor 2.N; received '$floor'" >&2
  exit 2
fi
failed=()  # the checks that failed: exports, needed, versions, loading, resolve

if [ $windows = 1 ]; then
  objdump=x86_64-w64-mingw32-objdump
  command -v $objdump >/dev/null 2>&1 ||
    { echo "check_plugin_binary.sh: needs $objdump (g++-mingw-w64-x86-64-posix)" >&2; exit 2; }
  headers=$($objdump -p "$plugin")
  if ! grep -q 'file format pei-x86-64' <<<"$headers" || ! grep -q '(PE32+)' <<<"$headers"; then
    echo "FAIL: $plugin is not a PE32+ (x86-64) image"; failed+=(format)
  fi
  # The DLL flag (0x2000) of the COFF characteristics, which objdump names "DLL".
  if ! sed -n '/^Characteristics/,/^$/p' <<<"$headers" | grep -qx $'\tDLL'; then
    echo "FAIL: $plugin is not a DLL"; failed+=(format)
  fi
  exported=$(sed -n '/\[Ordinal\/Name Pointer\] Table/,/^$/p' <<<"$headers" |
             sed -n 's/^[[:space:]]*\[[[:space:]]*[0-9]*\] \(.*\)$/\1/p' | sort | tr '\n' ' ')
  if [ "$exported" != "pginit stata_call " ]; then
    echo "FAIL: the plugin must export only pginit and stata_call; it exports: ${exported:-nothing}"
    failed+=(exports)
  fi
  # Windows' own DLLs: the kernel, the C runtime every Windows ships (msvcrt, or the Universal
  # CRT's api-ms-win-crt-* forwarders), sockets, and what Schannel TLS and libcurl use (crypt32,
  # bcrypt, advapi32, secur32, winmm). Not libstdc++-6, libgcc_s_seh-1 or
  # libwinpthread-1, which a user would not have.
  allowed='^(kernel32|msvcrt|ucrtbase|api-ms-win-crt-[a-z0-9-]+|ws2_32|crypt32|bcrypt|advapi32|secur32|winmm)\.dll$'
  imported=$(sed -n 's/^[[:space:]]*DLL Name: //p' <<<"$headers" | sort -u)
  for library in $imported; do
    lower=$(tr '[:upper:]' '[:lower:]' <<<"$library")
    if ! [[ $lower =~ $allowed ]]; then
      echo "FAIL: imported DLL $library is not on the allow-list"
      failed+=(imports)
    fi
  done
  if [ $expect_failure = 1 ]; then
    if [[ " ${failed[*]} " == *" imports "* ]]; then
      echo "OK: the Windows check rejects $plugin (imports: $(echo $imported))"
      exit 0
    fi
    echo "FAIL: the Windows check should have rejected $plugin for its imports" \
         "($(echo $imported)); it failed: ${failed[*]:-nothing}"
    exit 1
  fi
  [ ${#failed[@]} -eq 0 ] || exit 1
  echo "plugin binary OK (Windows): PE32+ DLL; exports pginit stata_call; imports: $(echo $imported)"
  exit 0
fi

if [ $expect_failure = 0 ]; then
  exported=$(nm -D --defined-only "$plugin" | awk '{print $NF}' | sort | tr '\n' ' ')
  if [ "$exported" != "pginit stata_call " ]; then
    echo "FAIL: the plugin must export only pginit and stata_call; it exports: $exported"
    failed+=(exports)
  fi
fi

# --stripped: the copy users install keeps no symbol table beyond the dynamic one.
if [ $stripped = 1 ] && readelf -S -W "$plugin" | grep -Eq ' \.(symtab|strtab|debug_[a-z]+) '; then
  echo "FAIL: the plugin is not stripped: $(readelf -S -W "$plugin" |
    grep -Eo ' \.(symtab|strtab|debug_[a-z]+) ' | tr -d ' ' | tr '\n' ' ')"
  failed+=(stripped)
fi

needed=$(readelf -d "$plugin" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
glibc_libraries='libc\.so\.6|libm\.so\.6|libpthread\.so\.0|libdl\.so\.2|librt\.so\.1|ld-linux-x86-64\.so\.2'
if [ $portable = 1 ]; then
  allowed="^($glibc_libraries)\$"
else
  allowed="^($glibc_libraries|libcurl\.so\.4|libsqlite3\.so\.0|libstdc\+\+\.so\.6|libgcc_s\.so\.1|libasan\.so\.[0-9]+|libubsan\.so\.[0-9]+)\$"
fi
for library in $needed; do
  if ! [[ $library =~ $allowed ]]; then
    echo "FAIL: dependency $library is not on the allow-list"
    failed+=(needed)
  fi
done
if [ $portable = 0 ] && ! grep -qx 'libcurl.so.4' <<<"$needed"; then
  echo "FAIL: libcurl must be a dynamic dependency (NEEDED: $(echo $needed))"
  failed+=(needed)
fi

if [ $portable = 1 ]; then
  # The version of every dynamic symbol, as objdump -T prints it: "GLIBC_2.14", "(GLIBC_2.2.5)".
  # An unversioned symbol has its size (hex digits) in that column.
  versions=$(objdump -T "$plugin" |
             awk 'NR > 4 && NF >= 6 && $(NF-1) ~ /^[(]?[A-Za-z_][A-Za-z0-9_.]*[)]?$/ {print $(NF-1)}' |
             tr -d '()' | grep -v '^Base$' | sort -u || true)
  # The names of the symbols that carry a version (at most 8).
  symbols_of() {
    objdump -T "$plugin" |
      awk -v v="$1" 'NF >= 6 && ($(NF-1) == v || $(NF-1) == "(" v ")") {print $NF}' |
      head -n 8 | tr '\n' ' '
  }
  floor_minor=${floor#2.}
  for version in $versions; do
    case "$version" in
      GLIBC_2.*)
        number=${version#GLIBC_2.}
        minor=${number%%.*}
        if [ "$minor" -gt "$floor_minor" ]; then
          echo "FAIL: $version is above the glibc floor $floor: $(symbols_of "$version")"
          failed+=(versions)
        fi ;;
      GLIBC_PRIVATE)
        echo "FAIL: the plugin uses glibc's private symbols"
        failed+=(versions) ;;
      *)
        echo "FAIL: symbol version $version is not glibc's (C++ runtime, libgcc or libcurl):" \
             "$(symbols_of "$version")"
        failed+=(versions) ;;
    esac
  done
fi

if [ $portable = 1 ]; then
  # Which library each versioned reference names (readelf -V: the "File:" of its version
  # index). Before glibc 2.34 the pthread and dl functions are defined in libpthread.so.0 and
  # libdl.so.2, not in libc.so.6, and glibc 2.17-2.33 look a reference up in the library it
  # names: one that names libc.so.6 stops dlopen() in a host that has not loaded libpthread.so.0
  # ("symbol pthread_create, version GLIBC_2.2.5 not defined in file libc.so.6 with link time
  # reference").
  library_of_index=$(readelf -V -W "$plugin" |
    awk '/Version needs section/ {on = 1} /Version symbols section|Version definition section/ {on = 0}
         on && / File: / {for (i = 1; i < NF; ++i) if ($i == "File:") file = $(i + 1)}
         on && / Name: / {for (i = 1; i < NF; ++i) if ($i == "Version:") print $(i + 1), file}')
  misbound=()
  while read -r name index; do
    case "$name" in
      pthread_*|__pthread_*|sem_*) wanted=libpthread.so.0 ;;
      dlopen|dlsym|dlvsym|dlclose|dlerror|dladdr|dladdr1|dlinfo|dlmopen) wanted=libdl.so.2 ;;
      shm_open|shm_unlink|timer_*|mq_*|aio_*|lio_listio) wanted=librt.so.1 ;;
      *) continue ;;
    esac
    named=$(awk -v i="$index" '$1 == i {print $2}' <<<"$library_of_index")
    [ "$named" = "$wanted" ] || misbound+=("$name -> ${named:-no library} (wanted $wanted)")
  done < <(readelf --dyn-syms -W "$plugin" |
           awk '$7 == "UND" && $8 ~ /@/ {name = $8; sub(/@.*/, "", name); index_ = $9;
                gsub(/[()]/, "", index_); print name, index_}')
  if [ ${#misbound[@]} -gt 0 ]; then
    echo "FAIL: ${#misbound[@]} references name the wrong library for glibc before 2.34" \
         "(readelf -V), e.g. ${misbound[*]:0:3}"
    failed+=(libraries)
  fi
  # A run path would let a build folder's libraries shadow the system's.
  if readelf -d "$plugin" | grep -Eq '\((RPATH|RUNPATH)\)'; then
    echo "FAIL: the plugin has a run path: $(readelf -d "$plugin" | grep -E '\((RPATH|RUNPATH)\)')"
    failed+=(loading)
  fi

  # What can keep dlopen() from loading a library on another system: text relocations, the
  # static TLS model (a fixed reserve that other libraries may have used up), an executable stack.
  dynamic=$(readelf -d "$plugin")
  if grep -q 'TEXTREL' <<<"$dynamic"; then
    echo "FAIL: the plugin has text relocations"; failed+=(loading)
  fi
  if grep -q 'STATIC_TLS' <<<"$dynamic"; then
    echo "FAIL: the plugin uses the static TLS model"; failed+=(loading)
  fi
  if readelf -lW "$plugin" | grep 'GNU_STACK' | grep -q 'RWE'; then
    echo "FAIL: the plugin asks for an executable stack"; failed+=(loading)
  fi
fi

if ldd "$plugin" | grep -q 'not found'; then
  echo "FAIL: unresolved dependencies:"; ldd "$plugin" | grep 'not found'
  failed+=(resolve)
fi

if [ $expect_failure = 1 ]; then
  if [ -n "$expect_reason" ]; then
    if [[ " ${failed[*]} " == *" $expect_reason "* ]]; then
      echo "OK: the check rejects $plugin ($expect_reason)"
      exit 0
    fi
    echo "FAIL: the check should have rejected $plugin ($expect_reason); it failed:" \
         "${failed[*]:-nothing}"
    exit 1
  fi
  if [[ " ${failed[*]} " == *" versions "* && " ${failed[*]} " == *" needed "* ]]; then
    echo "OK: the portable check rejects $plugin (symbol versions and dependencies)"
    exit 0
  fi
  echo "FAIL: the portable check should have rejected $plugin for its symbol versions and its" \
       "dependencies; it failed: ${failed[*]:-nothing}"
  exit 1
fi
if [ ${#failed[@]} -gt 0 ]; then
  exit 1
fi
if [ $portable = 1 ]; then
  highest=$(tr ' ' '\n' <<<"$versions" | grep '^GLIBC_' | sort -V | tail -n 1)
  echo "plugin binary OK (portable): exports pginit stata_call; NEEDED: $(echo $needed);" \
       "highest symbol version $highest (floor GLIBC_$floor)"
else
  echo "plugin binary OK: exports pginit stata_call; NEEDED: $(echo $needed)"
fi
