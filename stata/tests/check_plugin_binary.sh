#!/usr/bin/env bash
# The plugin exports exactly pginit and stata_call, depends dynamically on libcurl, and needs
# no library outside the allow-list (direct dependencies, from the ELF NEEDED entries), all of
# which resolve.
set -euo pipefail
plugin=$1
status=0

exported=$(nm -D --defined-only "$plugin" | awk '{print $NF}' | sort | tr '\n' ' ')
if [ "$exported" != "pginit stata_call " ]; then
  echo "FAIL: the plugin must export only pginit and stata_call; it exports: $exported"
  status=1
fi

needed=$(readelf -d "$plugin" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
allowed='^(libcurl\.so\.4|libsqlite3\.so\.0|libstdc\+\+\.so\.6|libm\.so\.6|libgcc_s\.so\.1|libc\.so\.6|libpthread\.so\.0|libdl\.so\.2|ld-linux-x86-64\.so\.2|libasan\.so\.[0-9]+|libubsan\.so\.[0-9]+)$'
for library in $needed; do
  if ! [[ $library =~ $allowed ]]; then
    echo "FAIL: dependency $library is not on the allow-list"
    status=1
  fi
done
if ! grep -qx 'libcurl.so.4' <<<"$needed"; then
  echo "FAIL: libcurl must be a dynamic dependency (NEEDED: $(echo $needed))"
  status=1
fi
if ldd "$plugin" | grep -q 'not found'; then
  echo "FAIL: unresolved dependencies:"; ldd "$plugin" | grep 'not found'
  status=1
fi
[ $status -eq 0 ] && echo "plugin binary OK: exports pginit stata_call; NEEDED: $(echo $needed)"
exit $status
